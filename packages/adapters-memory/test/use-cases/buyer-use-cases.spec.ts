import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Buyer,
  BuyerCascade,
  deleteBuyersGiftCards,
  duplicate,
  makeCreateBuyer,
  makeDeleteBuyer,
  makeGetBuyer,
  makeRelayOutbox,
  makeUpdateBuyer,
  notFound,
  OutboxEntry,
  unavailable,
} from '@orka/domain'
import { aVaultedCard, aWebhookRecord, left, MERCHANT_A, MERCHANT_B, right, uuidFor } from '@orka/domain/testing'
import { activationWorld, deliveriesTo, outboxEntries, ACTOR } from './support'

const SUB = uuidFor(0xb01)
const UNKNOWN = uuidFor(0xbff)

describe('buyer use cases', () => {
  const setup = async (cascade: readonly BuyerCascade[] = []) => {
    const w = activationWorld()
    await right(w.webhooks.create(aWebhookRecord({ id: SUB, merchant_account_id: MERCHANT_A })))
    const create = makeCreateBuyer(w)
    const ada = await right(
      create({
        merchantAccountId: MERCHANT_A,
        actor: ACTOR,
        input: { display_name: 'Ada', external_identifier: 'crm-ada', account_number: 'A-1' },
      }),
    )
    const grace = await right(
      create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { display_name: 'Grace', external_identifier: 'crm-grace' } }),
    )
    const theirs = await right(create({ merchantAccountId: MERCHANT_B, actor: ACTOR, input: { external_identifier: 'crm-ada' } }))
    // The creations' events are not what these tests look at.
    w.dispatch.published.length = 0
    for (const e of await outboxEntries(w.outbox)) await right(w.outbox.remove(e.event_id))
    return {
      ...w,
      ada,
      grace,
      theirs,
      get: makeGetBuyer(w),
      update: makeUpdateBuyer(w),
      remove: makeDeleteBuyer({ ...w, cascade }),
      relay: () => right(makeRelayOutbox({ ...w, config: { graceMs: 60_000, batch: 10 } })()),
    }
  }
  const payloadOf = (e: OutboxEntry) => JSON.parse(e.body) as { name: string; target: Buyer }

  describe('makeGetBuyer', () => {
    it("reads a buyer of the account; unknown and another account's are NotFound", async () => {
      const s = await setup()
      expect(await right(s.get({ merchantAccountId: MERCHANT_A, id: s.ada.id }))).to.deep.equal(s.ada)
      expect(await left(s.get({ merchantAccountId: MERCHANT_A, id: UNKNOWN }))).to.deep.equal(notFound('Buyer', UNKNOWN))
      expect(await left(s.get({ merchantAccountId: MERCHANT_A, id: s.theirs.id }))).to.deep.equal(notFound('Buyer', s.theirs.id))
    })
  })

  describe('makeUpdateBuyer', () => {
    it('leaves absent properties, clears null ones, moves updated_at, and raises buyer.updated with the stored buyer', async () => {
      const s = await setup()
      s.clock.advance(5000)
      const updated = await right(
        s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id, input: { display_name: 'Ada King', account_number: null } }),
      )
      const expected: Buyer = { ...s.ada, display_name: 'Ada King', account_number: null, updated_at: s.clock.now().toISOString() }
      expect(updated).to.deep.equal(expected)
      expect(await right(s.buyers.findById(MERCHANT_A, s.ada.id))).to.deep.equal(O.some(expected))
      expect(s.dispatch.published.map(payloadOf)).to.deep.equal([
        { ...payloadOf(s.dispatch.published[0]!), name: 'buyer.updated', target: expected },
      ])
      expect(await outboxEntries(s.outbox)).to.deep.equal([s.dispatch.published[0]])
    })

    it('moves the external identifier, freeing the old one', async () => {
      const s = await setup()
      await right(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id, input: { external_identifier: 'crm-ada-2' } }))
      expect(O.map((b: Buyer) => b.id)(await right(s.buyers.findByExternalIdentifier(MERCHANT_A, 'crm-ada-2')))).to.deep.equal(
        O.some(s.ada.id),
      )
      await right(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.grace.id, input: { external_identifier: 'crm-ada' } }))
    })

    it("refuses another buyer's external identifier as Duplicate naming it; nothing changes and no event is left", async () => {
      const s = await setup()
      expect(
        await left(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id, input: { external_identifier: 'crm-grace' } })),
      ).to.deep.equal(duplicate('Buyer', s.grace.id))
      expect(await right(s.buyers.findById(MERCHANT_A, s.ada.id))).to.deep.equal(O.some(s.ada))
      expect(await outboxEntries(s.outbox)).to.have.length(0)
      expect(s.dispatch.published).to.deep.equal([])
    })

    it("is NotFound for an unknown buyer or another account's", async () => {
      const s = await setup()
      expect(await left(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: UNKNOWN, input: {} }))).to.deep.equal(
        notFound('Buyer', UNKNOWN),
      )
      expect(
        await left(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.theirs.id, input: { display_name: 'x' } })),
      ).to.deep.equal(notFound('Buyer', s.theirs.id))
      expect(await right(s.buyers.findById(MERCHANT_B, s.theirs.id))).to.deep.equal(O.some(s.theirs))
    })
  })

  describe('makeDeleteBuyer', () => {
    it('deletes the buyer, raising buyer.deleted with it as it was; the second time is NotFound', async () => {
      const s = await setup()
      await right(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id }))
      expect(await right(s.buyers.findById(MERCHANT_A, s.ada.id))).to.deep.equal(O.none)
      expect(s.dispatch.published.map((e) => [payloadOf(e).name, payloadOf(e).target])).to.deep.equal([['buyer.deleted', s.ada]])
      expect(await left(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id }))).to.deep.equal(notFound('Buyer', s.ada.id))
      expect(await left(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.theirs.id }))).to.deep.equal(
        notFound('Buyer', s.theirs.id),
      )
      expect(s.dispatch.published).to.have.length(1)
    })

    it('frees the external identifier', async () => {
      const s = await setup()
      await right(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id }))
      await right(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.grace.id, input: { external_identifier: 'crm-ada' } }))
    })

    it('runs each cascade step, in order, before the buyer is deleted; a failing step leaves the buyer', async () => {
      const seen: string[] = []
      const ok: BuyerCascade = (b) => TE.fromIO(() => void seen.push(`ok ${b.id}`))
      const s = await setup([ok, ok])
      await right(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id }))
      expect(seen).to.deep.equal([`ok ${s.ada.id}`, `ok ${s.ada.id}`])

      const failing = await setup([() => TE.left(unavailable(new Error('cards down')))])
      expect((await left(failing.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: failing.ada.id })))._tag).to.equal('Unavailable')
      expect(await right(failing.buyers.findById(MERCHANT_A, failing.ada.id))).to.deep.equal(O.some(failing.ada))
      expect(failing.dispatch.published).to.deep.equal([])
    })
  })

  describe('deleteBuyersGiftCards', () => {
    it("deletes the buyer's stored cards with it, and no other buyer's or account's", async () => {
      const s = await setup()
      const adas = aVaultedCard({ card: { merchant_account_id: MERCHANT_A, buyer: s.ada } })
      const graces = aVaultedCard({ card: { merchant_account_id: MERCHANT_A, buyer: s.grace } })
      for (const v of [adas, graces]) await right(s.giftCardVault.insert(v))
      const remove = makeDeleteBuyer({ ...s, cascade: [deleteBuyersGiftCards(s.giftCardVault)] })
      await right(remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: s.ada.id }))
      expect(await right(s.giftCardVault.findById(MERCHANT_A, adas.card.id))).to.deep.equal(O.none)
      expect(await right(s.giftCardVault.findById(MERCHANT_A, graces.card.id))).to.deep.equal(O.some(graces))
    })
  })

  describe('the relay, for entries left behind', () => {
    /** Raises the event as the use case would, stores the entry, and stops there (the process died). */
    const leftBehind = async (s: Awaited<ReturnType<typeof setup>>, name: 'buyer.updated' | 'buyer.deleted', target: Buyer) => {
      const event = await right(s.events.raise(name, MERCHANT_A, target))
      if (O.isNone(event)) throw new Error('nobody listens')
      await right(s.outbox.add(event.value))
      return event.value
    }

    it('hands over a buyer.updated whose update is stored, and drops one whose update is not', async () => {
      const s = await setup()
      s.clock.advance(1000)
      const done = { ...s.ada, display_name: 'Stored', updated_at: s.clock.now().toISOString() }
      await leftBehind(s, 'buyer.updated', done)
      await right(s.buyers.update(done))
      await leftBehind(s, 'buyer.updated', { ...s.grace, display_name: 'Never stored', updated_at: s.clock.now().toISOString() })
      s.clock.advance(60_001)
      expect(await s.relay()).to.deep.equal({ handedOver: 1, dropped: 1 })
      expect(
        (await deliveriesTo(s.deliveries, SUB)).map((d) => [d.event_name, (JSON.parse(d.body) as { target: Buyer }).target]),
      ).to.deep.equal([['buyer.updated', done]])
    })

    it('drops a buyer.updated whose buyer was deleted or updated again since', async () => {
      const s = await setup()
      s.clock.advance(1000)
      await leftBehind(s, 'buyer.updated', { ...s.ada, updated_at: s.clock.now().toISOString() })
      await right(s.buyers.delete(MERCHANT_A, s.ada.id))
      const first = { ...s.grace, display_name: 'First', updated_at: s.clock.now().toISOString() }
      await leftBehind(s, 'buyer.updated', first)
      await right(s.buyers.update(first))
      s.clock.advance(1)
      await right(s.buyers.update({ ...first, display_name: 'Second', updated_at: s.clock.now().toISOString() }))
      s.clock.advance(60_001)
      expect(await s.relay()).to.deep.equal({ handedOver: 0, dropped: 2 })
    })

    it('hands over a buyer.deleted whose buyer is gone, and drops one whose buyer is still there', async () => {
      const s = await setup()
      await leftBehind(s, 'buyer.deleted', s.ada)
      await right(s.buyers.delete(MERCHANT_A, s.ada.id))
      await leftBehind(s, 'buyer.deleted', s.grace)
      s.clock.advance(60_001)
      expect(await s.relay()).to.deep.equal({ handedOver: 1, dropped: 1 })
      expect((await deliveriesTo(s.deliveries, SUB)).map((d) => d.event_name)).to.deep.equal(['buyer.deleted'])
      expect(await outboxEntries(s.outbox)).to.deep.equal([])
    })
  })
})
