import { expect } from 'chai'
import { ManualClock, passThrough } from '@orka/domain/testing'
import { GiftCardConnectors } from '@orka/domain'
import { DependencyContainer } from 'tsyringe'
import { get } from '../../src/container'
import { errorBody, Harness, IDS, makeFixture, Page, Resource, startHarness } from '../support/harness'
import { freshDatabase } from './support'

/** Counts activations that reach the gift card service, across every instance it wraps. */
const countingConnectors = (counter: { calls: number }) => (c: DependencyContainer) => {
  const inner = get(c, GiftCardConnectors)
  c.register(GiftCardConnectors, {
    useValue: {
      forDefinition: (id: string) => {
        const found = inner.forDefinition(id)
        if (found._tag === 'None') return found
        return {
          ...found,
          value: {
            ...passThrough(found.value),
            activate: (req: Parameters<typeof found.value.activate>[0]) => {
              counter.calls++
              return found.value.activate(req)
            },
          },
        }
      },
    } satisfies GiftCardConnectors,
  })
}

describe('several instances on one MongoDB database', function () {
  this.timeout(60000)
  let a: Harness
  let b: Harness
  let db: ReturnType<typeof freshDatabase>
  const counter = { calls: 0 }
  beforeEach(async () => {
    db = freshDatabase()
    const fixture = makeFixture()
    const clock = new ManualClock(new Date())
    const env = { ...db.env, CONNECTOR_TIMEOUT_MS: '5000' }
    counter.calls = 0
    a = await startHarness({ fixture, clock, env, configure: countingConnectors(counter) })
    b = await startHarness({ fixture, clock, env, configure: countingConnectors(counter) })
  })
  afterEach(async () => {
    await Promise.all([a.close(), b.close()])
    await db.drop()
  })

  it('admits an embed token at most 50 times in 60 s in total across activations, stores and balance checks, alternating instances', async () => {
    const token = a.token('admin', { scopes: ['embed'] })
    const number = (i: number) => `6300000000${String(i).padStart(6, '0')}001`
    const calls = [
      (h: Harness, i: number) => h.request('POST', '/gift-cards/activations', { auth: token, body: { number: number(i) } }),
      (h: Harness, i: number) => h.request('POST', '/gift-cards', { auth: token, body: { number: number(i), pin: '4321' } }),
      (h: Harness, i: number) =>
        h.request('POST', '/gift-cards/balances', { auth: token, body: { items: [{ number: number(i), pin: '4321' }] } }),
    ]
    const statuses: number[] = []
    for (let i = 0; i < 70; i++) {
      const r = await calls[i % 3]!(i % 2 === 0 ? a : b, i)
      statuses.push(r.status)
      a.clock.advance(500)
    }
    expect(statuses.slice(0, 50)).to.deep.equal(Array.from({ length: 50 }, (_, i) => (i % 3 === 2 ? 200 : 201)))
    expect(statuses.slice(50)).to.deep.equal(Array.from({ length: 20 }, () => 429))
  })

  it('runs 20 concurrent activations with one idempotency key once: one 201 replayed identically, 425 while in flight', async () => {
    const body = { number: '6400000000000000009' }
    const headers = { 'idempotency-key': 'scale-out-key' }
    const token = a.token()
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).request('POST', '/gift-cards/activations', { auth: token, body, headers }),
      ),
    )
    const created = replies.filter((r) => r.status === 201)
    const early = replies.filter((r) => r.status === 425)
    expect(created).to.have.length(1)
    expect(early).to.have.length(19)
    for (const r of early) {
      expect(r.body).to.deep.equal(errorBody(425))
      expect(r.headers.get('retry-after')).to.equal('1')
    }
    expect(counter.calls).to.equal(1)
    for (const h of [a, b]) {
      const replay = await h.request('POST', '/gift-cards/activations', { auth: token, body, headers })
      expect(replay.status).to.equal(201)
      expect(replay.headers.get('idempotent-replayed')).to.equal('true')
      expect(replay.text).to.equal(created[0]!.text)
    }
    expect(counter.calls).to.equal(1)
  })

  it('stores one card for 20 concurrent store: true activations of one number; the rest get 409 with its id', async () => {
    const body = { number: '6500000000000000001', pin: '2468', store: true }
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).request<Resource>('POST', '/gift-cards/activations', { body })),
    )
    const created = replies.filter((r) => r.status === 201)
    expect(created).to.have.length(1)
    const conflicts = replies.filter((r) => r.status === 409)
    expect(conflicts).to.have.length(19)
    for (const r of conflicts) expect(r.body).to.deep.equal(errorBody(409, [], { resource_id: created[0]!.body.id }))
    const later = await b.request('POST', '/gift-cards/activations', { body })
    expect(later.body).to.deep.equal(errorBody(409, [], { resource_id: created[0]!.body.id }))
  })

  it('deletes a webhook subscription through one instance and the other sees it gone at once', async () => {
    expect((await b.request('GET', `/webhook-subscriptions/${IDS.defaultWebhook}`)).status).to.equal(200)
    const del = await a.request('DELETE', `/webhook-subscriptions/${IDS.defaultWebhook}`)
    expect(del.status).to.equal(204)
    const read = await b.request('GET', `/webhook-subscriptions/${IDS.defaultWebhook}`)
    expect(read.status).to.equal(404)
    expect(read.body).to.deep.equal(errorBody(404))
    expect((await b.request('DELETE', `/webhook-subscriptions/${IDS.defaultWebhook}`)).status).to.equal(404)
  })

  it('walks pages with cursors from one instance on the other', async () => {
    const p1 = await a.request<Page>('GET', '/roles?limit=2')
    const p2 = await b.request<Page>('GET', `/roles?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor!)}`)
    expect(p2.status).to.equal(200)
    const back = await a.request('GET', `/roles?limit=2&cursor=${encodeURIComponent(p2.body.previous_cursor!)}`)
    expect(back.body).to.deep.equal(p1.body)
  })
})

