import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Principal } from '../../src/auth/authorize'
import { Bucket, bucketFor, RateLimitRequest } from '../../src/rate-limit/rate-limit-policy'
import { aPrincipal } from '../../src/testing/fixtures'

const as = (scopes: string[], tokenId = 'tok-1'): Principal => aPrincipal({ scopes, tokenId })
const embed = as(['embed'])
const embedBucket = (tokenId = 'tok-1') => O.some<Bucket>({ policy: 'embed', key: `embed:${tokenId}` })
const sessionBucket = (id: string) => O.some<Bucket>({ policy: 'checkout-session', key: `checkout-session:${id}` })

// makeCheckRateLimit itself is tested on the memory adapters: packages/adapters-memory/test/use-cases/check-rate-limit.spec.ts.
describe('bucketFor', () => {
  // Which operations draw on which policy is declared with each operation in adapters-http.
  const embedOn = (principal: Principal): RateLimitRequest => ({ policy: 'embed', principal })
  const session = (sessionId: string, principal: Principal | null = embed): RateLimitRequest => ({
    policy: 'checkout-session',
    principal,
    sessionId,
  })
  const cases: [string, RateLimitRequest, O.Option<Bucket>][] = [
    ['limits an embed token on the embed policy', embedOn(embed), embedBucket()],
    ['limits a token carrying embed among other scopes', embedOn(as(['buyers.read', 'embed'])), embedBucket()],
    ['keys the embed bucket by token', embedOn(as(['embed'], 'tok-2')), embedBucket('tok-2')],
    ['never limits a server-to-server token on a card route', embedOn(as(['gift-cards.write'])), O.none],
    [
      'never limits a server-to-server token holding every embed scope',
      embedOn(as(['gift-cards.read', 'gift-cards.write', 'checkout-sessions.write', 'transactions.write'])),
      O.none,
    ],
    ['never limits a wildcard token', embedOn(as(['*.write'])), O.none],
    ['limits Secure Fields per checkout session id', session('cs_123'), sessionBucket('cs_123')],
    ['keys each checkout session by its own id, not by token', session('cs_456', as(['embed'], 'tok-9')), sessionBucket('cs_456')],
    ['never limits a server-to-server token on the session route', session('cs_123', as(['checkout-sessions.write'])), O.none],
    ['limits a request without a token per checkout session id', session('cs_123', null), sessionBucket('cs_123')],
    [
      'keys a session id in lower case, so the cases of one id are one quota',
      session('7A3F0C52-9D4E-4B1A-8C6D-00000000000A', null),
      sessionBucket('7a3f0c52-9d4e-4b1a-8c6d-00000000000a'),
    ],
  ]
  for (const [name, req, expected] of cases)
    it(name, () => {
      expect(bucketFor(req)).to.deep.equal(expected)
    })
})
