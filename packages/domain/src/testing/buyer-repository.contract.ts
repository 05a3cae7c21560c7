import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { buyerSortKey } from '../buyers/buyer'
import { BuyerRepository } from '../buyers/buyers.ports'
import { Seek } from '../pagination/page'
import { duplicate } from '../shared/errors'
import { aBuyer, isoAt, MERCHANT_A, MERCHANT_B } from './fixtures'
import { at, Harness, left, right, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }

export const buyerRepositoryContract = (name: string, setup: () => Promise<Harness<BuyerRepository>>) =>
  describe(`BuyerRepository: ${name}`, () => {
    let h: Harness<BuyerRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    describe('one account', () => {
      keysetBehaviour({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aBuyer({ id, created_at: createdAt, updated_at: createdAt }),
        keyOf: buyerSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (buyers) => {
          // Another account's buyers at the same instants must not show up in the reads.
          for (const b of buyers) await right(h.port.create(aBuyer({ merchant_account_id: MERCHANT_B, created_at: b.created_at })))
          for (const b of buyers) await right(h.port.create(b))
        },
        read: (seek) => right(h.port.list(MERCHANT_A, {}, seek)),
      })
    })

    it('finds a created buyer by id and by external identifier', async () => {
      const buyer = aBuyer({ external_identifier: 'crm-000417' })
      await right(h.port.create(buyer))
      expect(await right(h.port.findById(MERCHANT_A, buyer.id))).to.deep.equal(O.some(buyer))
      expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-000417'))).to.deep.equal(O.some(buyer))
    })

    it('stores a buyer with only the required fields', async () => {
      const buyer = aBuyer({ display_name: null, external_identifier: null, billing_details: null, account_number: null })
      await right(h.port.create(buyer))
      expect(await right(h.port.findById(MERCHANT_A, buyer.id))).to.deep.equal(O.some(buyer))
    })

    it('finds nothing for an unknown id or external identifier', async () => {
      await right(h.port.create(aBuyer({ external_identifier: 'crm-000417' })))
      expect(await right(h.port.findById(MERCHANT_A, '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'))).to.deep.equal(O.none)
      expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-999999'))).to.deep.equal(O.none)
    })

    it("never finds or lists another account's buyer", async () => {
      const theirs = aBuyer({ merchant_account_id: MERCHANT_B, external_identifier: 'crm-000417' })
      await right(h.port.create(theirs))
      expect(await right(h.port.findById(MERCHANT_A, theirs.id))).to.deep.equal(O.none)
      expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-000417'))).to.deep.equal(O.none)
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([])
      expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'crm-000417' }, all))).to.deep.equal([])
      expect(await right(h.port.list(MERCHANT_B, {}, all))).to.deep.equal([theirs])
    })

    it("rejects a second buyer with the account's external identifier, naming the existing one", async () => {
      const first = aBuyer({ external_identifier: 'crm-000417' })
      await right(h.port.create(first))
      const second = aBuyer({ external_identifier: 'crm-000417', display_name: 'Someone else' })
      expect(await left(h.port.create(second))).to.deep.equal(duplicate('Buyer', first.id))
      expect(await right(h.port.findById(MERCHANT_A, second.id))).to.deep.equal(O.none)
      expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-000417'))).to.deep.equal(O.some(first))
    })

    it('allows the same external identifier in another account', async () => {
      const ours = aBuyer({ external_identifier: 'crm-000417' })
      const theirs = aBuyer({ merchant_account_id: MERCHANT_B, external_identifier: 'crm-000417' })
      await right(h.port.create(ours))
      await right(h.port.create(theirs))
      expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-000417'))).to.deep.equal(O.some(ours))
      expect(await right(h.port.findByExternalIdentifier(MERCHANT_B, 'crm-000417'))).to.deep.equal(O.some(theirs))
    })

    it('allows any number of buyers without an external identifier', async () => {
      const buyers = [0, 1, 2].map((i) => aBuyer({ external_identifier: null, created_at: isoAt(i), updated_at: isoAt(i) }))
      for (const b of buyers) await right(h.port.create(b))
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([...buyers].reverse())
    })

    it('admits exactly one of concurrent creations with the same external identifier', async () => {
      const attempts = Array.from({ length: 20 }, () => aBuyer({ external_identifier: 'crm-race' }))
      const results = await Promise.all(attempts.map((b) => h.port.create(b)()))
      const won = attempts.filter((_, i) => at(results, i)._tag === 'Right')
      expect(won).to.have.length(1)
      const lost = results.filter((r) => r._tag === 'Left')
      expect(lost).to.deep.equal(Array.from({ length: 19 }, () => ({ _tag: 'Left', left: duplicate('Buyer', at(won, 0).id) })))
    })

    it('keeps the external identifier held when the same buyer is created twice at once (two instances seeding)', async () => {
      const buyer = aBuyer({ external_identifier: 'crm-seeded' })
      const results = await Promise.all([h.port.create(buyer)(), h.port.create(buyer)(), h.port.create(buyer)()])
      expect(results.filter((r) => r._tag === 'Right')).to.have.length(1)
      expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-seeded'))).to.deep.equal(O.some(buyer))
      expect(await h.port.create(aBuyer({ external_identifier: 'crm-seeded' }))()).to.deep.equal({
        _tag: 'Left',
        left: duplicate('Buyer', buyer.id),
      })
    })

    it('lists only the buyers with the external identifier filtered on', async () => {
      const wanted = aBuyer({ external_identifier: 'crm-000417', created_at: isoAt(1000) })
      await right(h.port.create(aBuyer({ external_identifier: 'crm-000418', created_at: isoAt(2000) })))
      await right(h.port.create(wanted))
      await right(h.port.create(aBuyer({ external_identifier: null, created_at: isoAt(500) })))
      expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'crm-000417' }, all))).to.deep.equal([wanted])
      expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'crm-999999' }, all))).to.deep.equal([])
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.have.length(3)
    })

    describe('update', () => {
      it('replaces the stored buyer and reports it', async () => {
        const buyer = aBuyer({ external_identifier: 'crm-000417' })
        await right(h.port.create(buyer))
        const next = { ...buyer, display_name: 'Ada King', billing_details: null, updated_at: isoAt(90_000) }
        expect(await right(h.port.update(next))).to.equal(true)
        expect(await right(h.port.findById(MERCHANT_A, buyer.id))).to.deep.equal(O.some(next))
        expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-000417'))).to.deep.equal(O.some(next))
      })

      it("reports false for an unknown buyer or another account's, changing nothing", async () => {
        const theirs = aBuyer({ merchant_account_id: MERCHANT_B })
        await right(h.port.create(theirs))
        expect(await right(h.port.update(aBuyer()))).to.equal(false)
        expect(await right(h.port.update({ ...theirs, merchant_account_id: MERCHANT_A, display_name: 'Mine' }))).to.equal(false)
        expect(await right(h.port.findById(MERCHANT_B, theirs.id))).to.deep.equal(O.some(theirs))
        expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([])
      })

      it('moves the external identifier: the new one is held, the old one is free', async () => {
        const buyer = aBuyer({ external_identifier: 'crm-old' })
        await right(h.port.create(buyer))
        const moved = { ...buyer, external_identifier: 'crm-new' }
        expect(await right(h.port.update(moved))).to.equal(true)
        expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-new'))).to.deep.equal(O.some(moved))
        expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-old'))).to.deep.equal(O.none)
        expect(await left(h.port.create(aBuyer({ external_identifier: 'crm-new' })))).to.deep.equal(duplicate('Buyer', buyer.id))
        await right(h.port.create(aBuyer({ external_identifier: 'crm-old' })))
      })

      it('clears the external identifier, freeing it', async () => {
        const buyer = aBuyer({ external_identifier: 'crm-000417' })
        await right(h.port.create(buyer))
        expect(await right(h.port.update({ ...buyer, external_identifier: null }))).to.equal(true)
        const other = aBuyer({ external_identifier: 'crm-000417' })
        await right(h.port.create(other))
        expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-000417'))).to.deep.equal(O.some(other))
      })

      it("rejects another buyer's external identifier, naming it, and changes nothing", async () => {
        const holder = aBuyer({ external_identifier: 'crm-taken' })
        const buyer = aBuyer({ external_identifier: 'crm-mine' })
        await right(h.port.create(holder))
        await right(h.port.create(buyer))
        expect(await left(h.port.update({ ...buyer, external_identifier: 'crm-taken', display_name: 'X' }))).to.deep.equal(
          duplicate('Buyer', holder.id),
        )
        expect(await right(h.port.findById(MERCHANT_A, buyer.id))).to.deep.equal(O.some(buyer))
        expect(await left(h.port.create(aBuyer({ external_identifier: 'crm-mine' })))).to.deep.equal(duplicate('Buyer', buyer.id))
      })

      it('takes an external identifier another account uses', async () => {
        await right(h.port.create(aBuyer({ merchant_account_id: MERCHANT_B, external_identifier: 'crm-shared' })))
        const buyer = aBuyer()
        await right(h.port.create(buyer))
        expect(await right(h.port.update({ ...buyer, external_identifier: 'crm-shared' }))).to.equal(true)
      })

      it('lets exactly one of concurrent updates to one external identifier have it', async () => {
        const buyers = Array.from({ length: 10 }, () => aBuyer())
        for (const b of buyers) await right(h.port.create(b))
        const results = await Promise.all(buyers.map((b) => h.port.update({ ...b, external_identifier: 'crm-race' })()))
        const won = buyers.filter((_, i) => at(results, i)._tag === 'Right')
        expect(won).to.have.length(1)
        const holder = at(won, 0).id
        expect(results.filter((r) => r._tag === 'Left')).to.deep.equal(
          Array.from({ length: 9 }, () => ({ _tag: 'Left', left: duplicate('Buyer', holder) })),
        )
        expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'crm-race' }, all))).to.have.length(1)
      })
    })

    describe('delete', () => {
      it('removes the buyer and frees its external identifier', async () => {
        const buyer = aBuyer({ external_identifier: 'crm-000417' })
        await right(h.port.create(buyer))
        expect(await right(h.port.delete(MERCHANT_A, buyer.id))).to.equal(true)
        expect(await right(h.port.findById(MERCHANT_A, buyer.id))).to.deep.equal(O.none)
        expect(await right(h.port.findByExternalIdentifier(MERCHANT_A, 'crm-000417'))).to.deep.equal(O.none)
        expect(await right(h.port.list(MERCHANT_A, {}, all))).to.deep.equal([])
        await right(h.port.create(aBuyer({ external_identifier: 'crm-000417' })))
      })

      it("reports false the second time, and for another account's buyer", async () => {
        const buyer = aBuyer()
        const theirs = aBuyer({ merchant_account_id: MERCHANT_B })
        await right(h.port.create(buyer))
        await right(h.port.create(theirs))
        expect(await right(h.port.delete(MERCHANT_A, buyer.id))).to.equal(true)
        expect(await right(h.port.delete(MERCHANT_A, buyer.id))).to.equal(false)
        expect(await right(h.port.delete(MERCHANT_A, theirs.id))).to.equal(false)
        expect(await right(h.port.findById(MERCHANT_B, theirs.id))).to.deep.equal(O.some(theirs))
      })
    })

    describe('search', () => {
      const named = (display_name: string | null, external_identifier: string | null, i: number) =>
        aBuyer({ display_name, external_identifier, created_at: isoAt(i * 1000), updated_at: isoAt(i * 1000) })

      it('finds buyers whose display name or external identifier contains the text, ignoring case', async () => {
        const ada = named('Ada Lovelace', 'crm-1', 1)
        const grace = named('Grace Hopper', 'LOVE-2', 2)
        const none = named(null, null, 3)
        const other = named('Alan Turing', 'crm-3', 4)
        for (const b of [ada, grace, none, other]) await right(h.port.create(b))
        await right(h.port.create(aBuyer({ merchant_account_id: MERCHANT_B, display_name: 'Love Theirs' })))
        expect(await right(h.port.list(MERCHANT_A, { search: 'love' }, all))).to.deep.equal([grace, ada])
        expect(await right(h.port.list(MERCHANT_A, { search: 'CRM-' }, all))).to.deep.equal([other, ada])
        expect(await right(h.port.list(MERCHANT_A, { search: 'nobody' }, all))).to.deep.equal([])
      })

      it('combines with the external identifier filter and pages', async () => {
        const buyers = [1, 2, 3, 4].map((i) => named(`Ada ${i}`, `crm-${i}`, i))
        for (const b of buyers) await right(h.port.create(b))
        expect(await right(h.port.list(MERCHANT_A, { search: 'ada', external_identifier: 'crm-2' }, all))).to.deep.equal([buyers[1]])
        expect(await right(h.port.list(MERCHANT_A, { search: 'zed', external_identifier: 'crm-2' }, all))).to.deep.equal([])
        const first = await right(h.port.list(MERCHANT_A, { search: 'ADA' }, { direction: 'forward', from: O.none, limit: 2 }))
        expect(first).to.deep.equal([buyers[3], buyers[2]])
        const from = O.some(buyerSortKey(at(first, 1)))
        expect(await right(h.port.list(MERCHANT_A, { search: 'ADA' }, { direction: 'forward', from, limit: 2 }))).to.deep.equal([
          buyers[1],
          buyers[0],
        ])
      })

      it('takes every pattern character literally', async () => {
        const odd = ['a.c', 'a*c', '(x)', '[y]', '^z$', 'p|q', 'b\\d', 'm+n?', '{2}', '#h', 'd-e', 'f/g', '%25', "'q'", '"r"', 'a c']
        const made = odd.map((v, i) => named(`x${v}x`, null, i))
        for (const b of made) await right(h.port.create(b))
        await right(h.port.create(named('abc', 'aXc', 100)))
        for (const [i, v] of odd.entries()) expect(await right(h.port.list(MERCHANT_A, { search: v }, all)), v).to.deep.equal([made[i]])
        expect(await right(h.port.list(MERCHANT_A, { search: '.*' }, all))).to.deep.equal([])
      })

      it('folds case beyond ASCII', async () => {
        const b = named('ÉMILE Zoë', null, 1)
        await right(h.port.create(b))
        expect(await right(h.port.list(MERCHANT_A, { search: 'émile zOË' }, all))).to.deep.equal([b])
      })
    })
  })
