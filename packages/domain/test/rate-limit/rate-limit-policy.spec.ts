import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPair } from '../../src/auth/api-key-pair'
import { Principal } from '../../src/auth/authorize'
import { Bucket, bucketFor, makeCheckRateLimit } from '../../src/rate-limit/rate-limit-policy'
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
  const cases: Array<[string, string, string, Principal, O.Option<Bucket>]> = [
    ['limits an embed token on POST /gift-cards/balances', 'POST', '/gift-cards/balances', embed, embedBucket()],
    ['limits an embed token on POST /gift-cards', 'POST', '/gift-cards', embed, embedBucket()],
    ['limits an embed token on POST /transactions', 'POST', '/transactions', embed, embedBucket()],
    ['limits an embed token on POST /gift-cards/activations (our addition)', 'POST', '/gift-cards/activations', embed, embedBucket()],
    ['limits a lower-case method the same', 'post', '/gift-cards', embed, embedBucket()],
    ['limits a path with a trailing slash the same', 'POST', '/gift-cards/', embed, embedBucket()],
    ['limits a path with several trailing slashes the same', 'POST', '/transactions//', embed, embedBucket()],
    ['limits a token carrying embed among other scopes', 'POST', '/gift-cards', as(['buyers.read', 'embed']), embedBucket()],
    ['keys the embed bucket by token', 'POST', '/gift-cards', as(['embed'], 'tok-2'), embedBucket('tok-2')],
    ['does not limit GET on a limited path', 'GET', '/gift-cards', embed, O.none],
    ['does not limit a sub-path of a limited route', 'POST', '/gift-cards/balances/extra', embed, O.none],
    ['does not limit a prefix of a limited route', 'POST', '/gift-card', embed, O.none],
    ['does not limit other routes for embed tokens', 'POST', '/buyers', embed, O.none],
    ['does not limit GET /roles for embed tokens', 'GET', '/roles', embed, O.none],
    ['does not limit DELETE of a webhook subscription', 'DELETE', '/webhook-subscriptions/3b241101-e2bb-4255-8caf-4136c566a962', embed, O.none],
    ['does not limit the root path', 'POST', '/', embed, O.none],
    ['never limits a server-to-server token on a card route', 'POST', '/gift-cards', as(['gift-cards.write']), O.none],
    ['never limits a server-to-server token holding every embed scope', 'POST', '/gift-cards/activations', as([
      'gift-cards.read', 'gift-cards.write', 'checkout-sessions.write', 'transactions.write',
    ]), O.none],
    ['never limits a wildcard token', 'POST', '/transactions', as(['*.write']), O.none],
    ['limits Secure Fields per checkout session id', 'POST', '/checkout/sessions/cs_123/fields', embed, sessionBucket('cs_123')],
    ['keys each checkout session by its own id, not by token', 'POST', '/checkout/sessions/cs_456/fields', as(['embed'], 'tok-9'), sessionBucket('cs_456')],
    ['limits the session route with a trailing slash the same', 'POST', '/checkout/sessions/cs_123/fields/', embed, sessionBucket('cs_123')],
    ['does not limit GET on the session route', 'GET', '/checkout/sessions/cs_123/fields', embed, O.none],
    ['does not limit the session route without an id', 'POST', '/checkout/sessions//fields', embed, O.none],
    ['does not limit another checkout session route', 'POST', '/checkout/sessions/cs_123', embed, O.none],
    ['never limits a server-to-server token on the session route', 'POST', '/checkout/sessions/cs_123/fields', as(['checkout-sessions.write']), O.none],
  ]
  for (const [name, method, path, principal, expected] of cases)
    it(name, () => {
      expect(bucketFor(method, path, principal)).to.deep.equal(expected)
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
    expect(await check({ method: 'POST', path: '/gift-cards', principal: embed })()).to.deep.equal(E.right(O.some(quota(49, 60))))
    expect(calls).to.deep.equal([['embed:tok-1', 50, 60000, NOW]])
  })

  it('refuses a request over the limit with RateLimited, Retry-After rounded up to whole seconds', async () => {
    const { store } = fakeStore({ admitted: false, remaining: 0, resetMs: 1500 })
    const check = makeCheckRateLimit({ store, clock: { now: () => NOW }, config })
    expect(await check({ method: 'POST', path: '/gift-cards', principal: embed })()).to.deep.equal(E.left(rateLimited(2, quota(0, 2))))
  })

  it('never asks a client to retry after 0 seconds', async () => {
    const { store } = fakeStore({ admitted: false, remaining: 0, resetMs: 0 })
    const check = makeCheckRateLimit({ store, clock: { now: () => NOW }, config })
    expect(await check({ method: 'POST', path: '/gift-cards', principal: embed })()).to.deep.equal(E.left(rateLimited(1, quota(0, 0))))
  })

  it('lets an unlimited request through without touching the store', async () => {
    const { store, calls } = fakeStore({ admitted: false, remaining: 0, resetMs: 0 })
    const check = makeCheckRateLimit({ store, clock: { now: () => NOW }, config })
    expect(await check({ method: 'POST', path: '/gift-cards', principal: as(['gift-cards.write']) })()).to.deep.equal(E.right(O.none))
    expect(calls).to.deep.equal([])
  })

  it('passes a failing store on as Unavailable', async () => {
    const boom = unavailable(new Error('down'))
    const check = makeCheckRateLimit({ store: { admit: () => TE.left(boom) }, clock: { now: () => NOW }, config })
    expect(await check({ method: 'POST', path: '/gift-cards', principal: embed })()).to.deep.equal(E.left(boom))
  })
})
