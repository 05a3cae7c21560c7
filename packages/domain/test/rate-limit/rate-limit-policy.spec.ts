import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPair } from '../../src/auth/api-key-pair'
import { Principal } from '../../src/auth/authorize'
import { Bucket, bucketFor, makeCheckRateLimit, RateLimitRequest } from '../../src/rate-limit/rate-limit-policy'
import { Admission, RateLimitStore } from '../../src/rate-limit/rate-limit.ports'
import { rateLimited, unavailable } from '../../src/shared/errors'

const key: ApiKeyPair = {
  id: '5c1c4b4e-8d1a-4f3b-9a0e-1b2c3d4e5f60',
  thumbprint: 'tp',
  public_key_pem: 'pem',
  merchant_account_id: null,
  roles: ['administrator'],
  revoked: false,
  created_at: '2025-01-01T00:00:00.000Z',
}
const as = (scopes: string[], tokenId = 'tok-1'): Principal => ({ key, scopes, tokenId })
const embed = as(['embed'])
const embedBucket = (tokenId = 'tok-1') => O.some<Bucket>({ policy: 'embed', key: `embed:${tokenId}` })
const sessionBucket = (id: string) => O.some<Bucket>({ policy: 'checkout-session', key: `checkout-session:${id}` })

describe('bucketFor', () => {
  // Which operations draw on which policy is declared with each operation in adapters-http.
  const embedOn = (principal: Principal): RateLimitRequest => ({ policy: 'embed', principal })
  const session = (sessionId: string, principal: Principal = embed): RateLimitRequest => ({
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
  ]
  for (const [name, req, expected] of cases)
    it(name, () => {
      expect(bucketFor(req)).to.deep.equal(expected)
    })
})

describe('makeCheckRateLimit', () => {
  const NOW = new Date('2025-01-01T12:00:00.000Z')
  const config = { limit: 50, windowS: 60 }
  const fakeStore = (answer: Admission) => {
    const calls: unknown[][] = []
    const store: RateLimitStore = {
      admit: (...args) => {
        calls.push(args)
        return TE.right(answer)
      },
    }
    return { store, calls }
  }
  const quota = (remaining: number, resetS: number) => ({ policy: 'embed', limit: 50, windowS: 60, remaining, resetS })

  it('draws from the bucket with the configured limit and window and reports the quota', async () => {
    const { store, calls } = fakeStore({ admitted: true, remaining: 49, resetMs: 60000 })
    const check = makeCheckRateLimit({ store, clock: { now: () => NOW }, config })
    expect(await check({ policy: 'embed', principal: embed })()).to.deep.equal(E.right(O.some(quota(49, 60))))
    expect(calls).to.deep.equal([['embed:tok-1', 50, 60000, NOW]])
  })

  it('refuses a request over the limit with RateLimited, Retry-After rounded up to whole seconds', async () => {
    const { store } = fakeStore({ admitted: false, remaining: 0, resetMs: 1500 })
    const check = makeCheckRateLimit({ store, clock: { now: () => NOW }, config })
    expect(await check({ policy: 'embed', principal: embed })()).to.deep.equal(E.left(rateLimited(2, quota(0, 2))))
  })

  it('never asks a client to retry after 0 seconds', async () => {
    const { store } = fakeStore({ admitted: false, remaining: 0, resetMs: 0 })
    const check = makeCheckRateLimit({ store, clock: { now: () => NOW }, config })
    expect(await check({ policy: 'embed', principal: embed })()).to.deep.equal(E.left(rateLimited(1, quota(0, 0))))
  })

  it('lets an unlimited request through without touching the store', async () => {
    const { store, calls } = fakeStore({ admitted: false, remaining: 0, resetMs: 0 })
    const check = makeCheckRateLimit({ store, clock: { now: () => NOW }, config })
    expect(await check({ policy: 'embed', principal: as(['gift-cards.write']) })()).to.deep.equal(E.right(O.none))
    expect(calls).to.deep.equal([])
  })

  it('passes a failing store on as Unavailable', async () => {
    const boom = unavailable(new Error('down'))
    const check = makeCheckRateLimit({ store: { admit: () => TE.left(boom) }, clock: { now: () => NOW }, config })
    expect(await check({ policy: 'embed', principal: embed })()).to.deep.equal(E.left(boom))
  })
})
