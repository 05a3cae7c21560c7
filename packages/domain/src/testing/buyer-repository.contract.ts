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

    it('lists only the buyers with the external identifier filtered on', async () => {
      const wanted = aBuyer({ external_identifier: 'crm-000417', created_at: isoAt(1000) })
      await right(h.port.create(aBuyer({ external_identifier: 'crm-000418', created_at: isoAt(2000) })))
      await right(h.port.create(wanted))
      await right(h.port.create(aBuyer({ external_identifier: null, created_at: isoAt(500) })))
      expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'crm-000417' }, all))).to.deep.equal([wanted])
      expect(await right(h.port.list(MERCHANT_A, { external_identifier: 'crm-999999' }, all))).to.deep.equal([])
      expect(await right(h.port.list(MERCHANT_A, {}, all))).to.have.length(3)
    })
  })
