import { expect } from 'chai'
import { startStripeDouble, StripeDouble } from '@orka/adapters-node/testing'
import { defaultCardServiceId } from '../../src/card-services'
import { errorBody, Harness, Resource, startHarness } from '../support/harness'
import { Store, STORES } from './provider-stores'

type Json = Record<string, unknown>
type Tx = Resource & { status: string; captured_amount: number; refunded_amount: number; [k: string]: unknown }
type Refund = Resource & { status: string; amount: number; payment_service_refund_id: string | null }
interface Events {
  items: { name: string; context: Json }[]
}
const KEY = 'sk_test_orka_webhooks'
const SECRET = 'whsec_orka_test_secret'
const PUBLIC_URL = 'https://pay.example.test'
const card = { method: 'card', number: '4242424242424242', expiration_date: '12/34', security_code: '123' }

/**
 * Stripe's webhooks to a `stripe-card` service, signed by the Stripe double as Stripe signs
 * them, delivered to the service's `webhook_url`: a refund Stripe answered `pending` settles
 * from its event, once, however often it is delivered.
 */
for (const [store, database] of STORES)
  describe(`stripe-card webhooks over HTTP (${store})`, function () {
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
      h = await startHarness({ env: { ...db.env, CONNECTOR_ENDPOINTS: `stripe-card=${stripe.url}`, PUBLIC_URL } })
    })
    afterEach(async () => {
      await h.close()
      await db.drop()
    })

    /** A Stripe service routed to first (the account's mock service moved behind it). */
    const addStripe = async () => {
      expect((await h.request('PUT', `/payment-services/${defaultCardServiceId('default')}`, { body: { position: 1 } })).status).to.equal(
        200,
      )
      const r = await h.request<Json & { id: string }>('POST', '/payment-services', {
        body: {
          display_name: 'Stripe',
          payment_service_definition_id: 'stripe-card',
          position: 0,
          accepted_currencies: [],
          accepted_countries: [],
          fields: [
            { key: 'secret_key', value: KEY },
            { key: 'webhook_secret', value: SECRET },
          ],
        },
      })
      expect(r.status, r.text).to.equal(201)
      return r.body
    }
    /** POSTs a webhook to `url` (no token: a provider has none) as Stripe would. */
    const deliver = (url: string, e: { headers: Readonly<Record<string, string>>; body: string }) =>
      fetch(url.replace(PUBLIC_URL, h.url), { method: 'POST', headers: { ...e.headers }, body: e.body }).then(async (r) => ({
        status: r.status,
        text: await r.text(),
      }))
    /** A captured Stripe payment with a refund of the double's pending amount: `processing` until Stripe settles it. */
    const pendingRefund = async () => {
      const service = await addStripe()
      const t = await h.request<Tx>('POST', '/transactions', {
        body: { amount: 5000, currency: 'USD', intent: 'capture', payment_method: card },
      })
      expect([t.status, t.body.status]).to.deep.equal([201, 'capture_succeeded'])
      const refund = await h.request<Refund>('POST', `/transactions/${t.body.id}/refunds`, { body: { amount: stripe.pendingRefundAmount } })
      expect([refund.status, refund.body.status]).to.deep.equal([201, 'processing'])
      expect(refund.body.payment_service_refund_id).to.match(/^re_/)
      return { service, t: t.body, refund: refund.body }
    }

    it("shows each Stripe service's webhook_url under PUBLIC_URL, and none for a service whose provider sends none", async () => {
      const service = await addStripe()
      const url = `${PUBLIC_URL}/provider-webhooks/default/${service.id}`
      expect(service.webhook_url).to.equal(url)
      expect((await h.request<Json>('GET', `/payment-services/${service.id}`)).body.webhook_url).to.equal(url)
      expect((await h.request<Json>('GET', `/payment-services/${defaultCardServiceId('default')}`)).body.webhook_url).to.equal(null)
    })

    it('settles a pending refund from its signed event, once, however often it comes; refunded_amount moves then', async () => {
      const { service, t, refund } = await pendingRefund()
      expect((await h.request<Tx>('GET', `/transactions/${t.id}`)).body.refunded_amount).to.equal(0)
      const settled = stripe.settleRefund(refund.payment_service_refund_id ?? '', 'succeeded')
      const event = stripe.signedEvent('refund.updated', settled, SECRET, h.clock.now())
      expect(await deliver(String(service.webhook_url), event)).to.deep.equal({ status: 200, text: '{"received":true}' })
      const after = await h.request<Refund>('GET', `/transactions/${t.id}/refunds/${refund.id}`)
      expect([after.body.status, after.body.amount]).to.deep.equal(['succeeded', stripe.pendingRefundAmount])
      expect((await h.request<Tx>('GET', `/transactions/${t.id}`)).body.refunded_amount).to.equal(stripe.pendingRefundAmount)
      const log = async () => (await h.request<Events>('GET', `/transactions/${t.id}/events`)).body.items
      const before = await log()
      expect(before.filter((e) => e.name === 'refund-succeeded')).to.have.length(1)
      expect(before.find((e) => e.name === 'refund-succeeded')?.context).to.deep.include({
        source: 'notification',
        event: 'refund.updated',
      })
      expect(await deliver(String(service.webhook_url), event)).to.deep.equal({ status: 200, text: '{"received":true}' })
      expect(await log()).to.deep.equal(before)
      expect(h.logs.join('')).to.not.include(SECRET).and.not.include(KEY)
    })

    it('settles a pending refund when asked (sync), and a late event of it then changes nothing', async () => {
      const { service, t, refund } = await pendingRefund()
      const unchanged = await h.request<Tx>('POST', `/transactions/${t.id}/sync`)
      expect([unchanged.status, unchanged.body.refunded_amount]).to.deep.equal([200, 0])
      const settled = stripe.settleRefund(refund.payment_service_refund_id ?? '', 'failed')
      const synced = await h.request<Tx>('POST', `/transactions/${t.id}/sync`)
      expect([synced.status, synced.body.refunded_amount]).to.deep.equal([200, 0])
      expect((await h.request<Refund>('GET', `/transactions/${t.id}/refunds/${refund.id}`)).body.status).to.equal('failed')
      await deliver(String(service.webhook_url), stripe.signedEvent('refund.failed', settled, SECRET, h.clock.now()))
      const log = (await h.request<Events>('GET', `/transactions/${t.id}/events`)).body.items
      expect(log.filter((e) => e.name === 'refund-failed').map((e) => e.context.source ?? 'answer')).to.deep.equal(['notification'])
      expect(log.filter((e) => e.name === 'payment-connector-notification').map((e) => [e.context.event, e.context.applied])).to.deep.equal(
        [['refund.failed', false]],
      )
    })

    it('refuses a wrongly signed, stale or unsigned event with a 401 and changes nothing', async () => {
      const { service, t, refund } = await pendingRefund()
      const settled = stripe.settleRefund(refund.payment_service_refund_id ?? '', 'succeeded')
      const stale = stripe.signedEvent('refund.updated', settled, SECRET, new Date(h.clock.now().getTime() - 301_000))
      const forged = stripe.signedEvent('refund.updated', settled, 'whsec_not_the_secret', h.clock.now())
      const unsigned = { headers: { 'content-type': 'application/json' }, body: forged.body }
      for (const e of [stale, forged, unsigned])
        expect(await deliver(String(service.webhook_url), e)).to.deep.equal({ status: 401, text: JSON.stringify(errorBody(401)) })
      expect((await h.request<Refund>('GET', `/transactions/${t.id}/refunds/${refund.id}`)).body.status).to.equal('processing')
      const signed = stripe.signedEvent('refund.updated', settled, SECRET, h.clock.now())
      // Another account's path, and paths a fuzzer would send (invalid UTF-8, NUL, a huge id): the same 401, never a 500.
      for (const path of [`other-account/${service.id}`, '%ED%A0%80/%00', `default/${'x'.repeat(5000)}`, `%00/${service.id}`])
        expect([path.slice(0, 20), (await deliver(`${PUBLIC_URL}/provider-webhooks/${path}`, signed)).status]).to.deep.equal([
          path.slice(0, 20),
          401,
        ])
      expect((await h.request<Refund>('GET', `/transactions/${t.id}/refunds/${refund.id}`)).body.status).to.equal('processing')
    })
  })
