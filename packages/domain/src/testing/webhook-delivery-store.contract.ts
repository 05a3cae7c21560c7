import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Seek } from '../pagination/page'
import { deliverySortKey, WebhookDeliveryAttempt, WebhookDeliveryRecord } from '../webhooks/webhook-delivery'
import { WebhookDeliveryStore } from '../webhooks/webhook-delivery.ports'
import { dateAt, isoAt, MERCHANT_A, uuidFor } from './fixtures'
import { Harness, present, right, sortedBy, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const SUB = uuidFor(500)
const OTHER_SUB = uuidFor(501)

export const aDelivery = (o: Partial<WebhookDeliveryRecord> = {}): WebhookDeliveryRecord => ({
  id: uuidFor(600),
  subscription_id: SUB,
  merchant_account_id: MERCHANT_A,
  event_id: uuidFor(700),
  event_name: 'buyer.created',
  body: '{"type":"event"}',
  status: 'pending',
  attempts: [],
  next_attempt_at: isoAt(0),
  retries_used: 0,
  created_at: isoAt(0),
  updated_at: isoAt(0),
  ...o,
})

export const anAttempt = (o: Partial<WebhookDeliveryAttempt> = {}): WebhookDeliveryAttempt => ({
  attempted_at: isoAt(1000),
  response_status: 500,
  duration_ms: 12,
  error: 'unexpected_status',
  response_excerpt: 'oops',
  ...o,
})

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }
const byId = sortedBy((d: WebhookDeliveryRecord) => d.id)

