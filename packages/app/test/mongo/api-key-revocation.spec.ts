import { expect } from 'chai'
import { ManualClock } from '@orka/domain/testing'
import { mintToken } from '../../src/mint-token'
import { Harness, makeFixture, startHarness } from '../support/harness'
import { freshDatabase } from './support'

const LOOKUP_CACHE_MS = 5000

/**
 * A key suspended or deleted through one instance's API: that instance refuses its tokens at
 * once, and every other instance within `LOOKUP_CACHE_MS` (each reads keys through its lookup
 * cache; a verified token's key is looked up again on every request). Two instances on one
 * database, one clock: "within the bound" is the clock moved past it, nothing slept.
 */
describe('an API key suspended or deleted through one of two instances on one MongoDB database', function () {
  this.timeout(60000)
  let a: Harness
  let b: Harness
  let db: ReturnType<typeof freshDatabase>
  beforeEach(async () => {
    db = freshDatabase()
    const fixture = makeFixture()
    const clock = new ManualClock(new Date())
    const env = { ...db.env, LOOKUP_CACHE_MS: String(LOOKUP_CACHE_MS) }
    a = await startHarness({ fixture, clock, env })
    b = await startHarness({ fixture, clock, env })
  })
  afterEach(async () => {
    await Promise.all([a.close(), b.close()])
    await db.drop()
  })

  /** A read-only key made through A, and a token of it that both instances have just accepted (and cached). */
  const keyUsedOnBoth = async () => {
    const roles = await a.request<{ items: { id: string; slug: string }[] }>('GET', '/roles')
    const made = await a.request<{ id: string; private_key: string }>('POST', '/api-key-pairs', {
      body: { display_name: 'Shared', role_ids: roles.body.items.filter((r) => r.slug === 'read-only').map((r) => r.id) },
    })
    expect(made.status, made.text).to.equal(201)
    const token = mintToken(made.body.private_key, { scopes: ['*.read'], expiresInS: 3600, now: a.clock.now() })
    expect([await status(a, token), await status(b, token)]).to.deep.equal([200, 200])
    return { id: made.body.id, token }
  }
  const status = async (h: Harness, token: string) => (await h.request('GET', '/buyers', { auth: token })).status

  for (const [change, method, body] of [
    ['suspended', 'PUT', { active: false }],
    ['deleted', 'DELETE', undefined],
  ] as const)
    it(`${change} through A: A refuses it at once, B within LOOKUP_CACHE_MS`, async () => {
      const { id, token } = await keyUsedOnBoth()
      const r = await a.request(method, `/api-key-pairs/${id}`, { body })
      expect(r.status, r.text).to.equal(method === 'PUT' ? 200 : 204)
      expect(await status(a, token)).to.equal(401)
      // B read the key before the change: within the bound it may still accept what it read.
      expect(await status(b, token)).to.equal(200)
      a.clock.advance(LOOKUP_CACHE_MS + 1)
      expect(await status(b, token)).to.equal(401)
      expect(await status(a, token)).to.equal(401)
    })

  it('resumed through B after a suspension through A: B accepts it at once, A within the bound', async () => {
    const { id, token } = await keyUsedOnBoth()
    expect((await a.request('PUT', `/api-key-pairs/${id}`, { body: { active: false } })).status).to.equal(200)
    a.clock.advance(LOOKUP_CACHE_MS + 1)
    expect([await status(a, token), await status(b, token)]).to.deep.equal([401, 401])
    expect((await b.request('PUT', `/api-key-pairs/${id}`, { body: { active: true } })).status).to.equal(200)
    expect(await status(b, token)).to.equal(200)
    a.clock.advance(LOOKUP_CACHE_MS + 1)
    expect(await status(a, token)).to.equal(200)
  })
})
