import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { giftCardSortKey } from '../gift-cards/gift-card'
import { GiftCardVault, VaultedGiftCard } from '../gift-cards/gift-card.ports'
import { Seek } from '../pagination/page'
import { duplicate } from '../shared/errors'
import { aBuyer, aVaultedCard, isoAt, MERCHANT_A, MERCHANT_B } from './fixtures'
import { at, Harness, left, right, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }

export const giftCardVaultContract = (name: string, setup: () => Promise<Harness<GiftCardVault>>) =>
  describe(`GiftCardVault: ${name}`, () => {
    let h: Harness<GiftCardVault>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    describe('one account', () => {
      keysetBehaviour({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aVaultedCard({ card: { id, created_at: createdAt, updated_at: createdAt } }).card,
        keyOf: giftCardSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (cards) => {
          // Another account's cards at the same instants must not show up in the reads.
          for (const c of cards)
            await right(h.port.insert(aVaultedCard({ card: { merchant_account_id: MERCHANT_B, created_at: c.created_at } })))
          for (const c of cards) await right(h.port.insert(aVaultedCard({ card: c })))
        },
        read: (seek) => right(h.port.list(MERCHANT_A, {}, seek)),
      })
    })

    describe("one buyer's cards", () => {
      const buyer = aBuyer()
      keysetBehaviour({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aVaultedCard({ card: { id, created_at: createdAt, updated_at: createdAt, buyer } }).card,
        keyOf: giftCardSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (cards) => {
          // The account's other cards (no buyer, another buyer) at the same instants must not show up.
          for (const c of cards) {
            await right(h.port.insert(aVaultedCard({ card: { created_at: c.created_at } })))
            await right(h.port.insert(aVaultedCard({ card: { created_at: c.created_at, buyer: aBuyer() } })))
          }
          for (const c of cards) await right(h.port.insert(aVaultedCard({ card: c })))
        },
        read: (seek) => right(h.port.list(MERCHANT_A, { buyer_id: buyer.id }, seek)),
      })
    })

    it('lists the cards as stored, buyer included, and an empty account as nothing', async () => {
      const card = aVaultedCard({ card: { buyer: aBuyer(), created_at: isoAt(0) } })
      const older = aVaultedCard({ sealed_pin: null, card: { expiration_date: null, created_at: isoAt(-1000) } })
      await right(h.port.insert(card))
      await right(h.port.insert(older))
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([card.card, older.card])
      expect(await right(h.port.list(MERCHANT_B, {}, all))).to.deep.equal([])
      expect(await right(h.port.list(MERCHANT_A, { buyer_id: aBuyer().id }, all))).to.deep.equal([])
    })

    it('deletes a card with its sealed number and PIN: it is found no more, by id, fingerprint or list', async () => {
      const card = aVaultedCard()
      const kept = aVaultedCard()
      await right(h.port.insert(card))
      await right(h.port.insert(kept))
      expect(await right(h.port.delete(MERCHANT_A, card.card.id))).to.equal(true)
      expect(await right(h.port.findById(MERCHANT_A, card.card.id))).to.deep.equal(O.none)
      expect(await right(h.port.findByFingerprint(MERCHANT_A, card.fingerprint))).to.deep.equal(O.none)
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([kept.card])
      expect(await right(h.port.findById(MERCHANT_A, kept.card.id))).to.deep.equal(O.some(kept))
    })

    it('deletes once: a second delete, an unknown id and a card of another account delete nothing', async () => {
      const card = aVaultedCard()
      const theirs = aVaultedCard({ card: { merchant_account_id: MERCHANT_B } })
      await right(h.port.insert(card))
      await right(h.port.insert(theirs))
      expect(await right(h.port.delete(MERCHANT_A, card.card.id))).to.equal(true)
      expect(await right(h.port.delete(MERCHANT_A, card.card.id))).to.equal(false)
      expect(await right(h.port.delete(MERCHANT_A, '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'))).to.equal(false)
      expect(await right(h.port.delete(MERCHANT_A, theirs.card.id))).to.equal(false)
      expect(await right(h.port.findById(MERCHANT_B, theirs.card.id))).to.deep.equal(O.some(theirs))
    })

    it('stores the same number again after its card was deleted', async () => {
      const card = aVaultedCard()
      await right(h.port.insert(card))
      await right(h.port.delete(MERCHANT_A, card.card.id))
      const again = aVaultedCard({ fingerprint: card.fingerprint })
      await right(h.port.insert(again))
      expect(await right(h.port.findByFingerprint(MERCHANT_A, card.fingerprint))).to.deep.equal(O.some(again))
    })

    it("deletes a buyer's cards in its account only, and counts them", async () => {
      const buyer = aBuyer()
      const theirs = aVaultedCard({ card: { buyer } })
      const alsoTheirs = aVaultedCard({ card: { buyer } })
      const nobodys = aVaultedCard()
      const others = aVaultedCard({ card: { buyer: aBuyer() } })
      const otherAccount = aVaultedCard({ card: { merchant_account_id: MERCHANT_B, buyer } })
      for (const c of [theirs, alsoTheirs, nobodys, others, otherAccount]) await right(h.port.insert(c))
      expect(await right(h.port.deleteByBuyer(MERCHANT_A, buyer.id))).to.equal(2)
      expect(await right(h.port.findById(MERCHANT_A, theirs.card.id))).to.deep.equal(O.none)
      expect(await right(h.port.findByFingerprint(MERCHANT_A, alsoTheirs.fingerprint))).to.deep.equal(O.none)
      expect(await right(h.port.list(MERCHANT_A, { buyer_id: buyer.id }, all))).to.deep.equal([])
      expect(await right(h.port.findById(MERCHANT_A, nobodys.card.id))).to.deep.equal(O.some(nobodys))
      expect(await right(h.port.findById(MERCHANT_A, others.card.id))).to.deep.equal(O.some(others))
      expect(await right(h.port.findById(MERCHANT_B, otherAccount.card.id))).to.deep.equal(O.some(otherAccount))
      expect(await right(h.port.deleteByBuyer(MERCHANT_A, buyer.id))).to.equal(0)
    })

    it("reads a buyer's cards with their sealed number and PIN, newest first, in its account only, at most `limit`", async () => {
      const buyer = aBuyer()
      const [older, newer, newest] = [0, 1, 2].map((i) => aVaultedCard({ card: { buyer, created_at: isoAt(i * 1000) } })) as [
        VaultedGiftCard,
        VaultedGiftCard,
        VaultedGiftCard,
      ]
      const others = [
        aVaultedCard(),
        aVaultedCard({ card: { buyer: aBuyer() } }),
        aVaultedCard({ card: { merchant_account_id: MERCHANT_B, buyer } }),
      ]
      for (const c of [newer, ...others, older, newest]) await right(h.port.insert(c))
      expect(await right(h.port.forBuyer(MERCHANT_A, buyer.id, 10))).to.deep.equal([newest, newer, older])
      expect(await right(h.port.forBuyer(MERCHANT_A, buyer.id, 2))).to.deep.equal([newest, newer])
      expect(await right(h.port.forBuyer(MERCHANT_B, buyer.id, 10))).to.deep.equal([others[2]])
      expect(await right(h.port.forBuyer(MERCHANT_A, aBuyer().id, 10))).to.deep.equal([])
    })

    it("records a card's uses: each adds one to usage_count and sets last_used_at, in its account only", async () => {
      const card = aVaultedCard({ card: { buyer: aBuyer() } })
      await right(h.port.insert(card))
      expect(await right(h.port.recordUse(MERCHANT_A, card.card.id, isoAt(1000)))).to.equal(true)
      expect(await right(h.port.recordUse(MERCHANT_A, card.card.id, isoAt(2000)))).to.equal(true)
      expect(await right(h.port.recordUse(MERCHANT_B, card.card.id, isoAt(3000)))).to.equal(false)
      expect(await right(h.port.recordUse(MERCHANT_A, aVaultedCard().card.id, isoAt(3000)))).to.equal(false)
      const used = { ...card, card: { ...card.card, usage_count: card.card.usage_count + 2, last_used_at: isoAt(2000) } }
      expect(await right(h.port.findById(MERCHANT_A, card.card.id))).to.deep.equal(O.some(used))
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([used.card])
      expect(await right(h.port.forBuyer(MERCHANT_A, card.card.buyer?.id ?? '', 10))).to.deep.equal([used])
    })

    it('counts 20 concurrent uses of one card, none lost', async () => {
      const card = aVaultedCard()
      await right(h.port.insert(card))
      await Promise.all(Array.from({ length: 20 }, (_, i) => right(h.port.recordUse(MERCHANT_A, card.card.id, isoAt(i)))))
      const found = O.toNullable(await right(h.port.findById(MERCHANT_A, card.card.id)))
      expect(found?.card.usage_count).to.equal(card.card.usage_count + 20)
    })

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
