import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { Gr4vy, withToken } from '@gr4vy/sdk'
import { MerchantAccount } from '@gr4vy/sdk/models/components'
import { cardPaymentMethod, onBothStores } from './transactions-support'

/** The SDK's fixture id: 16 random hex characters. */
const accountId = () => randomBytes(8).toString('hex')

/**
 * The original API SDK's own end-to-end cases for merchant accounts (its
 * `tests/backoffice/merchant-accounts.test.ts`, "create → get → list → update (partial)", and the
 * `setupMerchant()` every one of its files starts with: an account of its own, a client scoped
 * to it, a mock card service), ported to Orka on both stores through SDK 1.10.18, which parses
 * every answer with its schemas; where its cases look at an id or a name, these assert the whole account.
 */
onBothStores('merchant accounts through the original SDK', (world) => {
  /** An administrator's client that names no account, as the SDK's tests make it. */
  const admin = () => new Gr4vy({ serverURL: world().h.url, bearerAuth: withToken({ privateKey: world().h.pems.admin }) })

  it('create → get → list → update (partial), the SDK sending both flags with the update', async () => {
    const sdk = admin()
    const id = accountId()
    const created = await sdk.merchantAccounts.create({ id, displayName: 'Original Display' })
    const at = created.createdAt
    const whole: MerchantAccount = {
      type: 'merchant-account',
      id,
      displayName: 'Original Display',
      loonClientKey: null,
      loonSecretKey: null,
      loonAcceptedSchemes: null,
      accountUpdaterRequestEncryptionKey: null,
      accountUpdaterRequestEncryptionKeyId: null,
      accountUpdaterResponseDecryptionKey: null,
      accountUpdaterResponseDecryptionKeyId: null,
      accountUpdaterEnabled: false,
      overCaptureAmount: null,
      overCapturePercentage: null,
      visaNetworkTokensRequestorId: null,
      visaNetworkTokensAppId: null,
      amexNetworkTokensRequestorId: null,
      amexNetworkTokensAppId: null,
      mastercardNetworkTokensRequestorId: null,
      mastercardNetworkTokensAppId: null,
      asyncNetworkTokensEnabled: false,
      createdAt: at,
      updatedAt: at,
    }
    expect(created).to.deep.equal(whole)
    expect(await sdk.merchantAccounts.get(id)).to.deep.equal(whole)
    const page = await sdk.merchantAccounts.list()
    expect(page.result.items.find((a) => a.id === id)).to.deep.equal(whole)
    expect(page.result.limit).to.equal(20)
    const updated = await sdk.merchantAccounts.update({ displayName: 'Renamed Display' }, id)
    expect(updated).to.deep.equal({ ...whole, displayName: 'Renamed Display' })
  })

  it('setupMerchant(): a new account, a client scoped to it by the header, its own mock card service, and a payment', async () => {
    const id = accountId()
    await admin().merchantAccounts.create({ id, displayName: id })
    const scoped = new Gr4vy({
      serverURL: world().h.url,
      merchantAccountId: id,
      bearerAuth: withToken({ privateKey: world().h.pems.admin }),
    })
    const service = await scoped.paymentServices.create({
      acceptedCountries: ['US'],
      acceptedCurrencies: ['USD'],
      displayName: 'Payment service',
      paymentServiceDefinitionId: 'mock-card',
      fields: [{ key: 'merchant_id', value: 'test' }],
    })
    expect(service.merchantAccountId).to.equal(id)
    const paid = await scoped.transactions.create({ amount: 1299, currency: 'USD', paymentMethod: cardPaymentMethod() })
    expect([paid.status, paid.merchantAccountId]).to.deep.equal(['authorization_succeeded', id])
  })
})