export const webhookDeliveryStoreContract = (name: string, setup: () => Promise<Harness<WebhookDeliveryStore>>) =>
  describe(`WebhookDeliveryStore: ${name}`, () => {
    let h: Harness<WebhookDeliveryStore>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    const find = async (id: string, sub = SUB) => O.toNullable(await right(h.port.findById(sub, id)))
    const claimOf = async (d: WebhookDeliveryRecord, owner: string, nowMs: number, leaseMs = 10_000) =>
      O.toNullable(await right(h.port.claim(d, owner, dateAt(nowMs), dateAt(nowMs + leaseMs))))

    describe('storing', () => {
      it('finds an enqueued delivery by its subscription and id, and never through another subscription', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        expect(await find(d.id)).to.deep.equal(d)
        expect(await find(d.id, OTHER_SUB)).to.equal(null)
        expect(await find(uuidFor(1))).to.equal(null)
      })

      it('enqueuing a delivery again leaves the stored one as it is', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        const c = present(await claimOf(d, 'a', 0), 'a claim')
        await right(h.port.settle(c, anAttempt(), { status: 'pending', next_attempt_at: isoAt(60_000), retries_used: 1 }, dateAt(1000)))
        const settled = await find(d.id)
        await right(h.port.enqueue([d, aDelivery({ id: uuidFor(601) })]))
        expect(await find(d.id)).to.deep.equal(settled)
        expect(await find(uuidFor(601))).to.deep.equal(aDelivery({ id: uuidFor(601) }))
      })

      it('enqueues nothing for an empty list', async () => {
        await right(h.port.enqueue([]))
        expect(await right(h.port.list(SUB, {}, all))).to.deep.equal([])
      })
    })

    describe('due', () => {
      it('lists pending deliveries due by now, soonest first, up to the limit', async () => {
        const ds = [3, 1, 2, 9].map((n) => aDelivery({ id: uuidFor(n), next_attempt_at: isoAt(n * 1000) }))
        const done = aDelivery({ id: uuidFor(20), status: 'delivered', next_attempt_at: null })
        const cancelledOne = aDelivery({ id: uuidFor(21), status: 'cancelled', next_attempt_at: null })
        await right(h.port.enqueue([...ds, done, cancelledOne]))
        expect((await right(h.port.due(dateAt(3000), 10, []))).map((d) => d.id)).to.deep.equal([uuidFor(1), uuidFor(2), uuidFor(3)])
        expect((await right(h.port.due(dateAt(3000), 2, []))).map((d) => d.id)).to.deep.equal([uuidFor(1), uuidFor(2)])
        expect(await right(h.port.due(dateAt(999), 10, []))).to.deep.equal([])
      })

      it('leaves out the excluded subscriptions', async () => {
        await right(h.port.enqueue([aDelivery({ id: uuidFor(1) }), aDelivery({ id: uuidFor(2), subscription_id: OTHER_SUB })]))
        expect((await right(h.port.due(dateAt(0), 10, [SUB]))).map((d) => d.id)).to.deep.equal([uuidFor(2)])
        expect(await right(h.port.due(dateAt(0), 10, [SUB, OTHER_SUB]))).to.deep.equal([])
      })
    })

    describe('claims', () => {
      it('claims the next attempt of a due delivery', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        expect(await claimOf(d, 'a', 0)).to.deep.equal({ delivery: d, attempt: 1, owner: 'a' })
      })

      it('refuses a delivery that is claimed, not due, not pending or unknown', async () => {
        const d = aDelivery()
        const later = aDelivery({ id: uuidFor(2), next_attempt_at: isoAt(5000) })
        const gone = aDelivery({ id: uuidFor(3), status: 'cancelled', next_attempt_at: null })
        await right(h.port.enqueue([d, later, gone]))
        expect(await claimOf(d, 'a', 0)).not.to.equal(null)
        expect(await claimOf(d, 'b', 1000)).to.equal(null)
        expect(await claimOf(d, 'a', 1000)).to.equal(null)
        expect(await claimOf(later, 'a', 4999)).to.equal(null)
        expect(await claimOf(gone, 'a', 0)).to.equal(null)
        expect(await claimOf(aDelivery({ id: uuidFor(4) }), 'a', 0)).to.equal(null)
      })

      it('of racing claims on one delivery, exactly one wins', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        const owners = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']
        const won = await Promise.all(owners.map((o) => claimOf(d, o, 0)))
        expect(won.filter((c) => c !== null)).to.have.length(1)
      })

      it('lets another owner take over a claim whose lease ended', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        expect(await claimOf(d, 'a', 0, 10_000)).not.to.equal(null)
        expect(await claimOf(d, 'b', 10_000)).to.equal(null)
        expect(await claimOf(d, 'b', 10_001)).to.deep.equal({ delivery: d, attempt: 1, owner: 'b' })
        expect(await claimOf(d, 'c', 10_002)).to.equal(null)
      })

      it('refuses a claim made from a stale read: the attempt it would run was run', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        const c = present(await claimOf(d, 'a', 0), 'a claim')
        await right(h.port.settle(c, anAttempt(), { status: 'pending', next_attempt_at: isoAt(0), retries_used: 1 }, dateAt(1000)))
        expect(await claimOf(d, 'b', 2000)).to.equal(null)
        const fresh = present(await find(d.id), 'the delivery')
        expect((await claimOf(fresh, 'b', 2000))?.attempt).to.equal(2)
      })
    })

    describe('settling', () => {
      it('appends the attempt, applies the transition and frees the claim', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        const c = present(await claimOf(d, 'a', 0), 'a claim')
        const next = { status: 'pending', next_attempt_at: isoAt(60_000), retries_used: 1 } as const
        await right(h.port.settle(c, anAttempt(), next, dateAt(1000)))
        const settled = await find(d.id)
        expect(settled).to.deep.equal({ ...d, ...next, attempts: [anAttempt()], updated_at: isoAt(1000) })
        expect(await right(h.port.due(dateAt(59_999), 10, []))).to.deep.equal([])
        expect(await right(h.port.due(dateAt(60_000), 10, []))).to.deep.equal([settled])
        const again = present(await claimOf(present(settled, 'the delivery'), 'a', 60_000), 'a claim')
        expect(again.attempt).to.equal(2)
        const ok = anAttempt({ attempted_at: isoAt(60_000), response_status: 204, error: null, response_excerpt: null })
        await right(h.port.settle(again, ok, { status: 'delivered', next_attempt_at: null, retries_used: 1 }, dateAt(61_000)))
        expect(await find(d.id)).to.deep.equal({
          ...d,
          status: 'delivered',
          next_attempt_at: null,
          retries_used: 1,
          attempts: [anAttempt(), ok],
          updated_at: isoAt(61_000),
        })
      })

      it('settles without an attempt (the subscription was gone)', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        const c = present(await claimOf(d, 'a', 0), 'a claim')
        await right(h.port.settle(c, null, { status: 'cancelled', next_attempt_at: null, retries_used: 0 }, dateAt(5)))
        expect(await find(d.id)).to.deep.equal({ ...d, status: 'cancelled', next_attempt_at: null, updated_at: isoAt(5) })
      })

      it('keeps a cancellation that came while the attempt ran, and records the attempt', async () => {
        const d = aDelivery()
        await right(h.port.enqueue([d]))
        const c = present(await claimOf(d, 'a', 0), 'a claim')
        expect(await right(h.port.cancelPending(SUB, dateAt(500)))).to.equal(1)
        await right(h.port.settle(c, anAttempt(), { status: 'pending', next_attempt_at: isoAt(60_000), retries_used: 1 }, dateAt(1000)))
        expect(await find(d.id)).to.deep.equal({
          ...d,
          status: 'cancelled',
          next_attempt_at: null,
          attempts: [anAttempt()],
          updated_at: isoAt(1000),
        })
        expect(await right(h.port.due(dateAt(100_000), 10, []))).to.deep.equal([])
      })
    })

    describe('cancelling', () => {
      it("cancels the subscription's pending deliveries only, and says how many", async () => {
        const mine = [1, 2].map((n) => aDelivery({ id: uuidFor(n) }))
        const delivered = aDelivery({ id: uuidFor(3), status: 'delivered', next_attempt_at: null })
        const theirs = aDelivery({ id: uuidFor(4), subscription_id: OTHER_SUB })
        await right(h.port.enqueue([...mine, delivered, theirs]))
        expect(await right(h.port.cancelPending(SUB, dateAt(10)))).to.equal(2)
        for (const d of mine)
          expect(await find(d.id)).to.deep.equal({ ...d, status: 'cancelled', next_attempt_at: null, updated_at: isoAt(10) })
        expect(await find(delivered.id)).to.deep.equal(delivered)
        expect(await find(theirs.id, OTHER_SUB)).to.deep.equal(theirs)
        expect(await right(h.port.cancelPending(SUB, dateAt(20)))).to.equal(0)
      })
    })

    describe('list', () => {
      keysetBehaviour({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aDelivery({ id, created_at: createdAt }),
        keyOf: deliverySortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (ds) => {
          // Another subscription's deliveries share the instants and never show.
          await right(
            h.port.enqueue(ds.map((d, i) => aDelivery({ id: uuidFor(800 + i), subscription_id: OTHER_SUB, created_at: d.created_at }))),
          )
          await right(h.port.enqueue(ds))
        },
        read: (seek) => right(h.port.list(SUB, {}, seek)),
      })

      it('filters by status', async () => {
        const ds = [
          aDelivery({ id: uuidFor(1) }),
          aDelivery({ id: uuidFor(2), status: 'failed', next_attempt_at: null }),
          aDelivery({ id: uuidFor(3), status: 'failed', next_attempt_at: null, created_at: isoAt(1) }),
        ]
        await right(h.port.enqueue(ds))
        expect(await right(h.port.list(SUB, { status: 'failed' }, all))).to.deep.equal([ds[2], ds[1]])
        expect(await right(h.port.list(SUB, { status: 'pending' }, all))).to.deep.equal([ds[0]])
        expect(await right(h.port.list(SUB, { status: 'delivered' }, all))).to.deep.equal([])
      })
    })

    describe('redeliver', () => {
      it('makes a delivered or failed delivery pending and due now, with the retries given as used', async () => {
        const failed = aDelivery({ id: uuidFor(1), status: 'failed', next_attempt_at: null, attempts: [anAttempt()], retries_used: 3 })
        const delivered = aDelivery({ id: uuidFor(2), status: 'delivered', next_attempt_at: null })
        await right(h.port.enqueue([failed, delivered]))
        for (const d of [failed, delivered]) {
          expect(await right(h.port.redeliver(SUB, d.id, dateAt(9000), 14))).to.equal(true)
          expect(await find(d.id)).to.deep.equal({
            ...d,
            status: 'pending',
            next_attempt_at: isoAt(9000),
            retries_used: 14,
            updated_at: isoAt(9000),
          })
        }
        expect(byId(await right(h.port.due(dateAt(9000), 10, [])))).to.deep.equal(
          byId([present(await find(failed.id)), present(await find(delivered.id))]),
        )
      })

      it("changes nothing for a pending, cancelled, unknown or other subscription's delivery", async () => {
        const pending = aDelivery({ id: uuidFor(1) })
        const gone = aDelivery({ id: uuidFor(2), status: 'cancelled', next_attempt_at: null })
        const theirs = aDelivery({ id: uuidFor(3), subscription_id: OTHER_SUB, status: 'failed', next_attempt_at: null })
        await right(h.port.enqueue([pending, gone, theirs]))
        for (const id of [pending.id, gone.id, theirs.id, uuidFor(4)])
          expect(await right(h.port.redeliver(SUB, id, dateAt(9000), 14))).to.equal(false)
        expect(await find(pending.id)).to.deep.equal(pending)
        expect(await find(gone.id)).to.deep.equal(gone)
        expect(await find(theirs.id, OTHER_SUB)).to.deep.equal(theirs)
      })
    })

    describe('sweep', () => {
      it('deletes finished deliveries last updated before the instant, and keeps pending ones', async () => {
        const old = (['delivered', 'failed', 'cancelled'] as const).map((status, i) =>
          aDelivery({ id: uuidFor(i + 1), status, next_attempt_at: null, updated_at: isoAt(1000) }),
        )
        const recent = aDelivery({ id: uuidFor(10), status: 'failed', next_attempt_at: null, updated_at: isoAt(5000) })
        const pending = aDelivery({ id: uuidFor(11), updated_at: isoAt(0) })
        await right(h.port.enqueue([...old, recent, pending]))
        expect(await right(h.port.sweep(dateAt(2000)))).to.equal(3)
        expect(byId(await right(h.port.list(SUB, {}, all)))).to.deep.equal(byId([recent, pending]))
        expect(await right(h.port.sweep(dateAt(2000)))).to.equal(0)
      })
    })
  })
