import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { ShippingDetailsRecord } from '../shipping-details/shipping-details'
import { ShippingDetailsRepository } from '../shipping-details/shipping-details.ports'
import { isoAt, MERCHANT_A, MERCHANT_B } from './fixtures'
import { Harness, right, teardownHarness } from './harness'

const BUYER = '0b6a3c1e-5f2d-4c8b-9a7e-1d2c3b4a5f60'
const OTHER_BUYER = '0b6a3c1e-5f2d-4c8b-9a7e-1d2c3b4a5f61'
let made = 0

/** Shipping details with every field set; `n` orders them (its `created_at` is `n` minutes in). */
export const someShippingDetails = (o: Partial<ShippingDetailsRecord> = {}): ShippingDetailsRecord => {
  const n = ++made
  return {
    type: 'shipping-details',
    id: `5d9e2b7a-1c3f-4e8d-a6b5-${String(n).padStart(12, '0')}`,
    buyer_id: BUYER,
    merchant_account_id: MERCHANT_A,
    first_name: 'Ada',
    last_name: 'Lovelace',
    email_address: 'ada@example.com',
    phone_number: '+442071234567',
    address: { city: 'London', country: 'GB', postal_code: 'W1A 1AA', line1: '12 St James’s Square', line2: null },
    created_at: isoAt(n * 60_000),
    updated_at: isoAt(n * 60_000),
    ...o,
  }
}

export const shippingDetailsRepositoryContract = (name: string, setup: () => Promise<Harness<ShippingDetailsRepository>>) =>
  describe(`ShippingDetailsRepository: ${name}`, () => {
    let h: Harness<ShippingDetailsRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('finds created shipping details by id, as stored, with only the required fields too', async () => {
      const full = someShippingDetails()
      const bare = someShippingDetails({ first_name: null, last_name: null, email_address: null, phone_number: null, address: null })
      await right(h.port.create(full))
      await right(h.port.create(bare))
      expect(await right(h.port.findById(MERCHANT_A, full.id))).to.deep.equal(O.some(full))
      expect(await right(h.port.findById(MERCHANT_A, bare.id))).to.deep.equal(O.some(bare))
      expect(await right(h.port.findById(MERCHANT_A, someShippingDetails().id))).to.deep.equal(O.none)
    })

    it("lists one buyer's, newest first, never another buyer's or another account's", async () => {
      const [older, newer] = [someShippingDetails(), someShippingDetails()]
      const tie = someShippingDetails({ created_at: newer.created_at })
      const theirs = someShippingDetails({ merchant_account_id: MERCHANT_B })
      await right(h.port.create(someShippingDetails({ buyer_id: OTHER_BUYER })))
      await right(h.port.create(theirs))
      for (const r of [older, tie, newer]) await right(h.port.create(r))
      // Ties on `created_at` go by id, descending.
      expect(await right(h.port.listOfBuyer(MERCHANT_A, BUYER))).to.deep.equal([tie, newer, older])
      expect(await right(h.port.listOfBuyer(MERCHANT_B, BUYER))).to.deep.equal([theirs])
      expect(await right(h.port.listOfBuyer(MERCHANT_A, '0b6a3c1e-5f2d-4c8b-9a7e-1d2c3b4a5f6f'))).to.deep.equal([])
    })

    it("never finds, changes or deletes another account's", async () => {
      const theirs = someShippingDetails({ merchant_account_id: MERCHANT_B })
      await right(h.port.create(theirs))
      expect(await right(h.port.findById(MERCHANT_A, theirs.id))).to.deep.equal(O.none)
      expect(await right(h.port.update({ ...theirs, merchant_account_id: MERCHANT_A, first_name: 'Eve' }))).to.equal(false)
      expect(await right(h.port.delete(MERCHANT_A, theirs.id))).to.equal(false)
      await right(h.port.deleteOfBuyer(MERCHANT_A, theirs.buyer_id))
      expect(await right(h.port.findById(MERCHANT_B, theirs.id))).to.deep.equal(O.some(theirs))
    })

    it('replaces a record on update; an unknown one is not created', async () => {
      const r = someShippingDetails()
      await right(h.port.create(r))
      const changed = { ...r, first_name: 'Augusta', address: null, updated_at: isoAt(999 * 60_000) }
      expect(await right(h.port.update(changed))).to.equal(true)
      expect(await right(h.port.findById(MERCHANT_A, r.id))).to.deep.equal(O.some(changed))
      const unknown = someShippingDetails()
      expect(await right(h.port.update(unknown))).to.equal(false)
      expect(await right(h.port.findById(MERCHANT_A, unknown.id))).to.deep.equal(O.none)
    })

    it('deletes one for good, once', async () => {
      const [r, kept] = [someShippingDetails(), someShippingDetails()]
      await right(h.port.create(r))
      await right(h.port.create(kept))
      expect(await right(h.port.delete(MERCHANT_A, r.id))).to.equal(true)
      expect(await right(h.port.delete(MERCHANT_A, r.id))).to.equal(false)
      expect(await right(h.port.findById(MERCHANT_A, r.id))).to.deep.equal(O.none)
      expect(await right(h.port.listOfBuyer(MERCHANT_A, BUYER))).to.deep.equal([kept])
    })

    it("deletes all of one buyer's, and only that buyer's", async () => {
      const mine = [someShippingDetails(), someShippingDetails()]
      const other = someShippingDetails({ buyer_id: OTHER_BUYER })
      for (const r of [...mine, other]) await right(h.port.create(r))
      await right(h.port.deleteOfBuyer(MERCHANT_A, BUYER))
      expect(await right(h.port.listOfBuyer(MERCHANT_A, BUYER))).to.deep.equal([])
      for (const r of mine) expect(await right(h.port.findById(MERCHANT_A, r.id))).to.deep.equal(O.none)
      expect(await right(h.port.listOfBuyer(MERCHANT_A, OTHER_BUYER))).to.deep.equal([other])
    })
  })
