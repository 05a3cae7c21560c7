import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  conflict,
  DeliveryFilter,
  makeAttemptDelivery,
  makeListWebhookDeliveries,
  makeRedeliverWebhookDelivery,
  notFound,
  problem,
  RetrySchedule,
  WebhookDelivery,
  WebhookDeliveryRecord,
  WebhookScope,
  makeRecordAudited,
} from '@orka/domain'
import {
  aDelivery,
  anAttempt,
  aWebhookRecord,
  ManualClock,
  MERCHANT_A,
  MERCHANT_B,
  RecordingDispatch,
  right,
  uuidFor,
  SequentialIds,
} from '@orka/domain/testing'
import { MemoryWebhookDeliveryStore, MemoryWebhookSubscriptionRepository, MemoryAuditLog } from '../../src'
import { fixedRandom, ours, oursAndInstance, ScriptedSender, START, testBox, testMac, ACTOR } from './support'

const at = (ms: number) => new Date(START.getTime() + ms).toISOString()

const SUB = uuidFor(0xa01)
const INACTIVE = uuidFor(0xa02)
const FOREIGN = uuidFor(0xa03)
const INSTANCE_WIDE = uuidFor(0xa04)
const EMPTY = uuidFor(0xa05)
const UNKNOWN = uuidFor(0xa99)
const SCHEDULE: RetrySchedule = { delaysS: [60, 600], jitter: 0.2 }

/** The delivery as the API shows it: no body, account, retry count or update time. */
const shown = (d: WebhookDeliveryRecord): WebhookDelivery => ({
  type: 'webhook-delivery',
  id: d.id,
  subscription_id: d.subscription_id,
  event_id: d.event_id,
  event_name: d.event_name,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at,
  created_at: d.created_at,
})

const delivered = (o: Partial<WebhookDeliveryRecord> = {}) =>
  aDelivery({
    status: 'delivered',
    attempts: [anAttempt({ response_status: 200, error: null, response_excerpt: 'ok' })],
    next_attempt_at: null,
    ...o,
  })
const failed = (o: Partial<WebhookDeliveryRecord> = {}) =>
  aDelivery({ status: 'failed', attempts: [anAttempt(), anAttempt(), anAttempt()], next_attempt_at: null, retries_used: 2, ...o })
const pending = (o: Partial<WebhookDeliveryRecord> = {}) =>
  aDelivery({ status: 'pending', attempts: [anAttempt()], next_attempt_at: at(66_000), retries_used: 1, ...o })
const cancelled = (o: Partial<WebhookDeliveryRecord> = {}) => aDelivery({ status: 'cancelled', attempts: [], next_attempt_at: null, ...o })

interface ListQuery {
  subscriptionId: string
  filter?: DeliveryFilter
  limit?: number
  cursor?: string
  scope?: WebhookScope
}

/** A store where a concurrent redelivery of the same delivery always gets in first. */
class RacedDeliveryStore extends MemoryWebhookDeliveryStore {
  override redeliver(subscriptionId: string, deliveryId: string, now: Date, retriesUsed: number) {
    const rival = super.redeliver(subscriptionId, deliveryId, now, retriesUsed)
    const mine = super.redeliver(subscriptionId, deliveryId, now, retriesUsed)
    return TE.flatMap(() => mine)(rival)
  }
}

