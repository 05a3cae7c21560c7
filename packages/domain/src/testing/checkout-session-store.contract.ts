import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { CheckoutSessionStore } from '../checkout-sessions/checkout-session.ports'
import { sessionPaymentMethod } from '../checkout-sessions/session-card'
import {
  aCheckoutSessionRecord,
  aFullCheckoutSessionRecord,
  aSessionCard,
  aSessionGiftCard,
  aSessionGiftCardsOnly,
} from './checkout-session-fixtures'
import { fakeMac } from './doubles'
import { dateAt, isoAt, MERCHANT_A, MERCHANT_B, nextUuid } from './fixtures'
import { Harness, right, teardownHarness } from './harness'

const HOUR = 3_600_000
const now = dateAt(0)
const later = (ms: number) => dateAt(ms)

export const checkoutSessionStoreContract = (name: string, setup: () => Promise<Harness<CheckoutSessionStore>>) =>
  describe(`CheckoutSessionStore: ${name}`, () => {
    let h: Harness<CheckoutSessionStore>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('finds a created session by id, every field as stored (metadata keys with `.`, `$` and `__proto__` included)', async () => {
      const s = aFullCheckoutSessionRecord()
      await right(h.port.create(s))
      expect(await right(h.port.find(MERCHANT_A, s.id, now))).to.deep.equal(O.some(s))
      const bare = aCheckoutSessionRecord()
      await right(h.port.create(bare))
      expect(await right(h.port.find(MERCHANT_A, bare.id, now))).to.deep.equal(O.some(bare))
    })

    it('finds nothing for an unknown id', async () => {
      await right(h.port.create(aCheckoutSessionRecord()))
      expect(await right(h.port.find(MERCHANT_A, nextUuid(), now))).to.deep.equal(O.none)
    })

    it('is live until its expires_at: then found, updated, deleted, carded and taken as if absent', async () => {
      const s = aCheckoutSessionRecord({ card: aSessionCard() })
      await right(h.port.create(s))
      expect(await right(h.port.find(MERCHANT_A, s.id, later(HOUR - 1)))).to.deep.equal(O.some(s))
      const at = later(HOUR)
      expect(await right(h.port.find(MERCHANT_A, s.id, at))).to.deep.equal(O.none)
      expect(await right(h.port.update({ ...s, amount: 1 }, at))).to.equal(false)
      expect(await right(h.port.putCard(s.id, aSessionCard(), isoAt(2 * HOUR), at))).to.deep.equal(O.none)
      expect(await right(h.port.takeCard(MERCHANT_A, s.id, at))).to.deep.equal(O.none)
      expect(await right(h.port.delete(MERCHANT_A, s.id, at))).to.equal(false)
      // Nothing above brought it back.
      expect(await right(h.port.find(MERCHANT_A, s.id, later(HOUR - 1)))).to.deep.equal(O.some(s))
    })

    it("never finds, updates, deletes or takes the card of another account's session", async () => {
      const s = aCheckoutSessionRecord({ merchant_account_id: MERCHANT_B, card: aSessionCard() })
      await right(h.port.create(s))
      expect(await right(h.port.find(MERCHANT_A, s.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.update({ ...s, merchant_account_id: MERCHANT_A, amount: 1 }, now))).to.equal(false)
      expect(await right(h.port.delete(MERCHANT_A, s.id, now))).to.equal(false)
      expect(await right(h.port.takeCard(MERCHANT_A, s.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.find(MERCHANT_B, s.id, now))).to.deep.equal(O.some(s))
    })

    it('replaces a live session on update, keeping its card data as it is', async () => {
      const card = aSessionCard()
      const s = aCheckoutSessionRecord({ card })
      await right(h.port.create(s))
      const full = aFullCheckoutSessionRecord({ id: s.id, expires_at: isoAt(2 * HOUR), card: null })
      expect(await right(h.port.update(full, now))).to.equal(true)
      expect(await right(h.port.find(MERCHANT_A, s.id, later(HOUR)))).to.deep.equal(O.some({ ...full, card }))
      const cleared = aCheckoutSessionRecord({ id: s.id, expires_at: isoAt(HOUR), card: null })
      expect(await right(h.port.update(cleared, now))).to.equal(true)
      expect(await right(h.port.find(MERCHANT_A, s.id, now))).to.deep.equal(O.some({ ...cleared, card }))
      expect(await right(h.port.update(aCheckoutSessionRecord(), now))).to.equal(false)
    })

    it('deletes for good, card data with it; a second delete reports false', async () => {
      const s = aCheckoutSessionRecord({ card: aSessionCard() })
      const kept = aCheckoutSessionRecord()
      await right(h.port.create(s))
      await right(h.port.create(kept))
      expect(await right(h.port.delete(MERCHANT_A, s.id, now))).to.equal(true)
      expect(await right(h.port.find(MERCHANT_A, s.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.takeCard(MERCHANT_A, s.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.putCard(s.id, aSessionCard(), isoAt(HOUR), now))).to.deep.equal(O.none)
      expect(await right(h.port.delete(MERCHANT_A, s.id, now))).to.equal(false)
      expect(await right(h.port.find(MERCHANT_A, kept.id, now))).to.deep.equal(O.some(kept))
    })

    it('puts card data by id alone, whatever the account, replacing any before and moving expires_at', async () => {
      const s = aCheckoutSessionRecord({ merchant_account_id: MERCHANT_B })
      await right(h.port.create(s))
      const first = aSessionCard()
      const moved = isoAt(5 * 60_000)
      expect(await right(h.port.putCard(s.id, first, moved, now))).to.deep.equal(O.some({ ...s, card: first, expires_at: moved }))
      const second = aSessionCard({ payment_method: sessionPaymentMethod(fakeMac(), '4242424242424242') })
      const again = isoAt(6 * 60_000)
      expect(await right(h.port.putCard(s.id, second, again, later(60_000)))).to.deep.equal(
        O.some({ ...s, card: second, expires_at: again }),
      )
      expect(await right(h.port.find(MERCHANT_B, s.id, later(6 * 60_000 - 1)))).to.deep.equal(
        O.some({ ...s, card: second, expires_at: again }),
      )
      expect(await right(h.port.find(MERCHANT_B, s.id, later(6 * 60_000)))).to.deep.equal(O.none)
      expect(await right(h.port.putCard(nextUuid(), first, moved, now))).to.deep.equal(O.none)
    })

    it('finds a live session by id alone, whatever its account; an unknown, expired or deleted one is none', async () => {
      const theirs = aFullCheckoutSessionRecord({ merchant_account_id: MERCHANT_B, card: aSessionCard() })
      const gone = aCheckoutSessionRecord()
      for (const s of [theirs, gone]) await right(h.port.create(s))
      expect(await right(h.port.findById(theirs.id, now))).to.deep.equal(O.some(theirs))
      expect(await right(h.port.findById(theirs.id, later(HOUR - 1)))).to.deep.equal(O.some(theirs))
      expect(await right(h.port.findById(theirs.id, later(HOUR)))).to.deep.equal(O.none)
      expect(await right(h.port.findById(nextUuid(), now))).to.deep.equal(O.none)
      await right(h.port.delete(MERCHANT_A, gone.id, now))
      expect(await right(h.port.findById(gone.id, now))).to.deep.equal(O.none)
    })

    it('keeps gift cards with the card data, with a card or alone: put, found, kept by update, replaced by the next put', async () => {
      const s = aFullCheckoutSessionRecord({ merchant_account_id: MERCHANT_B })
      await right(h.port.create(s))
      const split = aSessionCard({ gift_cards: [aSessionGiftCard(), aSessionGiftCard({ amount: 1 })] })
      const moved = isoAt(5 * 60_000)
      expect(await right(h.port.putCard(s.id, split, moved, now))).to.deep.equal(O.some({ ...s, card: split, expires_at: moved }))
      expect(await right(h.port.findById(s.id, now))).to.deep.equal(O.some({ ...s, card: split, expires_at: moved }))
      expect(await right(h.port.update({ ...s, amount: 1, expires_at: moved }, now))).to.equal(true)
      expect(await right(h.port.find(MERCHANT_B, s.id, now))).to.deep.equal(O.some({ ...s, amount: 1, card: split, expires_at: moved }))
      const alone = aSessionGiftCardsOnly([aSessionGiftCard({ amount: 3500 })])
      await right(h.port.putCard(s.id, alone, moved, now))
      expect(await right(h.port.find(MERCHANT_B, s.id, now))).to.deep.equal(O.some({ ...s, amount: 1, card: alone, expires_at: moved }))
      // A card sent after gift cards alone replaces them: card data is replaced whole.
      const card = aSessionCard()
      await right(h.port.putCard(s.id, card, moved, now))
      expect(await right(h.port.find(MERCHANT_B, s.id, now))).to.deep.equal(O.some({ ...s, amount: 1, card, expires_at: moved }))
    })

    it('hands gift cards out once, with the card or alone, and to one of 8 concurrent takers', async () => {
      const split = aCheckoutSessionRecord({ card: aSessionCard({ gift_cards: [aSessionGiftCard()] }) })
      const alone = aCheckoutSessionRecord({ card: aSessionGiftCardsOnly() })
      for (const s of [split, alone]) await right(h.port.create(s))
      expect(await right(h.port.takeCard(MERCHANT_A, split.id, now))).to.deep.equal(O.some(split))
      expect(await right(h.port.takeCard(MERCHANT_A, split.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.find(MERCHANT_A, split.id, now))).to.deep.equal(O.some({ ...split, card: null }))
      const taken = await Promise.all(Array.from({ length: 8 }, () => right(h.port.takeCard(MERCHANT_A, alone.id, now))))
      expect(taken.filter(O.isSome)).to.deep.equal([O.some(alone)])
      expect(await right(h.port.find(MERCHANT_A, alone.id, now))).to.deep.equal(O.some({ ...alone, card: null }))
    })

    it('hands the card out once: the session as it was, then none, and the session stays without it', async () => {
      const card = aSessionCard()
      const s = aFullCheckoutSessionRecord({ card })
      await right(h.port.create(s))
      expect(await right(h.port.takeCard(MERCHANT_A, s.id, now))).to.deep.equal(O.some(s))
      expect(await right(h.port.takeCard(MERCHANT_A, s.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.find(MERCHANT_A, s.id, now))).to.deep.equal(O.some({ ...s, card: null }))
    })

    it('has no card to take on a session that never got one', async () => {
      const s = aCheckoutSessionRecord()
      await right(h.port.create(s))
      expect(await right(h.port.takeCard(MERCHANT_A, s.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.find(MERCHANT_A, s.id, now))).to.deep.equal(O.some(s))
    })

    it('hands out a card put after the last one was taken', async () => {
      const s = aCheckoutSessionRecord({ card: aSessionCard() })
      await right(h.port.create(s))
      await right(h.port.takeCard(MERCHANT_A, s.id, now))
      const next = aSessionCard({ sealed: s.card?.sealed ?? '' })
      await right(h.port.putCard(s.id, next, isoAt(HOUR), now))
      expect(await right(h.port.takeCard(MERCHANT_A, s.id, now))).to.deep.equal(O.some({ ...s, card: next }))
    })

    it('hands the card of one session to exactly one of 8 concurrent takers', async () => {
      const s = aCheckoutSessionRecord({ card: aSessionCard() })
      await right(h.port.create(s))
      const taken = await Promise.all(Array.from({ length: 8 }, () => right(h.port.takeCard(MERCHANT_A, s.id, now))))
      expect(taken.filter(O.isSome)).to.deep.equal([O.some(s)])
      expect(await right(h.port.find(MERCHANT_A, s.id, now))).to.deep.equal(O.some({ ...s, card: null }))
    })

    it('sweeps the sessions expired by now, card data and all, and only those; sweeping again deletes nothing', async () => {
      const gone = aCheckoutSessionRecord({ expires_at: isoAt(60_000), card: aSessionCard() })
      const edge = aCheckoutSessionRecord({ expires_at: isoAt(120_000) })
      const live = aCheckoutSessionRecord({ expires_at: isoAt(120_001), merchant_account_id: MERCHANT_B })
      for (const s of [gone, edge, live]) await right(h.port.create(s))
      expect(await right(h.port.sweep(later(120_000)))).to.equal(2)
      expect(await right(h.port.sweep(later(120_000)))).to.equal(0)
      for (const s of [gone, edge]) expect(await right(h.port.find(s.merchant_account_id, s.id, now))).to.deep.equal(O.none)
      expect(await right(h.port.find(MERCHANT_B, live.id, now))).to.deep.equal(O.some(live))
    })
  })
