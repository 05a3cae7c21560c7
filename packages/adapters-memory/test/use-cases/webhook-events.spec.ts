import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ACCOUNT_REACH,
  ActivateDeps,
  Buyer,
  BuyerCreate,
  cardDeclined,
  duplicate,
  GiftCardActivationCreate,
  GiftCardConnector,
  GiftCardConnectors,
  makeActivateGiftCard,
  makeCreateBuyer,
  makeWebhookEvents,
  OutboxEntry,
  reconciliationId,
  unavailable,
  makeRecordAudited,
} from '@orka/domain'
import {
  aGiftCardServiceRecord,
  passThrough,
  aVaultedCard,
  aWebhookRecord,
  MERCHANT_A,
  MERCHANT_B,
  right,
  uuidFor,
  SequentialIds,
} from '@orka/domain/testing'
import { MemoryBuyerRepository, MemoryGiftCardVault, MemoryWebhookOutbox } from '../../src'
import { activationWorld, expectedCard, outboxEntries, START, ACTOR } from './support'

const id = uuidFor

const OWN = uuidFor(0xa01)
const INSTANCE_WIDE = uuidFor(0xa02)
const INACTIVE = uuidFor(0xa03)
const FOREIGN = uuidFor(0xa04)

const NUMBER = '6036281234567890'
const PIN = '73915286'
const KEY = 'c0d7a3e4-5b6f-4a1e-9c8d-7e6f5a4b3c2d'

/** A buyer repository that notes what the outbox and the dispatch held when each write ran. */
class WatchedBuyers extends MemoryBuyerRepository {
  readonly seenAtWrite: { outbox: readonly OutboxEntry[]; published: number }[] = []
  constructor(
    private readonly outbox: MemoryWebhookOutbox,
    private readonly published: readonly OutboxEntry[],
  ) {
    super()
  }
  override create(buyer: Buyer) {
    const write = super.create(buyer)
    return TE.flatMap(() => write)(
      TE.fromTask(async () => {
        this.seenAtWrite.push({ outbox: await outboxEntries(this.outbox), published: this.published.length })
      }),
    )
  }
}

const world = () => {
  const w = activationWorld()
  const buyers = new WatchedBuyers(w.outbox, w.dispatch.published)
  // Audit entries draw their ids elsewhere: the event and delivery ids these tests expect come from `w.ids` alone.
  const audited = makeRecordAudited({ audit: w.audit, ids: new SequentialIds(), clock: w.clock })
  return { ...w, buyers, audited }
}
type World = ReturnType<typeof world>

/** Every kind of subscription: only the two active ones that see MERCHANT_A's events receive them. */
const subscribeEveryKind = async (w: World) => {
  await right(w.webhooks.create(aWebhookRecord({ id: OWN, merchant_account_id: MERCHANT_A })))
  await right(w.webhooks.create(aWebhookRecord({ id: INSTANCE_WIDE, merchant_account_id: null })))
  await right(w.webhooks.create(aWebhookRecord({ id: INACTIVE, merchant_account_id: MERCHANT_A, active: false })))
  await right(w.webhooks.create(aWebhookRecord({ id: FOREIGN, merchant_account_id: MERCHANT_B })))
}

/** The entry with its body parsed and its deliveries in subscription order (recipients come in no particular order). */
const readable = (e: OutboxEntry) => ({
  ...e,
  body: JSON.parse(e.body) as unknown,
  deliveries: [...e.deliveries].sort((a, b) => a.subscription_id.localeCompare(b.subscription_id)),
})
/** The delivery ids an event drew after its own: one per recipient, whichever recipient gets which. */
const deliveryIds = (e: OutboxEntry) => e.deliveries.map((d) => d.id).sort()
const recipientsOf = (e: OutboxEntry) => e.deliveries.map((d) => d.subscription_id).sort()