describe('webhook delivery use cases', () => {
  const setup = async (deliveries = new MemoryWebhookDeliveryStore()) => {
    const clock = new ManualClock(START)
    const box = testBox()
    const webhooks = new MemoryWebhookSubscriptionRepository()
    const dispatch = new RecordingDispatch()
    await right(
      webhooks.create(aWebhookRecord({ id: SUB, merchant_account_id: MERCHANT_A, authentication: null, sealed_secret: box.seal('whsec') })),
    )
    await right(webhooks.create(aWebhookRecord({ id: INACTIVE, merchant_account_id: MERCHANT_A, active: false })))
    await right(webhooks.create(aWebhookRecord({ id: FOREIGN, merchant_account_id: MERCHANT_B })))
    await right(webhooks.create(aWebhookRecord({ id: INSTANCE_WIDE, merchant_account_id: null })))
    await right(webhooks.create(aWebhookRecord({ id: EMPTY, merchant_account_id: MERCHANT_A })))
    const audited = makeRecordAudited({ audit: new MemoryAuditLog(), ids: new SequentialIds(), clock })
    const deps = { webhooks, deliveries, dispatch, clock, box, mac: testMac(), audited, schedule: SCHEDULE }
    return {
      ...deps,
      list: (q: ListQuery) => makeListWebhookDeliveries(deps)({ scope: ours, filter: {}, ...q })(),
      page: (q: ListQuery) => right(makeListWebhookDeliveries(deps)({ scope: ours, filter: {}, ...q })),
      redeliver: (subscriptionId: string, deliveryId: string, scope: WebhookScope = ours) =>
        makeRedeliverWebhookDelivery(deps)({ scope, actor: ACTOR, subscriptionId, deliveryId })(),
      stored: async (subscriptionId: string, deliveryId: string) =>
        O.toNullable(await right(deliveries.findById(subscriptionId, deliveryId))),
    }
  }

  describe('list', () => {
    /** Five deliveries to SUB a second apart, in every state, oldest first; and one to another subscription. */
    const history = () => [
      delivered({ id: uuidFor(0xd01), subscription_id: SUB, created_at: at(0), updated_at: at(0) }),
      failed({ id: uuidFor(0xd02), subscription_id: SUB, created_at: at(1000), updated_at: at(1000) }),
      pending({ id: uuidFor(0xd03), subscription_id: SUB, created_at: at(2000), updated_at: at(2000) }),
      failed({ id: uuidFor(0xd04), subscription_id: SUB, created_at: at(3000), updated_at: at(3000) }),
      cancelled({ id: uuidFor(0xd05), subscription_id: SUB, created_at: at(4000), updated_at: at(4000) }),
    ]
    const seeded = async () => {
      const s = await setup()
      const ds = history()
      await right(s.deliveries.enqueue([...ds, delivered({ id: uuidFor(0xd09), subscription_id: FOREIGN })]))
      return { ...s, ds }
    }

    it('lists one subscription\u2019s deliveries newest first, as the API shows them', async () => {
      const s = await seeded()
      const [d1, d2, d3, d4, d5] = s.ds
      expect(await s.list({ subscriptionId: SUB })).to.deep.equal(
        E.right({ items: [d5, d4, d3, d2, d1].map((d) => shown(d!)), limit: 20, next_cursor: null, previous_cursor: null }),
      )
      expect(shown(d3!)).to.deep.equal({
        type: 'webhook-delivery',
        id: uuidFor(0xd03),
        subscription_id: SUB,
        event_id: uuidFor(700),
        event_name: 'buyer.created',
        status: 'pending',
        attempts: [anAttempt()],
        next_attempt_at: at(66_000),
        created_at: at(2000),
      })
    })

    it('lists nothing for a subscription without deliveries', async () => {
      const s = await seeded()
      expect(await s.list({ subscriptionId: EMPTY })).to.deep.equal(
        E.right({ items: [], limit: 20, next_cursor: null, previous_cursor: null }),
      )
    })

    it('pages forward and back through the same pages', async () => {
      const s = await seeded()
      const ids = (p: { items: readonly WebhookDelivery[] }) => p.items.map((d) => d.id)
      const p1 = await s.page({ subscriptionId: SUB, limit: 2 })
      expect([ids(p1), p1.previous_cursor]).to.deep.equal([[uuidFor(0xd05), uuidFor(0xd04)], null])
      const p2 = await s.page({ subscriptionId: SUB, limit: 2, cursor: p1.next_cursor! })
      expect(ids(p2)).to.deep.equal([uuidFor(0xd03), uuidFor(0xd02)])
      const p3 = await s.page({ subscriptionId: SUB, limit: 2, cursor: p2.next_cursor! })
      expect([ids(p3), p3.next_cursor]).to.deep.equal([[uuidFor(0xd01)], null])
      expect(await s.list({ subscriptionId: SUB, limit: 2, cursor: p3.previous_cursor! })).to.deep.equal(E.right(p2))
      expect(await s.list({ subscriptionId: SUB, limit: 2, cursor: p2.previous_cursor! })).to.deep.equal(E.right(p1))
    })

    it('filters by status, and binds its cursors to that filter', async () => {
      const s = await seeded()
      const [, d2, , d4] = s.ds
      expect(await s.list({ subscriptionId: SUB, filter: { status: 'failed' } })).to.deep.equal(
        E.right({ items: [shown(d4!), shown(d2!)], limit: 20, next_cursor: null, previous_cursor: null }),
      )
      for (const status of ['pending', 'delivered', 'cancelled'] as const)
        expect((await s.page({ subscriptionId: SUB, filter: { status } })).items.map((d) => d.status)).to.deep.equal([status])

      const first = await s.page({ subscriptionId: SUB, filter: { status: 'failed' }, limit: 1 })
      expect([first.items, first.previous_cursor]).to.deep.equal([[shown(d4!)], null])
      const second = await s.page({ subscriptionId: SUB, filter: { status: 'failed' }, limit: 1, cursor: first.next_cursor! })
      expect([second.items, second.next_cursor]).to.deep.equal([[shown(d2!)], null])
      expect(await s.page({ subscriptionId: SUB, filter: { status: 'failed' }, limit: 1, cursor: second.previous_cursor! })).to.deep.equal(
        first,
      )
      // A cursor of the failed deliveries does not page through all of them.
      const other = await s.list({ subscriptionId: SUB, limit: 1, cursor: first.next_cursor! })
      expect(E.isLeft(other) && other.left._tag).to.equal('InvalidRequest')
    })

    it("answers NotFound for another account's subscription and an unknown one", async () => {
      const s = await seeded()
      expect(await s.list({ subscriptionId: FOREIGN })).to.deep.equal(E.left(notFound('WebhookSubscription', FOREIGN)))
      expect(await s.list({ subscriptionId: UNKNOWN })).to.deep.equal(E.left(notFound('WebhookSubscription', UNKNOWN)))
    })

    it('lists an instance-wide subscription\u2019s deliveries only for a scope that includes it', async () => {
      const s = await setup()
      const d = delivered({ id: uuidFor(0xd11), subscription_id: INSTANCE_WIDE, merchant_account_id: MERCHANT_B })
      await right(s.deliveries.enqueue([d]))
      expect(await s.list({ subscriptionId: INSTANCE_WIDE })).to.deep.equal(E.left(notFound('WebhookSubscription', INSTANCE_WIDE)))
      expect(await s.list({ subscriptionId: INSTANCE_WIDE, scope: oursAndInstance })).to.deep.equal(
        E.right({ items: [shown(d)], limit: 20, next_cursor: null, previous_cursor: null }),
      )
    })
  })

  describe('redeliver', () => {
    const NOW = 3_600_000

    for (const [state, make] of [
      ['delivered', delivered],
      ['failed', failed],
    ] as const) {
      it(`makes a ${state} delivery pending again, due now, with no retries left; and wakes the dispatch`, async () => {
        const s = await setup()
        const d = make({ id: uuidFor(0xd01), subscription_id: SUB })
        await right(s.deliveries.enqueue([d]))
        s.clock.advance(NOW)

        const again = {
          ...d,
          status: 'pending' as const,
          next_attempt_at: at(NOW),
          retries_used: SCHEDULE.delaysS.length,
          updated_at: at(NOW),
        }
        expect(await s.redeliver(SUB, d.id)).to.deep.equal(E.right(shown(again)))
        expect(await s.stored(SUB, d.id)).to.deep.equal(again)
        expect(s.dispatch.wakes).to.equal(1)
      })
    }

    it('a redelivery is one attempt: a failure fails it again, with the attempt appended', async () => {
      const s = await setup()
      const d = delivered({ id: uuidFor(0xd01), subscription_id: SUB })
      await right(s.deliveries.enqueue([d]))
      s.clock.advance(NOW)
      expect(E.isRight(await s.redeliver(SUB, d.id))).to.equal(true)

      const sender = new ScriptedSender([{ status: 503, error: 'unexpected_status', excerpt: null, durationMs: 40 }], s.clock)
      const attempt = makeAttemptDelivery({ ...s, sender, random: fixedRandom(0.5) })
      const claim = await right(
        s.deliveries.claim((await s.stored(SUB, d.id))!, 'worker-1', s.clock.now(), new Date(START.getTime() + NOW + 30_000)),
      )
      if (O.isNone(claim)) throw new Error('the redelivery could not be claimed')
      expect(await right(attempt(claim.value))).to.equal('failed')
      expect(await s.stored(SUB, d.id)).to.deep.equal({
        ...d,
        status: 'failed',
        attempts: [
          ...d.attempts,
          { attempted_at: at(NOW), response_status: 503, duration_ms: 40, error: 'unexpected_status', response_excerpt: null },
        ],
        next_attempt_at: null,
        retries_used: 2,
        updated_at: at(NOW + 40),
      })
      expect(sender.requests.map((r) => [r.eventId, r.body])).to.deep.equal([[d.event_id, d.body]])
    })

    it('refuses a pending delivery (409 delivery_pending), changing nothing and waking nobody', async () => {
      const s = await setup()
      const d = pending({ id: uuidFor(0xd01), subscription_id: SUB })
      await right(s.deliveries.enqueue([d]))
      expect(await s.redeliver(SUB, d.id)).to.deep.equal(
        E.left(
          conflict(
            d.id,
            problem('deliveryId', [], 'This delivery is still pending: its next attempt is already scheduled', 'delivery_pending'),
          ),
        ),
      )
      expect(await s.stored(SUB, d.id)).to.deep.equal(d)
      expect(s.dispatch.wakes).to.equal(0)
    })

    it('refuses a second redelivery while the first is pending', async () => {
      const s = await setup()
      const d = failed({ id: uuidFor(0xd01), subscription_id: SUB })
      await right(s.deliveries.enqueue([d]))
      await s.redeliver(SUB, d.id)
      const once = await s.stored(SUB, d.id)
      expect(await s.redeliver(SUB, d.id)).to.deep.equal(
        E.left(
          conflict(
            d.id,
            problem('deliveryId', [], 'This delivery is still pending: its next attempt is already scheduled', 'delivery_pending'),
          ),
        ),
      )
      expect(await s.stored(SUB, d.id)).to.deep.equal(once)
      expect(s.dispatch.wakes).to.equal(1)
    })

    it('refuses a cancelled delivery (409 delivery_cancelled)', async () => {
      const s = await setup()
      const d = cancelled({ id: uuidFor(0xd01), subscription_id: SUB })
      await right(s.deliveries.enqueue([d]))
      expect(await s.redeliver(SUB, d.id)).to.deep.equal(
        E.left(
          conflict(
            d.id,
            problem(
              'deliveryId',
              [],
              'This delivery was cancelled when its subscription was deactivated; it cannot be sent again',
              'delivery_cancelled',
            ),
          ),
        ),
      )
      expect(await s.stored(SUB, d.id)).to.deep.equal(d)
      expect(s.dispatch.wakes).to.equal(0)
    })

    it('refuses a delivery of an inactive subscription (409 subscription_inactive), naming the subscription', async () => {
      const s = await setup()
      const d = delivered({ id: uuidFor(0xd01), subscription_id: INACTIVE })
      await right(s.deliveries.enqueue([d]))
      expect(await s.redeliver(INACTIVE, d.id)).to.deep.equal(
        E.left(
          conflict(
            INACTIVE,
            problem('subscriptionId', [], 'The subscription is inactive: activate it before redelivering', 'subscription_inactive'),
          ),
        ),
      )
      expect(await s.stored(INACTIVE, d.id)).to.deep.equal(d)
      expect(s.dispatch.wakes).to.equal(0)
    })

    it("answers NotFound for an unknown subscription and another account's, changing nothing", async () => {
      const s = await setup()
      const theirs = delivered({ id: uuidFor(0xd01), subscription_id: FOREIGN })
      await right(s.deliveries.enqueue([theirs]))
      expect(await s.redeliver(FOREIGN, theirs.id)).to.deep.equal(E.left(notFound('WebhookSubscription', FOREIGN)))
      expect(await s.redeliver(UNKNOWN, theirs.id)).to.deep.equal(E.left(notFound('WebhookSubscription', UNKNOWN)))
      expect(await s.stored(FOREIGN, theirs.id)).to.deep.equal(theirs)
      expect(s.dispatch.wakes).to.equal(0)
    })

    it('answers NotFound for an unknown delivery and for one of another subscription', async () => {
      const s = await setup()
      const elsewhere = delivered({ id: uuidFor(0xd01), subscription_id: EMPTY })
      await right(s.deliveries.enqueue([elsewhere]))
      expect(await s.redeliver(SUB, uuidFor(0xdff))).to.deep.equal(E.left(notFound('WebhookDelivery', uuidFor(0xdff))))
      expect(await s.redeliver(SUB, elsewhere.id)).to.deep.equal(E.left(notFound('WebhookDelivery', elsewhere.id)))
      expect(await s.stored(EMPTY, elsewhere.id)).to.deep.equal(elsewhere)
      expect(s.dispatch.wakes).to.equal(0)
    })

    it('redelivers to an instance-wide subscription only through a scope that includes it', async () => {
      const s = await setup()
      const d = delivered({ id: uuidFor(0xd01), subscription_id: INSTANCE_WIDE, merchant_account_id: MERCHANT_B })
      await right(s.deliveries.enqueue([d]))
      expect(await s.redeliver(INSTANCE_WIDE, d.id)).to.deep.equal(E.left(notFound('WebhookSubscription', INSTANCE_WIDE)))
      expect(await s.redeliver(INSTANCE_WIDE, d.id, oursAndInstance)).to.deep.equal(
        E.right(shown({ ...d, status: 'pending', next_attempt_at: at(0) })),
      )
      expect(s.dispatch.wakes).to.equal(1)
    })

    it('when a concurrent redelivery got in first, answers 409 delivery_pending and does not wake the dispatch', async () => {
      const s = await setup(new RacedDeliveryStore())
      const d = failed({ id: uuidFor(0xd01), subscription_id: SUB })
      await right(s.deliveries.enqueue([d]))
      expect(await s.redeliver(SUB, d.id)).to.deep.equal(
        E.left(
          conflict(
            d.id,
            problem('deliveryId', [], 'This delivery is still pending: its next attempt is already scheduled', 'delivery_pending'),
          ),
        ),
      )
      expect(await s.stored(SUB, d.id)).to.deep.equal({
        ...d,
        status: 'pending',
        next_attempt_at: at(0),
        retries_used: 2,
        updated_at: at(0),
      })
      expect(s.dispatch.wakes).to.equal(0)
    })
  })
})
