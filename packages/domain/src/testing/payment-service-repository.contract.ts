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
      await right(h.port.write(service))
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
      for (const s of [...services].reverse()) await right(h.port.write(s))
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal(services)
    })

    it("keeps another account's services out of sight", async () => {
      const theirs = aPaymentServiceRecord({ merchant_account_id: MERCHANT_B })
      const ours = aPaymentServiceRecord()
      await right(h.port.write(theirs))
      await right(h.port.write(ours))
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal([ours])
      expect(await right(h.port.findById(MERCHANT_A, theirs.id))).to.deep.equal(O.none)
      expect(await right(h.port.findById(MERCHANT_B, theirs.id))).to.deep.equal(O.some(theirs))
    })

    it('replaces the service with its next revision, in its new place', async () => {
      const first = aPaymentServiceRecord({ position: 0 })
      const second = aPaymentServiceRecord({ position: 1 })
      await right(h.port.write(first))
      await right(h.port.write(second))
      const moved = { ...first, position: 2, fields: [{ key: 'mode', value: 'down' }], updated_at: isoAt(60_000), revision: 1 }
      expect(await right(h.port.write(moved))).to.equal(true)
      expect(await right(h.port.listForAccount(MERCHANT_A))).to.deep.equal([second, moved])
      expect(await right(h.port.findById(MERCHANT_A, first.id))).to.deep.equal(O.some(moved))
    })

    it('writes a revision only over the one before it: a taken id, a stale or a skipped revision change nothing', async () => {
      const service = aPaymentServiceRecord({ revision: 0 })
      expect(await right(h.port.write(service))).to.equal(true)
      expect(await right(h.port.write({ ...service, display_name: 'Same id, new service' }))).to.equal(false)
      const next = { ...service, display_name: 'Revision 1', revision: 1 }
      expect(await right(h.port.write(next))).to.equal(true)
      expect(await right(h.port.write({ ...service, display_name: 'Stale', revision: 1 }))).to.equal(false)
      expect(await right(h.port.write({ ...service, display_name: 'Skipped', revision: 3 }))).to.equal(false)
      expect(await right(h.port.write({ ...service, display_name: 'Unknown', id: uuidFor(77), revision: 1 }))).to.equal(false)
      expect(await right(h.port.findById(MERCHANT_A, service.id))).to.deep.equal(O.some(next))
      expect(await right(h.port.findById(MERCHANT_A, uuidFor(77)))).to.deep.equal(O.none)
    })

    it('takes a service stored before revisions were kept as revision 0', async () => {
      const legacy = aPaymentServiceRecord()
      expect(legacy).to.not.have.property('revision')
      await right(h.port.write(legacy))
      const next = { ...legacy, active: false, revision: 1 }
      expect(await right(h.port.write(next))).to.equal(true)
      expect(await right(h.port.findById(MERCHANT_A, legacy.id))).to.deep.equal(O.some(next))
    })

    it('lets exactly one of two writes of the same revision made at once land', async () => {
      const service = aPaymentServiceRecord()
      await right(h.port.write(service))
      const tries = [1, 2].map((n) => ({ ...service, display_name: `Writer ${String(n)}`, revision: 1 }))
      const won = await Promise.all(tries.map((r) => right(h.port.write(r))))
      expect([...won].sort()).to.deep.equal([false, true])
      expect(await right(h.port.findById(MERCHANT_A, service.id))).to.deep.equal(O.some(tries[won.indexOf(true)]))
    })

    it("lists every account's services, by account, then in routing order", async () => {
      const a2 = aPaymentServiceRecord({ position: 3 })
      const a1 = aPaymentServiceRecord({ position: 1, active: false })
      const b1 = aPaymentServiceRecord({ merchant_account_id: MERCHANT_B })
      for (const s of [b1, a2, a1]) await right(h.port.write(s))
      expect(await right(h.port.listAll())).to.deep.equal([a1, a2, b1])
    })
  })