describe('webhook events raised by use cases', () => {
  describe('buyer.created', () => {
    const create = (
      w: World,
      input: BuyerCreate = { display_name: 'Ada Lovelace', external_identifier: 'crm-000417' },
      merchantAccountId = MERCHANT_A,
    ) => makeCreateBuyer(w)({ merchantAccountId, actor: ACTOR, input })()

    it('with no subscriptions, stores no outbox entry and publishes nothing', async () => {
      const w = world()
      const created = await create(w)
      expect(E.isRight(created)).to.equal(true)
      expect(await outboxEntries(w.outbox)).to.deep.equal([])
      expect(w.dispatch.published).to.deep.equal([])
      expect(w.buyers.seenAtWrite).to.deep.equal([{ outbox: [], published: 0 }])
    })

    it('with only inactive and other accounts\u2019 subscriptions, raises nothing either', async () => {
      const w = world()
      await right(w.webhooks.create(aWebhookRecord({ id: INACTIVE, merchant_account_id: MERCHANT_A, active: false })))
      await right(w.webhooks.create(aWebhookRecord({ id: FOREIGN, merchant_account_id: MERCHANT_B })))
      await right(w.webhooks.create(aWebhookRecord({ id: INSTANCE_WIDE, merchant_account_id: null, active: false })))
      expect(E.isRight(await create(w))).to.equal(true)
      expect(await outboxEntries(w.outbox)).to.deep.equal([])
      expect(w.dispatch.published).to.deep.equal([])
    })

    it('fans the event out to the active own-account and instance-wide subscriptions, with the buyer exactly as returned', async () => {
      const w = world()
      await subscribeEveryKind(w)
      const buyer = await right(
        makeCreateBuyer(w)({
          merchantAccountId: MERCHANT_A,
          actor: ACTOR,
          input: { display_name: 'Ada Lovelace', external_identifier: 'crm-000417' },
        }),
      )

      expect(buyer).to.deep.equal({
        type: 'buyer',
        id: id(1),
        reconciliation_id: reconciliationId(id(1)),
        merchant_account_id: MERCHANT_A,
        display_name: 'Ada Lovelace',
        external_identifier: 'crm-000417',
        billing_details: null,
        account_number: null,
        created_at: START.toISOString(),
        updated_at: START.toISOString(),
      })
      expect(w.dispatch.published).to.have.length(1)
      const entry = w.dispatch.published[0]!
      expect(recipientsOf(entry)).to.deep.equal([OWN, INSTANCE_WIDE].sort())
      expect(deliveryIds(entry)).to.deep.equal([id(3), id(4)])
      const [first, second] = readable(entry).deliveries
      expect(readable(entry)).to.deep.equal({
        event_id: id(2),
        event_name: 'buyer.created',
        merchant_account_id: MERCHANT_A,
        target_id: buyer.id,
        created_at: START.toISOString(),
        body: {
          type: 'event',
          id: id(2),
          name: 'buyer.created',
          created_at: START.toISOString(),
          merchant_account_id: MERCHANT_A,
          environment: 'sandbox',
          target: buyer,
        },
        deliveries: [first, second],
      })
      // RecordingDispatch hands nothing over: the entry stays for the relay.
      expect(await outboxEntries(w.outbox)).to.deep.equal([entry])
    })

    it('stores the entry before the write and publishes only after it', async () => {
      const w = world()
      await subscribeEveryKind(w)
      await right(makeCreateBuyer(w)({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: {} }))
      expect(w.buyers.seenAtWrite).to.deep.equal([{ outbox: [w.dispatch.published[0]], published: 0 }])
    })

    it('raises a buyer.created of another account only for its own and the instance-wide subscriptions', async () => {
      const w = world()
      await subscribeEveryKind(w)
      const buyer = await right(makeCreateBuyer(w)({ merchantAccountId: MERCHANT_B, actor: ACTOR, input: {} }))
      const [entry] = w.dispatch.published
      expect(recipientsOf(entry!)).to.deep.equal([INSTANCE_WIDE, FOREIGN].sort())
      expect(readable(entry!).body).to.deep.equal({
        type: 'event',
        id: id(2),
        name: 'buyer.created',
        created_at: START.toISOString(),
        merchant_account_id: MERCHANT_B,
        environment: 'sandbox',
        target: buyer,
      })
    })

    it('removes the entry of a write that fails (duplicate external identifier) and publishes nothing', async () => {
      const w = world()
      await subscribeEveryKind(w)
      const first = await right(
        makeCreateBuyer(w)({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { external_identifier: 'crm-000417' } }),
      )
      const firstEntry = w.dispatch.published[0]!

      const again = await create(w, { external_identifier: 'crm-000417' })

      expect(again).to.deep.equal(E.left(duplicate('Buyer', first.id)))
      // The failed write ran with its own entry stored, which is gone now.
      const atFailedWrite = w.buyers.seenAtWrite[1]!
      expect(atFailedWrite.outbox.map((e) => e.event_id)).to.deep.equal([firstEntry.event_id, id(6)])
      expect(await outboxEntries(w.outbox)).to.deep.equal([firstEntry])
      expect(w.dispatch.published).to.deep.equal([firstEntry])
    })
    it('when the entry cannot be stored, does not write the buyer and publishes nothing', async () => {
      const w = world()
      await subscribeEveryKind(w)
      const cause = new Error('outbox unavailable')
      const outbox = new (class extends MemoryWebhookOutbox {
        override add() {
          return TE.left(unavailable(cause))
        }
      })()
      const events = makeWebhookEvents({
        webhooks: w.webhooks,
        outbox,
        dispatch: w.dispatch,
        ids: w.ids,
        clock: w.clock,
        environment: 'sandbox',
      })
      expect(await makeCreateBuyer({ ...w, events })({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: {} })()).to.deep.equal(
        E.left(unavailable(cause)),
      )
      expect(w.buyers.seenAtWrite).to.deep.equal([])
      expect(await right(w.buyers.findById(MERCHANT_A, id(1)))).to.deep.equal(O.none)
      expect(w.dispatch.published).to.deep.equal([])
    })
  })

  describe('gift-card.created', () => {
    const setup = async (o: { subscribed?: boolean } = {}) => {
      const w = activationWorld()
      const service = aGiftCardServiceRecord({ merchant_account_id: MERCHANT_A })
      await right(w.giftCardServices.upsert(service))
      if (o.subscribed !== false) {
        await right(w.webhooks.create(aWebhookRecord({ id: OWN, merchant_account_id: MERCHANT_A })))
        await right(w.webhooks.create(aWebhookRecord({ id: INSTANCE_WIDE, merchant_account_id: null })))
        await right(w.webhooks.create(aWebhookRecord({ id: FOREIGN, merchant_account_id: MERCHANT_B })))
      }
      const activate = (body: Record<string, unknown>, idempotencyKey: string | null = null, replaced: Partial<ActivateDeps> = {}) => {
        const decoded = GiftCardActivationCreate.decode(body)
        if (E.isLeft(decoded)) throw new Error(`test body does not decode: ${JSON.stringify(body)}`)
        return makeActivateGiftCard({ ...w, ...replaced })({
          merchantAccountId: MERCHANT_A,
          actor: ACTOR,
          input: decoded.right,
          idempotencyKey,
          reach: ACCOUNT_REACH,
        })()
      }
      const card = expectedCard(service.service, { id: id(1) })
      return { ...w, activate, card }
    }

    it('with store, raises gift-card.created carrying the card as returned, never its number or PIN', async () => {
      const s = await setup()
      expect(await s.activate({ number: NUMBER, pin: PIN, store: true })).to.deep.equal(E.right({ value: s.card, replayed: false }))

      expect(s.dispatch.published).to.have.length(1)
      const entry = s.dispatch.published[0]!
      expect(recipientsOf(entry)).to.deep.equal([OWN, INSTANCE_WIDE].sort())
      expect(deliveryIds(entry)).to.deep.equal([id(3), id(4)])
      const [first, second] = readable(entry).deliveries
      expect(readable(entry)).to.deep.equal({
        event_id: id(2),
        event_name: 'gift-card.created',
        merchant_account_id: MERCHANT_A,
        target_id: s.card.id,
        created_at: START.toISOString(),
        body: {
          type: 'event',
          id: id(2),
          name: 'gift-card.created',
          created_at: START.toISOString(),
          merchant_account_id: MERCHANT_A,
          environment: 'sandbox',
          target: s.card,
        },
        deliveries: [first, second],
      })
      expect(entry.body).not.to.include(NUMBER).and.not.to.include(PIN)
      expect(JSON.stringify(await outboxEntries(s.outbox)))
        .not.to.include(NUMBER)
        .and.not.to.include(PIN)
      expect(await outboxEntries(s.outbox)).to.deep.equal([entry])
    })

    it('with store but nobody subscribed, stores the card and no outbox entry', async () => {
      const s = await setup({ subscribed: false })
      expect(await s.activate({ number: NUMBER, pin: PIN, store: true })).to.deep.equal(E.right({ value: s.card, replayed: false }))
      expect(await outboxEntries(s.outbox)).to.deep.equal([])
      expect(s.dispatch.published).to.deep.equal([])
    })

    it('without store, raises nothing: no card is created', async () => {
      const s = await setup()
      expect(await s.activate({ number: NUMBER, pin: PIN })).to.deep.equal(E.right({ value: s.card, replayed: false }))
      expect(await outboxEntries(s.outbox)).to.deep.equal([])
      expect(s.dispatch.published).to.deep.equal([])
    })

    it('a replay of the idempotency key raises nothing new', async () => {
      const s = await setup()
      await s.activate({ number: NUMBER, pin: PIN, store: true }, KEY)
      const [entry] = s.dispatch.published
      s.clock.advance(60_000)
      expect(await s.activate({ number: NUMBER, pin: PIN, store: true }, KEY)).to.deep.equal(E.right({ value: s.card, replayed: true }))
      expect(s.dispatch.published).to.deep.equal([entry])
      expect(await outboxEntries(s.outbox)).to.deep.equal([entry])
    })

    it('a declined card raises nothing', async () => {
      const s = await setup()
      expect(await s.activate({ number: '6036280000000002', pin: PIN, store: true })).to.deep.equal(
        E.left(cardDeclined('The gift card was declined')),
      )
      expect(await outboxEntries(s.outbox)).to.deep.equal([])
      expect(s.dispatch.published).to.deep.equal([])
    })

    it('a number the vault already holds (409) raises nothing new', async () => {
      const s = await setup()
      await s.activate({ number: NUMBER, pin: PIN, store: true })
      const [entry] = s.dispatch.published
      expect(await s.activate({ number: NUMBER, pin: '1111', store: true })).to.deep.equal(E.left(duplicate('GiftCard', s.card.id)))
      expect(s.dispatch.published).to.deep.equal([entry])
      expect(await outboxEntries(s.outbox)).to.deep.equal([entry])
    })

    it('a duplicate found only by the vault insert (a concurrent activation won) removes its entry and publishes nothing', async () => {
      const s = await setup()
      const rival = aVaultedCard({
        card: { id: uuidFor(0xb01), merchant_account_id: MERCHANT_A },
        fingerprint: s.mac.mac('card-fingerprint', NUMBER),
      })
      // The rival card lands while this activation is at the provider, after its duplicate check.
      const racing: GiftCardConnectors = {
        forDefinition: (definitionId) =>
          O.map((c: GiftCardConnector): GiftCardConnector => ({
            ...passThrough(c),
            activate: (req) => async () => {
              const inserted = await s.giftCardVault.insert(rival)()
              if (E.isLeft(inserted)) throw new Error('rival card not inserted')
              return c.activate(req)()
            },
          }))(s.giftCardConnectors.forDefinition(definitionId)),
      }
      const result = await s.activate({ number: NUMBER, pin: PIN, store: true }, null, { giftCardConnectors: racing })
      expect(result).to.deep.equal(E.left(duplicate('GiftCard', rival.card.id)))
      expect(await outboxEntries(s.outbox)).to.deep.equal([])
      expect(s.dispatch.published).to.deep.equal([])
      expect(await right(s.giftCardVault.findById(MERCHANT_A, s.card.id))).to.deep.equal(O.none)
    })

    it('a vault write that fails otherwise removes its entry and publishes nothing', async () => {
      const s = await setup()
      const cause = new Error('vault unavailable')
      const vault = new (class extends MemoryGiftCardVault {
        override insert() {
          return TE.left(unavailable(cause))
        }
      })()
      expect(await s.activate({ number: NUMBER, pin: PIN, store: true }, null, { giftCardVault: vault })).to.deep.equal(
        E.left(unavailable(cause)),
      )
      expect(await outboxEntries(s.outbox)).to.deep.equal([])
      expect(s.dispatch.published).to.deep.equal([])
    })
  })
})
