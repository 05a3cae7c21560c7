import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { MerchantAccountRepository } from '../merchant-accounts/merchant-account.ports'
import { aMerchantAccount } from './fixtures'
import { Harness, right, teardownHarness } from './harness'

export const merchantAccountRepositoryContract = (name: string, setup: () => Promise<Harness<MerchantAccountRepository>>) =>
  describe(`MerchantAccountRepository: ${name}`, () => {
    let h: Harness<MerchantAccountRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('finds nothing for an unknown id', async () => {
      expect(await right(h.port.find('no-such-account'))).to.deep.equal(O.none)
    })

    it('finds an account it stored', async () => {
      const account = aMerchantAccount()
      await right(h.port.upsert(account))
      expect(await right(h.port.find(account.id))).to.deep.equal(O.some(account))
    })

    it('replaces the account with the same id on upsert', async () => {
      const account = aMerchantAccount({ display_name: 'Acme Retail Ltd' })
      await right(h.port.upsert(account))
      const locked = { ...account, display_name: 'Acme Retail (suspended)', locked: true }
      await right(h.port.upsert(locked))
      expect(await right(h.port.find(account.id))).to.deep.equal(O.some(locked))
    })

    it('keeps accounts apart', async () => {
      const a = aMerchantAccount({ display_name: 'Acme Retail Ltd' })
      const b = aMerchantAccount({ display_name: 'Globex Stores', locked: true })
      await right(h.port.upsert(a))
      await right(h.port.upsert(b))
      expect(await right(h.port.find(a.id))).to.deep.equal(O.some(a))
      expect(await right(h.port.find(b.id))).to.deep.equal(O.some(b))
    })
  })
