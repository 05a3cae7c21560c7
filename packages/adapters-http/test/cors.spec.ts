import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { makeAuthorize, makeCheckRateLimit } from '@orka/domain'
import { createHttpApp, HttpDeps } from '../src'
import {
  CaptureLog,
  catalogueRoles,
  clockAtT0,
  FakeKeys,
  fakeMac,
  fakeMerchantAccounts,
  keyPair,
  listen,
  mint,
  newP521Key,
  SlidingLogRateLimitStore,
  T0,
  TestKey,
  useCasesWith,
} from './support'

const SHOP = 'https://shop.example'

describe('CORS on a crash', () => {
  let key: TestKey
  let server: { url: string; close(): Promise<void> }
  before(async () => {
    key = newP521Key()
    const clock = clockAtT0()
    const deps: HttpDeps = {
      keys: new FakeKeys(keyPair(key)),
      clock,
      mac: fakeMac,
      log: new CaptureLog(),
      config: {
        merchantAccountHeader: 'x-orka-merchant-account-id',
        defaultMerchantAccountId: 'default',
        maxBodyBytes: 1024,
        tokenCacheSize: 10,
        corsAllowedOrigins: [SHOP],
      },
      useCases: useCasesWith(
        () => () => {
          throw new Error('a bug')
        },
        {
          authorize: makeAuthorize({ merchantAccounts: fakeMerchantAccounts('default'), roles: catalogueRoles }),
          checkRateLimit: makeCheckRateLimit({ store: new SlidingLogRateLimitStore(), clock, config: { limit: 5, windowS: 60 } }),
          listGiftCards: () => TE.right({ items: [], limit: 20, next_cursor: null, previous_cursor: null }),
        },
      ),
    }
    server = await listen(createHttpApp(deps))
  })
  after(() => server.close())

  it('keeps Allow-Origin, Expose-Headers and Vary on the 500 that replaces a thrown exception', async () => {
    const res = await fetch(`${server.url}/gift-cards/balances`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${mint(key, { scopes: ['embed'], exp: T0 + 30 })}`,
        'content-type': 'application/json',
        origin: SHOP,
      },
      body: JSON.stringify({ items: [] }),
    })
    expect(res.status).to.equal(500)
    expect(res.headers.get('access-control-allow-origin')).to.equal(SHOP)
    expect(res.headers.get('access-control-expose-headers')).to.equal(
      'Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, X-Request-Id',
    )
    expect(res.headers.get('vary')).to.equal('Origin')
    expect(res.headers.get('ratelimit-policy')).to.equal('"embed";q=5;w=60')
    expect(res.headers.get('access-control-allow-credentials')).to.equal(null)
  })

  it('answers a success with them too', async () => {
    const res = await fetch(`${server.url}/gift-cards`, {
      headers: { authorization: `Bearer ${mint(key, { scopes: ['embed'], exp: T0 + 30 })}`, origin: SHOP },
    })
    expect([res.status, res.headers.get('access-control-allow-origin'), res.headers.get('vary')]).to.deep.equal([200, SHOP, 'Origin'])
  })
})
