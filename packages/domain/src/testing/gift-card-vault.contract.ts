import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { GiftCardVault } from '../gift-cards/gift-card.ports'
import { duplicate } from '../shared/errors'
import { aBuyer, aVaultedCard, MERCHANT_A, MERCHANT_B } from './fixtures'
import { at, Harness, left, right, teardownHarness } from './harness'

export const giftCardVaultContract = (name: string, setup: () => Promise<Harness<GiftCardVault>>) =>
  describe(`GiftCardVault: ${name}`, () => {
    let h: Harness<GiftCardVault>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('finds nothing for an unknown fingerprint', async () => {
      await right(h.port.insert(aVaultedCard()))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, 'bm8tc3VjaC1maW5nZXJwcmludC4uLi4uLi4uLi4uLi4'))).to.deep.equal(O.none)
    })

    it("finds an inserted card by id in its account, and never in another's", async () => {
      const card = aVaultedCard()
      await right(h.port.insert(card))
      expect(await right(h.port.findById(MERCHANT_A, card.card.id))).to.deep.equal(O.some(card))
      expect(await right(h.port.findById(MERCHANT_B, card.card.id))).to.deep.equal(O.none)
      expect(await right(h.port.findById(MERCHANT_A, '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'))).to.deep.equal(O.none)
    })

    it('finds an inserted card by fingerprint', async () => {
      const card = aVaultedCard({ card: { buyer: aBuyer() } })
      await right(h.port.insert(card))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, card.fingerprint))).to.deep.equal(O.some(card))
    })

    it('stores a card without a PIN', async () => {
      const card = aVaultedCard({ sealed_pin: null, card: { expiration_date: null } })
      await right(h.port.insert(card))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, card.fingerprint))).to.deep.equal(O.some(card))
    })

    it("never finds another account's card", async () => {
      const card = aVaultedCard({ card: { merchant_account_id: MERCHANT_B } })
      await right(h.port.insert(card))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, card.fingerprint))).to.deep.equal(O.none)
      expect(await right(h.port.findByFingerprint(MERCHANT_B, card.fingerprint))).to.deep.equal(O.some(card))
    })

    it('rejects a second card with the same fingerprint in the account, naming the stored card', async () => {
      const first = aVaultedCard()
      await right(h.port.insert(first))
      const second = aVaultedCard({ fingerprint: first.fingerprint })
      expect(await left(h.port.insert(second))).to.deep.equal(duplicate('GiftCard', first.card.id))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, first.fingerprint))).to.deep.equal(O.some(first))
    })

    it('allows the same fingerprint in another account', async () => {
      const ours = aVaultedCard()
      const theirs = aVaultedCard({ fingerprint: ours.fingerprint, card: { merchant_account_id: MERCHANT_B } })
      await right(h.port.insert(ours))
      await right(h.port.insert(theirs))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, ours.fingerprint))).to.deep.equal(O.some(ours))
      expect(await right(h.port.findByFingerprint(MERCHANT_B, ours.fingerprint))).to.deep.equal(O.some(theirs))
    })

    it('admits exactly one of 20 concurrent inserts of one fingerprint', async () => {
      const fingerprint = aVaultedCard().fingerprint
      const cards = Array.from({ length: 20 }, () => aVaultedCard({ fingerprint }))
      const results = await Promise.all(cards.map((c) => h.port.insert(c)()))
      const winners = cards.filter((_, i) => at(results, i)._tag === 'Right')
      expect(winners).to.have.length(1)
      const winner = at(winners, 0)
      expect(results.filter((r) => r._tag === 'Left')).to.deep.equal(
        Array.from({ length: 19 }, () => ({ _tag: 'Left', left: duplicate('GiftCard', winner.card.id) })),
      )
      expect(await right(h.port.findByFingerprint(MERCHANT_A, fingerprint))).to.deep.equal(O.some(winner))
    })
  })
