import { expect } from 'chai'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { AdyenDouble, REFUSED_ADYEN_KEY, SignedNotification, startAdyenDouble } from '@orka/adapters-node/testing'
import { defaultCardServiceId } from '../../src/card-services'
import { errorBody, Harness, Resource, startHarness } from '../support/harness'
import { closedPort, Store, STORES } from './provider-stores'

type Json = Record<string, unknown>
type Tx = Resource & { status: string; captured_amount: number; refunded_amount: number; payment_method: Json; [k: string]: unknown }
interface Events {
  items: { name: string; context: Json }[]
}
const PUBLIC_URL = 'https://pay.example.test'
const card = (number = '4111111111111111') => ({ method: 'card', number, expiration_date: '12/34', security_code: '737' })

/** A proxy in front of Adyen that holds its answers to captures until `release` (Adyen has acted; its answer is on the way). */
const holdingCaptures = async (target: string) => {
  let release: () => void = () => undefined
  let arrived: () => void = () => undefined
  const held = new Promise<void>((resolve) => (release = resolve))
  const captured = new Promise<void>((resolve) => (arrived = resolve))
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)))
      void fetch(`${target}${req.url ?? ''}`, {
        method: req.method ?? 'GET',
        headers: headers as Record<string, string>,
        body: Buffer.concat(chunks),
      }).then(async (answer) => {
        const text = await answer.text()
        if ((req.url ?? '').endsWith('/captures')) {
          arrived()
          await held
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' })
        res.end(text)
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(port)}`,
    captured,
    release,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      }),
  }
}

/**
 * Payments through an `adyen-card` service configured by API, against the Adyen double (Adyen's
 * documents, its notifications signed as Adyen signs them), which the instance reaches through
 * `CONNECTOR_ENDPOINTS`: every capture, void and refund is `received`, and settles when its
 * notification comes to the service's `webhook_url`.
 */
for (const [store, database] of STORES)
  describe(`adyen-card over HTTP (${store}): Adyen's received modifications settle from its notifications`, function () {
    this.timeout(60_000)
    let adyen: AdyenDouble
    let h: Harness
    let db: ReturnType<Store>
    let stripePort: number
    before(async () => {
      adyen = await startAdyenDouble()
      stripePort = await closedPort()
    })
    after(async () => {
      await adyen.close()
      expect(adyen.violations).to.deep.equal([])
    })
    beforeEach(async () => {
      db = database()
      const endpoints = `adyen-card=${adyen.url},stripe-card=http://127.0.0.1:${String(stripePort)}`
      h = await startHarness({ env: { ...db.env, CONNECTOR_ENDPOINTS: endpoints, PUBLIC_URL } })
    })
    afterEach(async () => {
      await h.close()
      await db.drop()
    })

    const fields = (apiKey = adyen.apiKey) => [
      { key: 'api_key', value: apiKey },
      { key: 'merchant_account', value: adyen.merchantAccount },
      { key: 'hmac_key', value: adyen.hmacKey },
    ]
    /** An Adyen service at `position` (the account's mock service moved behind it). */
    const addAdyen = async (position = 0) => {
      expect((await h.request('PUT', `/payment-services/${defaultCardServiceId('default')}`, { body: { position: 5 } })).status).to.equal(
        200,
      )
      const r = await h.request<Json & { id: string; webhook_url: string }>('POST', '/payment-services', {
        body: {
          display_name: 'Adyen',
          payment_service_definition_id: 'adyen-card',
          position,
          accepted_currencies: [],
          accepted_countries: [],
          fields: fields(),
        },
      })
      expect(r.status, r.text).to.equal(201)
      expect(r.body.webhook_url).to.equal(`${PUBLIC_URL}/provider-webhooks/default/${r.body.id}`)
      return r.body
    }
    const pay = (body: Json = {}) =>
      h.request<Tx>('POST', '/transactions', { body: { amount: 5000, currency: 'EUR', payment_method: card(), ...body } })
    const deliver = async (url: string, n: Pick<SignedNotification, 'body'>) => {
      const r = await fetch(url.replace(PUBLIC_URL, h.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: n.body,
      })
      return { status: r.status, type: r.headers.get('content-type'), text: await r.text() }
    }
    /** The notification Adyen sent last with this event code. */
    const last = (eventCode: string) => {
      const n = adyen
        .notifications()
        .filter((x) => x.eventCode === eventCode)
        .at(-1)
      if (n === undefined) return expect.fail(`Adyen sent no ${eventCode}`)
      return n
    }
    const ACCEPTED = { status: 200, type: 'text/plain; charset=utf-8', text: '[accepted]' }
    const tx = async (id: string) => (await h.request<Tx>('GET', `/transactions/${id}`)).body

    it('verifies the key with Adyen, naming the field Adyen refuses, never its value', async () => {
      const verify = (apiKey: string) =>
        h.request('POST', '/payment-services/verify', { body: { payment_service_definition_id: 'adyen-card', fields: fields(apiKey) } })
      const ok = await verify(adyen.apiKey)
      expect([ok.status, ok.body]).to.deep.equal([200, { verified: true }])
      const refused = await verify(REFUSED_ADYEN_KEY)
      expect(refused.status).to.equal(400)
      expect(JSON.stringify(refused.body)).to.include('api_key').and.not.include(REFUSED_ADYEN_KEY)
    })

    it('refuses, before storing anything, a live URL prefix that could name a host outside Adyen’s domain', async () => {
      const r = await h.request<Json>('POST', '/payment-services', {
        body: {
          display_name: 'Adyen',
          payment_service_definition_id: 'adyen-card',
          accepted_currencies: [],
          accepted_countries: [],
          fields: [...fields(), { key: 'live_url_prefix', value: 'evil.example/x' }],
        },
      })
      expect([r.status, r.body]).to.deep.equal([
        400,
        {
          ...errorBody(400, [
            {
              location: 'body',
              pointer: '/fields/3/value',
              message: "live_url_prefix 'evil.example/x' is not a live URL prefix as Adyen gives them: letters, digits and hyphens",
              type: 'invalid_field_value',
            },
          ]),
          message: 'Request failed validation',
        },
      ])
      const listed = await h.request<{ items: Json[] }>('GET', '/payment-services')
      expect(listed.body.items.map((x) => x.payment_service_definition_id)).to.deep.equal(['mock-card'])
    })

    it('authorizes, captures in part (capture_pending until its notification, settled once though delivered twice) and refunds', async () => {
      const service = await addAdyen()
      const t = await pay()
      expect([t.status, t.body.status]).to.deep.equal([201, 'authorization_succeeded'])
      expect(t.body.payment_service).to.include({ id: service.id, payment_service_definition_id: 'adyen-card' })
      expect(t.body.payment_method.details).to.deep.equal({ bin: '411111', card_type: 'credit' })
      const captured = await h.request<Tx>('POST', `/transactions/${t.body.id}/capture`, { body: { amount: 3000 } })
      expect([captured.status, captured.body.status, captured.body.captured_amount]).to.deep.equal([200, 'capture_pending', 0])
      expect((await h.request('POST', `/transactions/${t.body.id}/refunds`, { body: { amount: 100 } })).status).to.equal(409)
      expect(await tx(t.body.id)).to.include({ status: 'capture_pending' })

      const capture = last('CAPTURE')
      expect(await deliver(service.webhook_url, capture)).to.deep.equal(ACCEPTED)
      expect(await deliver(service.webhook_url, capture)).to.deep.equal(ACCEPTED)
      expect(await tx(t.body.id)).to.include({ status: 'capture_succeeded', captured_amount: 3000 })
      const captures = await h.request<{ items: Json[] }>('GET', `/transactions/${t.body.id}/captures`)
      expect(captures.body.items.map((c) => [c.status, c.amount])).to.deep.equal([['succeeded', 3000]])
      const settledBy = (await h.request<Events>('GET', `/transactions/${t.body.id}/events`)).body.items.filter(
        (e) => e.name === 'payment-connector-response-transaction-capture-succeeded',
      )
      expect(settledBy.map((e) => e.context.event)).to.deep.equal(['CAPTURE'])

      const refund = await h.request<Json & { id: string }>('POST', `/transactions/${t.body.id}/refunds`, { body: { amount: 1000 } })
      expect([refund.status, refund.body.status]).to.deep.equal([201, 'processing'])
      expect(await deliver(service.webhook_url, last('REFUND'))).to.deep.equal(ACCEPTED)
      const after = await h.request<Json>('GET', `/transactions/${t.body.id}/refunds/${refund.body.id}`)
      expect([after.body.status, (await tx(t.body.id)).refunded_amount]).to.deep.equal(['succeeded', 1000])
    })

    it('settles a capture once when its notification overtakes Adyen’s answer to it', async () => {
      const proxy = await holdingCaptures(adyen.url)
      try {
        await h.close()
        h = await startHarness({ env: { ...db.env, CONNECTOR_ENDPOINTS: `adyen-card=${proxy.url}`, PUBLIC_URL } })
        const service = await addAdyen()
        const t = await pay()
        const capturing = h.request<Tx>('POST', `/transactions/${t.body.id}/capture`, { body: {} })
        await proxy.captured
        expect(await deliver(service.webhook_url, last('CAPTURE'))).to.deep.equal(ACCEPTED)
        expect(await tx(t.body.id)).to.include({ status: 'capture_succeeded', captured_amount: 5000 })
        proxy.release()
        const answered = await capturing
        expect([answered.status, answered.body.status, answered.body.captured_amount]).to.deep.equal([200, 'capture_succeeded', 5000])
        const names = (await h.request<Events>('GET', `/transactions/${t.body.id}/events`)).body.items.map((e) => e.name)
        expect(names.filter((n) => n.startsWith('payment-connector-response-transaction-capture'))).to.deep.equal([
          'payment-connector-response-transaction-capture-succeeded',
        ])
      } finally {
        proxy.release()
        await proxy.close()
      }
    })

    it('voids: authorization_void_pending until Adyen’s CANCELLATION, then voided', async () => {
      const service = await addAdyen()
      const t = await pay()
      const v = await h.request<Tx>('POST', `/transactions/${t.body.id}/void`, { body: {} })
      expect([v.status, v.body.status]).to.deep.equal([200, 'authorization_void_pending'])
      expect(await deliver(service.webhook_url, last('CANCELLATION'))).to.deep.equal(ACCEPTED)
      expect(await tx(t.body.id)).to.include({ status: 'authorization_voided' })
    })

    it('refuses a notification signed with another key or not signed at all with a 401, and changes nothing', async () => {
      const service = await addAdyen()
      const t = await pay()
      await h.request('POST', `/transactions/${t.body.id}/capture`, { body: {} })
      const genuine = last('CAPTURE')
      const item = JSON.parse(genuine.body) as { notificationItems: { NotificationRequestItem: Json & { additionalData: Json } }[] }
      const forged = adyen.sign(
        {
          eventCode: 'CAPTURE',
          pspReference: genuine.pspReference,
          originalReference: String(item.notificationItems[0]?.NotificationRequestItem.originalReference),
          merchantAccountCode: adyen.merchantAccount,
          merchantReference: String(item.notificationItems[0]?.NotificationRequestItem.merchantReference),
          amount: { value: 5000, currency: 'EUR' },
          success: true,
        },
        'AB'.repeat(32),
      )
      const unsigned = { body: genuine.body.replace(/"hmacSignature":"[^"]*"/, '"hmacSignature":""') }
      for (const n of [forged, unsigned])
        expect(await deliver(service.webhook_url, n)).to.deep.equal({
          status: 401,
          type: 'application/json; charset=utf-8',
          text: JSON.stringify(errorBody(401)),
        })
      expect(await tx(t.body.id)).to.include({ status: 'capture_pending', captured_amount: 0 })
    })

    it('fails over when Adyen refuses the key, the reason in the events log and never the key', async () => {
      expect((await h.request('PUT', `/payment-services/${defaultCardServiceId('default')}`, { body: { position: 5 } })).status).to.equal(
        200,
      )
      const refused = await h.request<Json & { id: string }>('POST', '/payment-services', {
        body: {
          display_name: 'Adyen',
          payment_service_definition_id: 'adyen-card',
          position: 0,
          accepted_currencies: [],
          accepted_countries: [],
          fields: fields(REFUSED_ADYEN_KEY),
        },
      })
      expect(refused.status, refused.text).to.equal(201)
      const t = await pay()
      expect([t.status, t.body.status]).to.deep.equal([201, 'authorization_succeeded'])
      expect(t.body.payment_service).to.include({ id: defaultCardServiceId('default') })
      const events = (await h.request<Events>('GET', `/transactions/${t.body.id}/events`)).body.items
      const failed = events.find((e) => e.name === 'payment-connector-response-transaction-authorization-failed')
      expect(failed?.context).to.deep.include({ payment_service_id: refused.body.id, error_code: 'invalid_service_credentials' })
      expect(JSON.stringify(events)).to.not.include(REFUSED_ADYEN_KEY)
      expect(h.logs.join('')).to.not.include(REFUSED_ADYEN_KEY)
    })

    it('fails over from a Stripe service that cannot be reached to Adyen, the failure in the events log', async () => {
      const stripe = await h.request<Json & { id: string }>('POST', '/payment-services', {
        body: {
          display_name: 'Stripe',
          payment_service_definition_id: 'stripe-card',
          position: 0,
          accepted_currencies: [],
          accepted_countries: [],
          fields: [{ key: 'secret_key', value: 'sk_test_unreachable' }],
        },
      })
      expect(stripe.status, stripe.text).to.equal(201)
      const service = await addAdyen(1)
      const t = await pay()
      expect([t.status, t.body.status]).to.deep.equal([201, 'authorization_succeeded'])
      expect(t.body.payment_service).to.include({ id: service.id })
      const events = (await h.request<Events>('GET', `/transactions/${t.body.id}/events`)).body.items
      const failed = events.find((e) => e.name === 'payment-connector-response-transaction-authorization-failed')
      expect(failed?.context).to.deep.include({ payment_service_id: stripe.body.id, error_code: 'service_error' })
      expect(events.map((e) => e.context.payment_service_id).filter((x) => x !== undefined)).to.include.members([
        stripe.body.id,
        service.id,
      ])
      expect(h.logs.join('')).to.not.include(adyen.apiKey).and.not.include(adyen.hmacKey).and.not.include('4111111111111111')
    })

    it('keeps on a card stored with the payment (store: true) the funding type and the scheme’s transaction id Adyen told', async () => {
      await addAdyen()
      const buyer = await h.request<Json>('POST', '/buyers', { body: { display_name: 'Grace Hopper' } })
      const r = await pay({ payment_method: card('4000056655665556'), store: true, buyer_id: buyer.body.id })
      expect([r.status, r.body.status], JSON.stringify(r.body)).to.deep.equal([201, 'authorization_succeeded'])
      const stored = await h.request<Json>('GET', `/payment-methods/${String(r.body.payment_method.id)}`)
      expect(stored.body).to.deep.include({ status: 'succeeded', scheme_transaction_id_scheme: 'visa' })
      expect(stored.body.details).to.deep.equal({ bin: '400005', card_type: 'debit' })
      expect(stored.body.scheme_transaction_id).to.match(/^\d{15}$/)
    })
  })
