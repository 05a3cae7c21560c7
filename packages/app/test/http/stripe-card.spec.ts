import { expect } from 'chai'
import { startStripeDouble, StripeDouble } from '@orka/adapters-node/testing'
import { defaultCardServiceId } from '../../src/card-services'
import { errorBody, Harness, Resource, startHarness } from '../support/harness'
import { closedPort, Store, STORES } from './provider-stores'
import { approvedCardPayment } from '../support/transaction-bodies'

type Json = Record<string, unknown>
type Tx = Resource & { status: string; payment_service: Json | null; payment_method: Json; [k: string]: unknown }
const KEY = 'sk_test_orka_http'
const card = (number = '4242424242424242') => ({ method: 'card', number, expiration_date: '12/34', security_code: '123' })
const STRIPE = { display_name: 'Stripe', payment_service_definition_id: 'stripe-card', accepted_currencies: [], accepted_countries: [] }

/**
 * Payments through a `stripe-card` payment service configured by API, against the Stripe double
 * (Stripe's fixtures and OpenAPI document, from stripe-mock), which the instance reaches through
 * `CONNECTOR_ENDPOINTS` as it would Stripe.
 */
for (const [store, database] of STORES)
  describe(`stripe-card over HTTP (${store}): a Stripe service configured by API takes the payments`, function () {
    this.timeout(60_000)
    let stripe: StripeDouble
    let h: Harness
    let db: ReturnType<Store>
    before(async () => {
      stripe = await startStripeDouble()
    })
    after(async () => {
      await stripe.close()
      expect(stripe.violations).to.deep.equal([])
    })
    beforeEach(async () => {
      db = database()
      h = await startHarness({ env: { ...db.env, CONNECTOR_ENDPOINTS: `stripe-card=${stripe.url}` } })
    })
    afterEach(async () => {
      await h.close()
      await db.drop()
    })

    /** Adds a Stripe service with `secret_key`, routed to before the account's mock one (moved to position 1, its backup). */
    const addStripe = async (secretKey = KEY, o: Json = {}) => {
      const moved = await h.request('PUT', `/payment-services/${defaultCardServiceId('default')}`, { body: { position: 1 } })
      expect(moved.status, moved.text).to.equal(200)
      const r = await h.request<Json>('POST', '/payment-services', {
        body: { ...STRIPE, position: 0, fields: [{ key: 'secret_key', value: secretKey }], ...o },
      })
      expect(r.status, r.text).to.equal(201)
      return r.body
    }
    const pay = (body: Json) => h.request<Tx>('POST', '/transactions', { body: { amount: 5000, currency: 'USD', ...body } })

    it('verifies the key with Stripe, and names the field when Stripe refuses it, never the key', async () => {
      const ok = await h.request('POST', '/payment-services/verify', {
        body: { payment_service_definition_id: 'stripe-card', fields: [{ key: 'secret_key', value: KEY }] },
      })
      expect([ok.status, ok.body]).to.deep.equal([200, { verified: true }])
      const refused = await h.request('POST', '/payment-services/verify', {
        body: { payment_service_definition_id: 'stripe-card', fields: [{ key: 'secret_key', value: 'sk_test_refused' }] },
      })
      expect([refused.status, refused.body]).to.deep.equal([
        400,
        {
          ...errorBody(400, [
            { location: 'body', pointer: '/fields/0/value', message: 'secret_key: Stripe refused the key', type: 'credentials_refused' },
          ]),
          message: 'Request failed validation',
        },
      ])
    })

    it('authorizes, captures in part and refunds through Stripe; the answer is the whole transaction', async () => {
      const service = await addStripe()
      const r = await pay({ payment_method: card() })
      expect(r.status, r.text).to.equal(201)
      const at = h.clock.now().toISOString()
      expect(r.body).to.deep.equal(
        approvedCardPayment(r.body, at, {
          amount: 5000,
          authorized_amount: 5000,
          payment_method: {
            ...(approvedCardPayment(r.body, at).payment_method as Json),
            label: '4242',
            expiration_date: '12/34',
            details: { bin: '424242', card_type: 'credit' },
          },
          payment_service: {
            type: 'payment-service',
            id: service.id,
            payment_service_definition_id: 'stripe-card',
            method: 'card',
            display_name: 'Stripe',
          },
          raw_response_code: 'requires_capture',
          raw_response_description: null,
          auth_response_code: r.body.auth_response_code,
          cvv_response_code: 'match',
        }),
      )
      expect(r.body.auth_response_code).to.match(/^\d{6}$/)
      expect(r.body.payment_service_transaction_id).to.match(/^pi_[0-9a-f]{24}$/)
      const captured = await h.request<Tx>('POST', `/transactions/${r.body.id}/capture`, { body: { amount: 3000 } })
      expect([captured.status, captured.body.status, captured.body.captured_amount]).to.deep.equal([200, 'capture_succeeded', 3000])
      const refund = await h.request<Json>('POST', `/transactions/${r.body.id}/refunds`, { body: { amount: 1000 } })
      expect([refund.status, refund.body.status, refund.body.amount]).to.deep.equal([201, 'succeeded', 1000])
      expect(refund.body.payment_service_refund_id).to.match(/^re_[0-9a-f]{24}$/)
      const voided = await pay({ payment_method: card() })
      const v = await h.request<Tx>('POST', `/transactions/${voided.body.id}/void`, { body: {} })
      expect([v.status, v.body.status]).to.deep.equal([200, 'authorization_voided'])
      expect(stripe.requests.filter((x) => x.includes('/cancel'))).to.have.length(1)
      expect(h.logs.join('')).to.not.include(KEY).and.not.include('4242424242424242')
    })

    it("declines Stripe's declining test card with Orka's code, and stops there (no failover on a decline)", async () => {
      await addStripe()
      const r = await pay({ payment_method: card('4000000000009995') })
      expect(r.status).to.equal(201)
      expect(r.body).to.include({
        status: 'authorization_declined',
        error_code: 'insufficient_funds',
        raw_response_code: 'insufficient_funds',
      })
    })

    it('fails over to the next service when Stripe cannot be reached, the failure in the events log', async () => {
      await h.close()
      const port = await closedPort()
      h = await startHarness({ env: { ...db.env, CONNECTOR_ENDPOINTS: `stripe-card=http://127.0.0.1:${String(port)}` } })
      const service = await addStripe()
      const r = await pay({ payment_method: card() })
      expect([r.status, r.body.status]).to.deep.equal([201, 'authorization_succeeded'])
      expect(r.body.payment_service).to.include({ id: defaultCardServiceId('default') })
      const events = await h.request<{ items: { name: string; context: Json }[] }>('GET', `/transactions/${r.body.id}/events`)
      const failed = events.body.items.find((e) => e.name === 'payment-connector-response-transaction-authorization-failed')
      expect(failed?.context).to.deep.include({ payment_service_id: service.id, error_code: 'service_error' })
    })

    it('fails over to the next service when Stripe refuses the key (nothing held there)', async () => {
      const service = await addStripe('sk_test_refused')
      const r = await pay({ payment_method: card() })
      expect([r.status, r.body.status]).to.deep.equal([201, 'authorization_succeeded'])
      expect(r.body.payment_service).to.include({ id: defaultCardServiceId('default') })
      const events = await h.request<{ items: { name: string; context: Json }[] }>('GET', `/transactions/${r.body.id}/events`)
      const failed = events.body.items.find((e) => e.name === 'payment-connector-response-transaction-authorization-failed')
      expect(failed?.context).to.deep.include({ payment_service_id: service.id, error_code: 'invalid_service_credentials' })
      expect(JSON.stringify(events.body)).to.not.include('sk_test_refused')
    })

    it('keeps on a card stored with the payment (store: true) the funding type and the scheme’s transaction id Stripe told', async () => {
      await addStripe()
      const buyer = await h.request<Json>('POST', '/buyers', { body: { display_name: 'Grace Hopper' } })
      const r = await pay({ payment_method: card(), store: true, buyer_id: buyer.body.id })
      expect([r.status, r.body.status], JSON.stringify(r.body)).to.deep.equal([201, 'authorization_succeeded'])
      const id = String(r.body.payment_method.id)
      const stored = await h.request<Json>('GET', `/payment-methods/${id}`)
      expect(stored.body).to.deep.include({ status: 'succeeded', scheme_transaction_id_scheme: 'visa' })
      expect(stored.body.details).to.deep.equal({ bin: '424242', card_type: 'credit' })
      expect(stored.body.scheme_transaction_id).to.match(/^\d{15}$/)
    })
  })
