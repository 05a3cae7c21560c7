import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { PaymentServiceRepository } from '../payments/payment-service.ports'
import { isoAt, MERCHANT_A, MERCHANT_B, uuidFor } from './fixtures'
import { Harness, right, teardownHarness } from './harness'
import { aPaymentServiceRecord } from './payment-fixtures'

export const paymentServiceRepositoryContract = (name: string, setup: () => Promise<Harness<PaymentServiceRepository>>) =>
  describe(`PaymentServiceRepository: ${name}`, () => {
    let h: Harness<PaymentServiceRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('lists nothing and finds nothing for an account without services', async () => {
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal([])
      expect(await right(h.port.findById(MERCHANT_A, uuidFor(1)))).to.deep.equal(O.none)
      expect(await right(h.port.listAll())).to.deep.equal([])
    })

    it('keeps every field of a service as it was given', async () => {
      const service = aPaymentServiceRecord({
        display_name: 'Backup acquirer',
        position: 7,
        active: false,
        accepted_currencies: ['USD', 'EUR'],
        accepted_countries: ['US'],
        fields: [
          { key: 'mode', value: 'down' },
          { key: 'merchant_id', value: '' },
        ],
        created_at: isoAt(1000),
        updated_at: isoAt(2000),
      })
      await right(h.port.upsert(service))
      expect(await right(h.port.findById(MERCHANT_A, service.id))).to.deep.equal(O.some(service))
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal([service])
    })

    it('lists active and inactive services by position, then oldest first, then by id', async () => {
      const services = [
        aPaymentServiceRecord({ id: uuidFor(5), position: 0, created_at: isoAt(0), active: false }),
        aPaymentServiceRecord({ id: uuidFor(9), position: 0, created_at: isoAt(1000) }),
        aPaymentServiceRecord({ id: uuidFor(2), position: 1, created_at: isoAt(0) }),
        aPaymentServiceRecord({ id: uuidFor(3), position: 1, created_at: isoAt(0) }),
        aPaymentServiceRecord({ id: uuidFor(1), position: 10, created_at: isoAt(-5000) }),
      ]
      for (const s of [...services].reverse()) await right(h.port.upsert(s))
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal(services)
    })

    it("keeps another account's services out of sight", async () => {
      const theirs = aPaymentServiceRecord({ merchant_account_id: MERCHANT_B })
      const ours = aPaymentServiceRecord()
      await right(h.port.upsert(theirs))
      await right(h.port.upsert(ours))
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal([ours])
      expect(await right(h.port.findById(MERCHANT_A, theirs.id))).to.deep.equal(O.none)
      expect(await right(h.port.findById(MERCHANT_B, theirs.id))).to.deep.equal(O.some(theirs))
    })

    it('replaces the service with the same id on upsert, in its new place', async () => {
      const first = aPaymentServiceRecord({ position: 0 })
      const second = aPaymentServiceRecord({ position: 1 })
      await right(h.port.upsert(first))
      await right(h.port.upsert(second))
      const moved = { ...first, position: 2, fields: [{ key: 'mode', value: 'down' }], updated_at: isoAt(60_000) }
      await right(h.port.upsert(moved))
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal([second, moved])
      expect(await right(h.port.findById(MERCHANT_A, first.id))).to.deep.equal(O.some(moved))
    })

    it("lists every account's services, by account, then in routing order", async () => {
      const a2 = aPaymentServiceRecord({ position: 3 })
      const a1 = aPaymentServiceRecord({ position: 1, active: false })
      const b1 = aPaymentServiceRecord({ merchant_account_id: MERCHANT_B })
      for (const s of [b1, a2, a1]) await right(h.port.upsert(s))
      expect(await right(h.port.listAll())).to.deep.equal([a1, a2, b1])
    })
  })
