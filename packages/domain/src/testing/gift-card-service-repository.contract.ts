import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { GiftCardServiceRepository } from '../gift-cards/gift-card.ports'
import { aGiftCardService, aGiftCardServiceRecord, MERCHANT_A, MERCHANT_B } from './fixtures'
import { Harness, right, teardownHarness } from './harness'

export const giftCardServiceRepositoryContract = (name: string, setup: () => Promise<Harness<GiftCardServiceRepository>>) =>
  describe(`GiftCardServiceRepository: ${name}`, () => {
    let h: Harness<GiftCardServiceRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('finds no primary for an account without services', async () => {
      await right(h.port.upsert(aGiftCardServiceRecord({ merchant_account_id: MERCHANT_B })))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.none)
    })

    it('finds no primary for an account whose services are all secondary', async () => {
      await right(h.port.upsert(aGiftCardServiceRecord({ primary: false })))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.none)
    })

    it("finds the account's primary service", async () => {
      const primary = aGiftCardServiceRecord()
      await right(h.port.upsert(aGiftCardServiceRecord({ primary: false })))
      await right(h.port.upsert(primary))
      await right(h.port.upsert(aGiftCardServiceRecord({ primary: false })))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.some(primary))
    })

    it("demotes the account's other primary when a new primary is upserted", async () => {
      const first = aGiftCardServiceRecord()
      const second = aGiftCardServiceRecord({
        service: aGiftCardService({ gift_card_service_definition_id: 'valuelink-gift-card', display_name: 'ValueLink' }),
      })
      await right(h.port.upsert(first))
      await right(h.port.upsert(second))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.some(second))
      // Were `first` still primary, it would surface once `second` steps down.
      await right(h.port.upsert({ ...second, primary: false }))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.none)
    })

    it("leaves another account's primary alone", async () => {
      const theirs = aGiftCardServiceRecord({ merchant_account_id: MERCHANT_B })
      const ours = aGiftCardServiceRecord()
      await right(h.port.upsert(theirs))
      await right(h.port.upsert(ours))
      expect(await right(h.port.findPrimary(MERCHANT_B))).to.deep.equal(O.some(theirs))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.some(ours))
    })

    it('replaces the service with the same id on upsert', async () => {
      const record = aGiftCardServiceRecord()
      await right(h.port.upsert(record))
      const renamed = { ...record, service: { ...record.service, display_name: 'Store gift cards' } }
      await right(h.port.upsert(renamed))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.some(renamed))
    })

    it('promotes a secondary service when it is upserted as primary', async () => {
      const first = aGiftCardServiceRecord()
      const second = aGiftCardServiceRecord({ primary: false })
      await right(h.port.upsert(first))
      await right(h.port.upsert(second))
      await right(h.port.upsert({ ...second, primary: true }))
      expect(await right(h.port.findPrimary(MERCHANT_A))).to.deep.equal(O.some({ ...second, primary: true }))
    })
  })
