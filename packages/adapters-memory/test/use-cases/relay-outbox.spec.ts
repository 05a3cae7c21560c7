import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import {
  makeHandOver,
  makeRelayOutbox,
  OutboxEntry,
  RelayConfig,
  WebhookDeliveryRecord,
  WebhookEventName,
  WebhookEventTarget,
} from '@orka/domain'
import { aBuyer, anAttempt, aVaultedCard, aWebhookRecord, MERCHANT_A, right, uuidFor } from '@orka/domain/testing'
import { activationWorld, deliveriesTo, outboxEntries, START } from './support'

const OWN = uuidFor(0xa01)
const INSTANCE_WIDE = uuidFor(0xa02)
const GRACE_MS = 60_000

describe('makeRelayOutbox', () => {
  const setup = async (config: RelayConfig = { graceMs: GRACE_MS, batch: 10 }) => {
    const w = activationWorld()
    await right(w.webhooks.create(aWebhookRecord({ id: OWN, merchant_account_id: MERCHANT_A })))
    await right(w.webhooks.create(aWebhookRecord({ id: INSTANCE_WIDE, merchant_account_id: null })))
    /** An event stored before its write, then left behind: the process stopped before handing it over. */
    const leftBehind = async <N extends WebhookEventName>(
      name: N,
      target: WebhookEventTarget<N> & { readonly id: string },
    ): Promise<OutboxEntry> => {
      const event = await right(w.events.raise(name, MERCHANT_A, target))
      if (O.isNone(event)) throw new Error('nobody listens')
      await right(w.outbox.add(event.value))
      return event.value
    }
    return {
      ...w,
      leftBehind,
      relay: () => right(makeRelayOutbox({ ...w, config })()),
      handOver: (e: OutboxEntry) => right(makeHandOver(w)(e)),
    }
  }

  /** The delivery of `e` to `subscriptionId` as handed over: pending, due at once, nothing tried yet. */
  const handedOver = (e: OutboxEntry, subscriptionId: string): WebhookDeliveryRecord => ({
    id: e.deliveries.find((d) => d.subscription_id === subscriptionId)!.id,
    subscription_id: subscriptionId,
    merchant_account_id: MERCHANT_A,
    event_id: e.event_id,
    event_name: e.event_name,
    body: e.body,
    status: 'pending',
    attempts: [],
    next_attempt_at: e.created_at,
    retries_used: 0,
    created_at: e.created_at,
    updated_at: e.created_at,
  })

  it('leaves entries younger than the grace period alone, whether or not their write happened', async () => {
    const s = await setup()
    const written = aBuyer({ merchant_account_id: MERCHANT_A })
    const stored = await s.leftBehind('buyer.created', written)
    await right(s.buyers.create(written))
    const pendingWrite = await s.leftBehind('buyer.created', aBuyer({ merchant_account_id: MERCHANT_A }))
    s.clock.advance(GRACE_MS - 1)

    expect(await s.relay()).to.deep.equal({ handedOver: 0, dropped: 0 })
    expect(await outboxEntries(s.outbox)).to.deep.equal([stored, pendingWrite])
    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([])
    expect(await deliveriesTo(s.deliveries, INSTANCE_WIDE)).to.deep.equal([])
  })

  it('hands over an entry whose buyer exists: one pending delivery per recipient, and the entry is gone', async () => {
    const s = await setup()
    const buyer = aBuyer({ merchant_account_id: MERCHANT_A })
    const entry = await s.leftBehind('buyer.created', buyer)
    await right(s.buyers.create(buyer))
    s.clock.advance(GRACE_MS + 1)

    expect(await s.relay()).to.deep.equal({ handedOver: 1, dropped: 0 })
    expect(await outboxEntries(s.outbox)).to.deep.equal([])
    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([handedOver(entry, OWN)])
    expect(await deliveriesTo(s.deliveries, INSTANCE_WIDE)).to.deep.equal([handedOver(entry, INSTANCE_WIDE)])
    expect(handedOver(entry, OWN).created_at).to.equal(START.toISOString())
  })

  it('drops an entry whose buyer was never stored, creating no delivery', async () => {
    const s = await setup()
    await s.leftBehind('buyer.created', aBuyer({ merchant_account_id: MERCHANT_A }))
    s.clock.advance(GRACE_MS + 1)

    expect(await s.relay()).to.deep.equal({ handedOver: 0, dropped: 1 })
    expect(await outboxEntries(s.outbox)).to.deep.equal([])
    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([])
    expect(await deliveriesTo(s.deliveries, INSTANCE_WIDE)).to.deep.equal([])
  })

  it('tells gift-card.created entries apart by the vault: a stored card is handed over, a missing one dropped', async () => {
    const s = await setup()
    const vaulted = aVaultedCard({ card: { merchant_account_id: MERCHANT_A } })
    const kept = await s.leftBehind('gift-card.created', vaulted.card)
    await right(s.giftCardVault.insert(vaulted))
    s.clock.advance(1)
    await s.leftBehind('gift-card.created', aVaultedCard({ card: { merchant_account_id: MERCHANT_A } }).card)
    s.clock.advance(GRACE_MS + 1)

    expect(await s.relay()).to.deep.equal({ handedOver: 1, dropped: 1 })
    expect(await outboxEntries(s.outbox)).to.deep.equal([])
    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([handedOver(kept, OWN)])
    expect(await deliveriesTo(s.deliveries, INSTANCE_WIDE)).to.deep.equal([handedOver(kept, INSTANCE_WIDE)])
  })

  it('tells gift-card.deleted entries apart by the vault: a card gone is handed over, one still stored dropped', async () => {
    const s = await setup()
    const deleted = aVaultedCard({ card: { merchant_account_id: MERCHANT_A } })
    await right(s.giftCardVault.insert(deleted))
    const gone = await s.leftBehind('gift-card.deleted', deleted.card)
    await right(s.giftCardVault.delete(MERCHANT_A, deleted.card.id))
    s.clock.advance(1)
    const still = aVaultedCard({ card: { merchant_account_id: MERCHANT_A } })
    await right(s.giftCardVault.insert(still))
    await s.leftBehind('gift-card.deleted', still.card)
    s.clock.advance(GRACE_MS + 1)

    expect(await s.relay()).to.deep.equal({ handedOver: 1, dropped: 1 })
    expect(await outboxEntries(s.outbox)).to.deep.equal([])
    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([handedOver(gone, OWN)])
    expect(await deliveriesTo(s.deliveries, INSTANCE_WIDE)).to.deep.equal([handedOver(gone, INSTANCE_WIDE)])
  })

  it('settles at most `batch` entries a run, oldest first', async () => {
    const s = await setup({ graceMs: GRACE_MS, batch: 2 })
    const entries: OutboxEntry[] = []
    for (let i = 0; i < 3; i++) {
      const buyer = aBuyer({ merchant_account_id: MERCHANT_A })
      entries.push(await s.leftBehind('buyer.created', buyer))
      await right(s.buyers.create(buyer))
      s.clock.advance(1000)
    }
    s.clock.advance(GRACE_MS)

    expect(await s.relay()).to.deep.equal({ handedOver: 2, dropped: 0 })
    expect(await outboxEntries(s.outbox)).to.deep.equal([entries[2]])
    expect(await s.relay()).to.deep.equal({ handedOver: 1, dropped: 0 })
    expect(await s.relay()).to.deep.equal({ handedOver: 0, dropped: 0 })
    expect((await deliveriesTo(s.deliveries, OWN)).map((d) => d.event_id)).to.deep.equal(entries.map((e) => e.event_id).reverse())
  })

  it('handing an entry over again neither duplicates nor resets a delivery that has progressed', async () => {
    const s = await setup()
    const buyer = aBuyer({ merchant_account_id: MERCHANT_A })
    const entry = await s.leftBehind('buyer.created', buyer)
    await right(s.buyers.create(buyer))
    await s.handOver(entry)

    // One attempt fails and the delivery waits for its retry.
    const first = handedOver(entry, OWN)
    const claim = await right(s.deliveries.claim(first, 'worker-1', START, new Date(START.getTime() + 30_000)))
    if (O.isNone(claim)) throw new Error('not claimed')
    const attempt = anAttempt({ attempted_at: START.toISOString() })
    await right(
      s.deliveries.settle(claim.value, attempt, { status: 'pending', next_attempt_at: '2025-01-15T10:01:00.000Z', retries_used: 1 }, START),
    )
    const progressed = { ...first, attempts: [attempt], next_attempt_at: '2025-01-15T10:01:00.000Z', retries_used: 1 }
    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([progressed])

    // Handed over once more (a publish that raced the relay), directly and then by the relay.
    await s.handOver(entry)
    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([progressed])
    await right(s.outbox.add(entry))
    s.clock.advance(GRACE_MS + 1)
    expect(await s.relay()).to.deep.equal({ handedOver: 1, dropped: 0 })

    expect(await deliveriesTo(s.deliveries, OWN)).to.deep.equal([progressed])
    expect(await deliveriesTo(s.deliveries, INSTANCE_WIDE)).to.deep.equal([handedOver(entry, INSTANCE_WIDE)])
    expect(await outboxEntries(s.outbox)).to.deep.equal([])
  })
})
