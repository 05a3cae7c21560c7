import { randomInt } from 'node:crypto'
import { expect } from 'chai'
import { RequestOptions } from '../support/harness'
import { withCheckDigit } from '../http/payment-method-support'
import { missingKeys, NOT_IN_SDK, SDK_SUCCESS, SdkSchemaName } from './sdk-2-4-schemas'
import { onBothStores, uniqueId } from './transactions-support'

type Json = Record<string, unknown>
const PIN = '8642'
/** A Visa number the mock card service approves, stored nowhere yet (MongoDB keeps cards across runs). */
const cardNumber = () => withCheckDigit(`4${String(randomInt(10 ** 12)).padStart(12, '0')}${String(10 + randomInt(90))}`)
const card = () => ({ method: 'card', number: cardNumber(), expiration_date: '12/35', security_code: '123' })
/** A gift card number the mock gift card service funds with 10000 USD, fresh for each call. */
const giftCardNumber = () => `73${String(randomInt(10 ** 12)).padStart(12, '0')}${String(1000 + randomInt(8000))}`
const billingDetails = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  email_address: 'ada@example.test',
  address: { city: 'London', country: 'GB', line1: '12 St James Square' },
  tax_id: { value: 'GB123456789', kind: 'gb.vat' },
}
const cartItems = [{ name: 'Joust Duffle Bag', quantity: 1, unit_amount: 5000 }]

/**
 * The vendor's SDK 2.4.10 rejects an answer that lacks a key its schema requires, even a
 * nullable one (its `PaymentMethodSummary` requires `scheme_transaction_id`). The installed SDK
 * is 1.10.18, so this checks Orka's real answers against the keys 2.4.10's models require
 * (`sdk-2-4-schemas.ts`), for every operation Orka serves with a JSON success, nested objects
 * included, on both stores; and that no served operation is left out.
 */
