import { expect } from 'chai'
import { ManualClock } from '@orka/domain/testing'
import { defaultCardServiceId } from '../../src/card-services'
import { Harness, makeFixture, startHarness } from '../support/harness'
import { freshDatabase } from './support'

type Json = Record<string, unknown>
const LOOKUP_CACHE_MS = 5000
const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '123' }

/**
 * Card services changed through one instance's API route that instance's next payment at once,
 * and every other instance's within `LOOKUP_CACHE_MS` (each instance reads the account's
 * services through its lookup cache): two instances on one database, one clock.
 */
describe('payment services changed by API, routed by two instances on one MongoDB database', function () {
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

  /** Where `h` routes a card payment now: its status and the service it went to. */
  const pay = async (h: Harness) => {
    const r = await h.request<Json>('POST', '/transactions', { body: { amount: 1299, currency: 'USD', payment_method: CARD } })
    expect(r.status, r.text).to.equal(201)
    return [r.body.status, (r.body.payment_service as Json | null)?.display_name]
  }
  const afterTheBound = () => {
    a.clock.advance(LOOKUP_CACHE_MS + 1)
  }

  it('a service created, reordered, deactivated, reconfigured and deleted through A: A follows at once, B within the bound', async () => {
    const first = defaultCardServiceId('default')
    expect(await pay(b)).to.deep.equal(['authorization_succeeded', 'Mock cards'])

    const created = await a.request<Json>('POST', '/payment-services', {
      body: {
        display_name: 'Second',
        payment_service_definition_id: 'mock-card',
        accepted_currencies: [],
        accepted_countries: [],
        fields: [],
        position: 0,
      },
    })
    expect(created.status, created.text).to.equal(201)
    const second = String(created.body.id)
    expect((await a.request('PUT', `/payment-services/${first}`, { body: { position: 1 } })).status).to.equal(200)
    expect(await pay(a)).to.deep.equal(['authorization_succeeded', 'Second'])
    // B read the services before the change: within the bound it may still use what it read.
    expect(await pay(b)).to.deep.equal(['authorization_succeeded', 'Mock cards'])
    afterTheBound()
    expect(await pay(b)).to.deep.equal(['authorization_succeeded', 'Second'])

    // A field changed (the service now fails every call): both fail over to the next service.
    expect((await a.request('PUT', `/payment-services/${second}`, { body: { fields: [{ key: 'mode', value: 'down' }] } })).status).to.equal(
      200,
    )
    expect(await pay(a)).to.deep.equal(['authorization_succeeded', 'Mock cards'])
    afterTheBound()
    expect(await pay(b)).to.deep.equal(['authorization_succeeded', 'Mock cards'])

    // Deactivated: nothing routes to the first service; the second is down, so payments fail.
    expect((await a.request('PUT', `/payment-services/${first}`, { body: { active: false } })).status).to.equal(200)
    expect((await pay(a))[0]).to.equal('authorization_failed')
    afterTheBound()
    expect((await pay(b))[0]).to.equal('authorization_failed')

    // Reactivated through B, the second deleted through B: A follows within the bound.
    expect((await b.request('PUT', `/payment-services/${first}`, { body: { active: true } })).status).to.equal(200)
    expect((await b.request('DELETE', `/payment-services/${second}`)).status).to.equal(204)
    expect(await pay(b)).to.deep.equal(['authorization_succeeded', 'Mock cards'])
    afterTheBound()
    expect(await pay(a)).to.deep.equal(['authorization_succeeded', 'Mock cards'])
    expect((await a.request('GET', `/payment-services/${second}`)).status).to.equal(404)
  })
})