describe('restarting on MongoDB', function () {
  this.timeout(60000)

  it('keeps every gift card, buyer and subscription, and does not duplicate seeded data', async () => {
    const db = freshDatabase()
    const fixture = makeFixture()
    const env = { ...db.env }
    let h = await startHarness({ fixture, env })
    try {
      const buyer = await h.request<Resource>('POST', '/buyers', { body: { external_identifier: 'restart-buyer' } })
      const card = await h.request<Resource>('POST', '/gift-cards/activations', {
        body: { number: '6600000000000000001', pin: '1', store: true, buyer_id: buyer.body.id },
      })
      const sub = await h.request<Resource>('POST', '/webhook-subscriptions', { body: { url: 'https://hooks.example.test/restart' } })
      expect([buyer.status, card.status, sub.status]).to.deep.equal([201, 201, 201])
      const before = {
        buyers: (await h.request<Page>('GET', '/buyers?limit=100')).body,
        subs: (await h.request<Page>('GET', '/webhook-subscriptions?limit=100')).body,
        roles: (await h.request<Page>('GET', '/roles?limit=100')).body.items,
      }
      await h.close()
      h = await startHarness({ fixture, env })
      const ready = await h.request('GET', '/readyz', { auth: null })
      expect([ready.status, ready.body]).to.deep.equal([200, { status: 'ready', storage: env.MONGODB_DATABASE }])
      expect((await h.request<Page>('GET', '/buyers?limit=100')).body.items).to.deep.equal(before.buyers.items)
      expect((await h.request<Page>('GET', '/webhook-subscriptions?limit=100')).body.items).to.deep.equal(before.subs.items)
      expect((await h.request<Page>('GET', '/roles?limit=100')).body.items).to.deep.equal(before.roles)
      expect((await h.request('GET', `/webhook-subscriptions/${sub.body.id}`)).body).to.deep.equal(sub.body)
      const again = await h.request('POST', '/gift-cards/activations', { body: { number: '6600000000000000001', pin: '1', store: true } })
      expect(again.body).to.deep.equal(errorBody(409, [], { resource_id: card.body.id }))
      expect((await h.request<Page>('GET', '/buyers?external_identifier=buyer-1')).body.items).to.have.length(1)
    } finally {
      await h.close()
      await db.drop()
    }
  })

  it('refuses to start with a clear one-line error when the server cannot be reached', async () => {
    let error: unknown
    try {
      await startHarness({ env: { MONGODB_URI: 'mongodb://127.0.0.1:1/', MONGODB_TIMEOUT_MS: '500' } })
    } catch (e) {
      error = e
    }
    expect((error as Error).message).to.match(/^[^\n]*127\.0\.0\.1:1[^\n]*$/)
  })
})