onBothStores("SDK 2.4.10's required keys in Orka's answers", (world) => {
  const answered = new Set<string>()
  const faults: string[] = []
  /** Calls the operation, expects a success, and notes every key `schema` requires that the answer lacks. */
  const answer = async (operationId: string, schema: SdkSchemaName, method: string, path: string, o: RequestOptions = {}) => {
    expect(SDK_SUCCESS[operationId], operationId).to.include(schema)
    const r = await world().h.request<Json>(method, path, o)
    expect(r.status, `${method} ${path}: ${r.text}`).to.be.within(200, 299)
    faults.push(...missingKeys(schema, r.body).map((m) => `${method} ${path}: ${m}`))
    answered.add(`${operationId} ${schema}`)
    return r.body
  }
  const noFaults = () => expect(faults.splice(0)).to.deep.equal([])
  beforeEach(() => faults.splice(0))
  const addBuyer = async () => {
    const b = await answer('add_buyer', 'Buyer', 'POST', '/buyers', {
      body: { display_name: 'Ada Lovelace', external_identifier: uniqueId('buyer'), billing_details: billingDetails },
    })
    return b.id as string
  }

  it('buyers and their shipping details, roles and cards on file (POST /payment-methods and `store: true`), and the lists of a buyer’s cards', async () => {
    const buyerId = await addBuyer()
    await answer('list_buyers', 'Buyers', 'GET', '/buyers')
    await answer('get_buyer', 'Buyer', 'GET', `/buyers/${buyerId}`)
    await answer('update_buyer', 'Buyer', 'PUT', `/buyers/${buyerId}`, { body: { display_name: 'Ada King' } })
    await answer('list_roles', 'CollectionRole', 'GET', '/roles')
    const shipping = `/buyers/${buyerId}/shipping-details`
    const kept = await answer('add_buyer_shipping_details', 'ShippingDetails', 'POST', shipping, {
      body: { first_name: 'Ada', address: billingDetails.address },
    })
    await answer('list_buyer_shipping_details', 'ShippingDetailsList', 'GET', shipping)
    await answer('get_buyer_shipping_details', 'ShippingDetails', 'GET', `${shipping}/${String(kept.id)}`)
    await answer('update_buyer_shipping_details', 'ShippingDetails', 'PUT', `${shipping}/${String(kept.id)}`, {
      body: { last_name: 'King' },
    })

    const { number, expiration_date } = card()
    const stored = await answer('create_payment_method', 'PaymentMethod', 'POST', '/payment-methods', {
      body: { method: 'card', number, expiration_date, buyer_id: buyerId },
    })
    const path = `/payment-methods/${String(stored.id)}`
    const schemeIds = { scheme_transaction_id: 'sti-1', scheme_transaction_id_scheme: 'visa' }
    await answer('update_payment_method', 'PaymentMethod', 'PUT', path, { body: schemeIds })
    await answer('get_payment_method', 'PaymentMethod', 'GET', path)
    const paid = await answer('create_transaction', 'Transaction', 'POST', '/transactions', {
      body: { amount: 1299, currency: 'USD', store: true, buyer_id: buyerId, payment_method: card() },
    })
    expect(paid.status).to.equal('authorization_succeeded')

    const methods = await answer('list_payment_methods', 'PaymentMethods', 'GET', `/payment-methods?buyer_id=${buyerId}`)
    await answer('list_payment_methods', 'PaymentMethods', 'GET', '/payment-methods')
    const summaries = await answer(
      'list_buyer_payment_methods',
      'PaymentMethodSummaries',
      'GET',
      `/buyers/payment-methods?buyer_id=${buyerId}`,
    )
    noFaults()
    // The summary says what the method holds: the scheme transaction id set above, null for the card `store: true` kept.
    const items = (s: Json) => s.items as Json[]
    const schemeIdsOf = (m: Json) => [m.id, m.scheme_transaction_id, m.scheme_transaction_id_scheme]
    expect(items(summaries)).to.have.length(2)
    expect(items(summaries).map(schemeIdsOf)).to.deep.equal(items(methods).map(schemeIdsOf))
    expect(items(summaries).find((m) => m.id === stored.id)).to.deep.include(schemeIds)
  })

  it('merchant accounts: created, listed, read and updated', async () => {
    const id = uniqueId('shop')
    await answer('create_merchant_account', 'MerchantAccount', 'POST', '/merchant-accounts', { body: { id, display_name: id } })
    await answer('list_merchant_accounts', 'MerchantAccounts', 'GET', '/merchant-accounts')
    await answer('get_merchant_account', 'MerchantAccount', 'GET', `/merchant-accounts/${id}`)
    await answer('update_merchant_account', 'MerchantAccount', 'PUT', `/merchant-accounts/${id}`, { body: { display_name: 'Renamed' } })
    noFaults()
  })

  it('API key pairs: created (for an account, so its summary is answered), listed, read and updated', async () => {
    const roles = await world().h.request<{ items: { id: string; slug: string }[] }>('GET', '/roles')
    const readOnly = roles.body.items.find((r) => r.slug === 'read-only')?.id
    const made = await answer('create_api_key_pair', 'APIKeyPair', 'POST', '/api-key-pairs', {
      body: { display_name: 'Required keys', role_ids: [readOnly], merchant_account_ids: ['acme'] },
    })
    await answer('list_api_key_pairs', 'CollectionAPIKeyPair', 'GET', '/api-key-pairs')
    await answer('get_api_key_pair', 'APIKeyPair', 'GET', `/api-key-pairs/${String(made.id)}`)
    await answer('update_api_key_pair', 'APIKeyPair', 'PUT', `/api-key-pairs/${String(made.id)}`, { body: { active: false } })
    noFaults()
  })

  it('gift cards: activated and stored, read, listed, their balances, a buyer’s', async () => {
    const buyerId = await addBuyer()
    await answer('activate_gift_card', 'GiftCard', 'POST', '/gift-cards/activations', {
      body: { number: giftCardNumber(), pin: PIN, amount: 5000, currency: 'USD', store: true, buyer_id: buyerId },
    })
    await answer('activate_gift_card', 'GiftCard', 'POST', '/gift-cards/activations', { body: { number: giftCardNumber(), pin: PIN } })
    const stored = await answer('create_gift_card', 'GiftCard', 'POST', '/gift-cards', {
      body: { number: giftCardNumber(), pin: PIN, buyer_id: buyerId },
    })
    await answer('get_gift_card', 'GiftCard', 'GET', `/gift-cards/${String(stored.id)}`)
    await answer('list_gift_cards', 'GiftCards', 'GET', '/gift-cards')
    const refused = `${giftCardNumber().slice(0, -4)}0002`
    await answer('list_gift_card_balances', 'GiftCardSummaries', 'POST', '/gift-cards/balances', {
      body: { items: [{ number: giftCardNumber(), pin: PIN }, { id: stored.id }, { number: refused, pin: PIN }] },
    })
    await answer('list_buyer_gift_cards', 'GiftCardSummaries', 'GET', `/buyers/gift-cards?buyer_id=${buyerId}`)
    noFaults()
  })

  it('transactions: a buyer’s cart paid by card and gift card, updated, captured, refunded, with every read of it', async () => {
    const buyerId = await addBuyer()
    const t = await answer('create_transaction', 'Transaction', 'POST', '/transactions', {
      body: {
        amount: 5000,
        currency: 'USD',
        buyer_id: buyerId,
        cart_items: cartItems,
        payment_method: card(),
        gift_cards: [{ number: giftCardNumber(), pin: PIN, amount: 1000 }],
      },
    })
    expect((t.gift_card_redemptions as unknown[]).length).to.equal(1)
    const at = `/transactions/${String(t.id)}`
    await answer('list_transactions', 'TransactionSummaries', 'GET', '/transactions')
    await answer('get_transaction', 'Transaction', 'GET', at)
    await answer('update_transaction', 'Transaction', 'PUT', at, { body: { external_identifier: uniqueId('txn') } })
    await answer('capture_transaction', 'Transaction', 'POST', `${at}/capture`, { body: {} })
    const captures = await answer('list_transaction_captures', 'CaptureCollection', 'GET', `${at}/captures`)
    const captureId = String((captures.items as Json[])[0]?.id)
    await answer('get_transaction_capture', 'Capture', 'GET', `${at}/captures/${captureId}`)
    const refund = await answer('create_transaction_refund', 'Refund', 'POST', `${at}/refunds`, { body: { amount: 100 } })
    await answer('get_transaction_refund', 'Refund', 'GET', `${at}/refunds/${String(refund.id)}`)
    await answer('get_refund', 'Refund', 'GET', `/refunds/${String(refund.id)}`)
    await answer('create_full_transaction_refund', 'Refunds', 'POST', `${at}/refunds/all`, { body: {} })
    await answer('list_transaction_refunds', 'Refunds', 'GET', `${at}/refunds`)
    await answer('list_transaction_events', 'TransactionEvents', 'GET', `${at}/events`)
    await answer('list_transaction_actions', 'TransactionActions', 'GET', `${at}/actions`)
    await answer('list_transaction_settlements', 'Settlements', 'GET', `${at}/settlements`)
    await answer('list_transaction_refund_settlements', 'RefundSettlements', 'GET', `${at}/refund-settlements`)
    noFaults()
  })

  it('transactions captured, voided and synced, as the transaction and as the wrappers `Prefer` asks for', async () => {
    const pay = async () => {
      const t = await answer('create_transaction', 'Transaction', 'POST', '/transactions', {
        body: { amount: 1299, currency: 'USD', payment_method: card() },
      })
      return `/transactions/${String(t.id)}`
    }
    const wrapper = (resource: string) => ({ body: {}, headers: { prefer: `resource=${resource}` } })
    await answer('capture_transaction', 'TransactionCapture', 'POST', `${await pay()}/capture`, wrapper('transaction-capture'))
    await answer('void_transaction', 'Transaction', 'POST', `${await pay()}/void`, { body: {} })
    await answer('void_transaction', 'TransactionVoid', 'POST', `${await pay()}/void`, wrapper('transaction-void'))
    await answer('sync_transaction', 'Transaction', 'POST', `${await pay()}/sync`)
    noFaults()
  })

  it('checkout sessions: with a cart and a guest buyer, then its card put, read and updated', async () => {
    const session = await answer('create_checkout_session', 'CheckoutSession', 'POST', '/checkout/sessions', {
      body: { amount: 5000, currency: 'USD', cart_items: cartItems, buyer: { display_name: 'Ada', billing_details: billingDetails } },
    })
    const at = `/checkout/sessions/${String(session.id)}`
    const fields = await world().h.request('PUT', `${at}/fields`, { auth: null, body: { payment_method: card() } })
    expect(fields.status, fields.text).to.equal(204)
    const read = await answer('get_checkout_session', 'CheckoutSession', 'GET', at)
    expect(read.payment_method).to.not.equal(null)
    await answer('update_checkout_session', 'CheckoutSession', 'PUT', at, { body: { amount: 4000 } })
    noFaults()
  })

  it('the audit log', async () => {
    await addBuyer()
    const page = await answer('list_audit_logs', 'AuditLogEntries', 'GET', '/audit-logs')
    expect(page.items).to.not.deep.equal([])
    noFaults()
  })

  it('payment services (a non-secret field shown, the secret left out), their definitions, payment options and card schemes', async () => {
    const fields = [
      { key: 'merchant_id', value: 'sdk-2-4' },
      { key: 'api_key', value: 'sk_sdk_2_4' },
    ]
    const service = await answer('create_payment_service', 'PaymentService', 'POST', '/payment-services', {
      body: {
        display_name: 'SDK 2.4 cards',
        payment_service_definition_id: 'mock-card',
        fields,
        accepted_currencies: ['USD'],
        accepted_countries: ['US'],
        active: false,
      },
    })
    expect(service.fields).to.deep.equal([fields[0]])
    const at = `/payment-services/${String(service.id)}`
    await answer('list_payment_services', 'PaymentServices', 'GET', '/payment-services')
    await answer('get_payment_service', 'PaymentService', 'GET', at)
    await answer('update_payment_service', 'PaymentService', 'PUT', at, { body: { display_name: 'SDK 2.4 cards, renamed' } })
    await answer('verify_payment_service_credentials', 'AnyJson', 'POST', '/payment-services/verify', {
      body: { payment_service_definition_id: 'mock-card', fields },
    })
    await answer('list_payment_service_definitions', 'PaymentServiceDefinitions', 'GET', '/payment-service-definitions')
    await answer('get_payment_service_definition', 'PaymentServiceDefinition', 'GET', '/payment-service-definitions/mock-card')
    const options = await answer('list_payment_options', 'PaymentOptions', 'POST', '/payment-options', {
      body: { currency: 'USD', country: 'US' },
    })
    expect(options.items).to.not.deep.equal([])
    await answer('list_card_scheme_definitions', 'CardSchemeDefinitions', 'GET', '/card-scheme-definitions')
    const deleted = await world().h.request('DELETE', at)
    expect(deleted.status, deleted.text).to.equal(204)
    noFaults()
  })

  it('errors: a 400 naming its fields, a 404, a 422 naming its fields', async () => {
    const { h } = world()
    const checked = async (schema: SdkSchemaName, status: number, method: string, path: string, o: RequestOptions = {}) => {
      const r = await h.request<Json>(method, path, o)
      expect(r.status, r.text).to.equal(status)
      faults.push(...missingKeys(schema, r.body).map((m) => `${method} ${path}: ${m}`))
      return r.body
    }
    const bad = await checked('Error', 400, 'POST', '/transactions', {
      body: { amount: 1299, currency: 'USD', store: true, payment_method: card() },
    })
    expect(bad.details).to.not.deep.equal([])
    await checked('Error', 404, 'GET', `/buyers/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`)
    const invalid = await checked('HTTPValidationError', 422, 'POST', '/buyers', { body: { display_name: 7 } })
    expect(invalid.detail).to.not.deep.equal([])
    noFaults()
  })

  it('every operation served with a JSON success was checked above, unless the SDK has no method for it', async () => {
    // Not through the harness: the conformance suite checks what it records against the document, which does not describe itself.
    const doc = (await (await fetch(`${world().h.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, Json> }>>
    }
    const served = Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .filter((op) => Object.entries(op.responses).some(([status, r]) => Number(status) < 300 && r.content !== undefined))
      .map((op) => op.operationId)
    expect(served.filter((id) => !(id in SDK_SUCCESS) && !NOT_IN_SDK.includes(id))).to.deep.equal([])
    expect(Object.keys(SDK_SUCCESS).filter((id) => !served.includes(id))).to.deep.equal([])
    const expected = Object.entries(SDK_SUCCESS).flatMap(([id, schemas]) => schemas.map((s) => `${id} ${s}`))
    expect(expected.filter((x) => !answered.has(x))).to.deep.equal([])
  })
})
