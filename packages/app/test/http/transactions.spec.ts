import { expect } from 'chai'
import { PaymentServiceRepository } from '@orka/domain'
import { aPaymentServiceRecord } from '@orka/domain/testing'
import { defaultCardServiceId } from '../../src/card-services'
import { get } from '../../src/container'
import { errorBody, Harness, IDS, Resource, startHarness, UUID_RE } from '../support/harness'
import { approvedCardPayment } from '../support/transaction-bodies'

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const PAYMENT = { amount: 1299, currency: 'USD', payment_method: CARD }
type Json = Record<string, unknown>
type Tx = Resource & { status: string; payment_service: Json | null; payment_method: Json; [k: string]: unknown }

/** A 400 of the original API's payment validation: its message, the faulty fields. */
const failedValidation = (...details: { pointer: string; message: string; type: string }[]) => ({
  ...errorBody(
    400,
    details.map((d) => ({ location: 'body', ...d })),
  ),
  message: 'Request failed validation',
})

describe('transactions over HTTP (embedded store, mock-card)', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())
  const pay = (body: unknown = PAYMENT, headers: Record<string, string> = {}) => h.request<Tx>('POST', '/transactions', { body, headers })
  const now = () => h.clock.now().toISOString()

  const expected = (t: Tx, o: Json = {}): Json => approvedCardPayment(t, now(), o)

  it('takes a card payment: 201 with the whole transaction, never the card number or security code', async () => {
    const r = await pay()
    expect(r.status).to.equal(201)
    expect(r.body.id).to.match(UUID_RE)
    expect(r.body).to.deep.equal(expected(r.body))
    expect(r.body.payment_service_transaction_id).to.match(UUID_RE)
    expect(r.text).not.to.include('4111111111111111')
    const read = await h.request<Tx>('GET', `/transactions/${r.body.id}`)
    expect([read.status, read.body]).to.deep.equal([200, r.body])
    expect(h.logs.join('')).not.to.include('4111111111111111')
  })

  it("answers a decline as a 201 transaction that says so, with the service's address and security code checks", async () => {
    const r = await pay({
      ...PAYMENT,
      payment_method: { ...CARD, number: '4000000000000002', security_code: '333' },
      buyer: { billing_details: { address: { postal_code: 'N1 77Q' } } },
    })
    expect(r.status).to.equal(201)
    expect(r.body).to.include({
      status: 'authorization_declined',
      error_code: 'issuer_decline',
      intent_outcome: 'failed',
      authorized_amount: 0,
      avs_response_code: 'no_match',
      cvv_response_code: 'no_match',
    })
  })

  it('fails over from a service that is down to the next active one', async () => {
    const services = get(h.container, PaymentServiceRepository)
    const down = aPaymentServiceRecord({
      merchant_account_id: 'default',
      position: 0,
      display_name: 'Down',
      fields: [{ key: 'mode', value: 'down' }],
    })
    const backup = aPaymentServiceRecord({ merchant_account_id: 'default', position: 1, display_name: 'Backup' })
    await h.request('PUT', `/payment-services/${defaultCardServiceId('default')}`, { body: { active: false } })
    await services.write(down)()
    await services.write(backup)()
    const r = await pay()
    expect(r.body).to.include({ status: 'authorization_succeeded' })
    expect(r.body.payment_service).to.include({ id: backup.id, display_name: 'Backup' })
    const events = await h.request<{ items: { name: string; context: Json }[] }>('GET', `/transactions/${r.body.id}/events`)
    expect(events.body.items.map((e) => e.name)).to.deep.equal([
      'transaction-api-request',
      'transaction-event',
      'payment-connector-response-transaction-authorization-failed',
      'transaction-event',
      'payment-connector-response-transaction-authorization-succeeded',
      'transaction-updated-status',
    ])
    expect(JSON.stringify(events.body)).not.to.include('4111111111111111')
  })

  it('captures, refunds in part and in full, and shows captures, refunds and the refund by its own id', async () => {
    const t = (await pay()).body
    const captured = await h.request<Tx>('POST', `/transactions/${t.id}/capture`, { body: { amount: 1000 } })
    expect([captured.status, captured.body]).to.deep.equal([
      200,
      expected(t, { status: 'capture_succeeded', captured_amount: 1000, updated_at: now(), captured_at: now() }),
    ])
    const captures = await h.request<{ items: Json[] }>('GET', `/transactions/${t.id}/captures`)
    const [capture] = captures.body.items
    if (capture === undefined) throw new Error('no capture listed')
    expect(capture.payment_service_capture_id, "the card service's id of the capture").to.match(UUID_RE)
    expect(capture).to.deep.equal({
      type: 'capture',
      id: capture.id,
      merchant_account_id: 'default',
      transaction_id: t.id,
      currency: 'USD',
      amount: 1000,
      status: 'succeeded',
      final: true,
      created_at: now(),
      updated_at: now(),
      captured_at: now(),
      external_identifier: null,
      error_code: null,
      raw_response_code: capture.raw_response_code,
      raw_response_description: capture.raw_response_description,
      transaction_external_identifier: null,
      payment_service_capture_id: capture.payment_service_capture_id,
    })
    expect((await h.request('GET', `/transactions/${t.id}/captures/${String(capture.id)}`)).body).to.deep.equal(capture)

    const part = await h.request<Json>('POST', `/transactions/${t.id}/refunds`, { body: { amount: 300, reason: 'damaged' } })
    expect(part.status).to.equal(201)
    expect(part.body).to.include({
      type: 'refund',
      transaction_id: t.id,
      amount: 300,
      status: 'succeeded',
      reason: 'damaged',
      currency: 'USD',
      target_type: 'payment-method',
    })
    const over = await h.request('POST', `/transactions/${t.id}/refunds`, { body: { amount: 701 } })
    expect([over.status, over.body]).to.deep.equal([
      400,
      failedValidation({ pointer: '/amount', message: 'The amount is above what is left to refund, 700', type: 'amount_above_refundable' }),
    ])
    const all = await h.request<{ items: Json[] }>('POST', `/transactions/${t.id}/refunds/all`)
    expect([all.status, all.body.items.map((x) => [x.amount, x.status])]).to.deep.equal([201, [[700, 'succeeded']]])
    const refunds = await h.request<{ items: Json[] }>('GET', `/transactions/${t.id}/refunds`)
    expect(refunds.body.items.map((x) => x.amount)).to.deep.equal([300, 700])
    const byId = await h.request('GET', `/refunds/${String(part.body.id)}`)
    expect([byId.status, byId.body]).to.deep.equal([200, part.body])
    expect((await h.request('GET', `/transactions/${t.id}/refunds/${String(part.body.id)}`)).body).to.deep.equal(part.body)
    expect((await h.request<Tx>('GET', `/transactions/${t.id}`)).body).to.include({ refunded_amount: 1000, captured_amount: 1000 })
  })

  it('answers the capture and void wrappers when Prefer asks for them', async () => {
    const t = (await pay()).body
    const captured = await h.request<Json>('POST', `/transactions/${t.id}/capture`, { headers: { prefer: 'resource=transaction-capture' } })
    expect(captured.body).to.deep.include({ type: 'transaction-capture', status: 'succeeded', code: null })
    expect((captured.body.transaction as Json).status).to.equal('capture_succeeded')
    const [listed] = (await h.request<{ items: Json[] }>('GET', `/transactions/${t.id}/captures`)).body.items
    expect(captured.body.payment_service_capture_id, "the card service's id of the capture").to.match(UUID_RE)
    expect([captured.body.capture_id, captured.body.payment_service_capture_id]).to.deep.equal([
      listed?.id,
      listed?.payment_service_capture_id,
    ])
    const other = (await pay()).body
    const voided = await h.request<Json>('POST', `/transactions/${other.id}/void`, { headers: { prefer: 'resource=transaction-void' } })
    expect(voided.body).to.deep.include({ type: 'transaction-void', status: 'succeeded', code: null })
    expect((voided.body.transaction as Json).status).to.equal('authorization_voided')
  })

  it('refuses operations the status does not allow with a 409 that names it', async () => {
    const declined = (await pay({ ...PAYMENT, payment_method: { ...CARD, number: '4000000000000002' } })).body
    const r = await h.request('POST', `/transactions/${declined.id}/capture`)
    expect([r.status, r.body]).to.deep.equal([
      409,
      {
        ...errorBody(409, [
          {
            location: 'unknown',
            pointer: '',
            message: 'A transaction in status authorization declined cannot be captured: only an authorized one can',
            type: 'invalid_transaction_status',
          },
        ]),
        resource_id: declined.id,
      },
    ])
    const t = (await pay()).body
    expect((await h.request('POST', `/transactions/${t.id}/refunds`)).status).to.equal(409)
    expect((await h.request('POST', `/transactions/${t.id}/void`)).status).to.equal(200)
    expect((await h.request('POST', `/transactions/${t.id}/void`)).status).to.equal(409)
  })

  it('refuses what Orka does not offer with a 400 naming each field, and a malformed card with a 422 that never echoes it', async () => {
    const unsupported = await pay({ ...PAYMENT, async_capture: true, merchant_initiated: true })
    expect([unsupported.status, unsupported.body]).to.deep.equal([
      400,
      failedValidation(
        { pointer: '/merchant_initiated', message: '`merchant_initiated` is not supported', type: 'unsupported' },
        { pointer: '/async_capture', message: '`async_capture` is not supported', type: 'unsupported' },
      ),
    ])
    const luhn = await pay({ ...PAYMENT, payment_method: { ...CARD, number: '4111111111111112' } })
    expect([luhn.status, luhn.body]).to.deep.equal([
      422,
      {
        detail: [
          {
            loc: ['body', 'payment_method', 'number'],
            msg: 'Value error, number is not a valid card number (its check digit is wrong)',
            type: 'value_error',
          },
        ],
      },
    ])
    const expired = await pay({ ...PAYMENT, payment_method: { ...CARD, expiration_date: '01/20' } })
    expect([expired.status, expired.body]).to.deep.equal([
      400,
      failedValidation({ pointer: '/payment_method/expiration_date', message: 'The card has expired', type: 'expired_card' }),
    ])
    expect((await h.request<Tx>('GET', '/transactions')).body.items).to.deep.equal([])
    expect(h.logs.join('')).not.to.include('4111111111111112')
  })

  it("refuses an unknown stored payment method with the original SDK's security code as one without (400 on payment_method.id), and its redirect URL as not offered", async () => {
    const stored = (extra: Json) => pay({ ...PAYMENT, payment_method: { method: 'id', id: 'pm-1', ...extra } })
    const unknown = {
      pointer: '/payment_method/id',
      message: 'No stored payment method with this id can pay',
      type: 'unknown_payment_method',
    }
    for (const extra of [{}, { security_code: '123' }, { security_code: null, redirect_url: null }]) {
      const r = await stored(extra)
      expect([r.status, r.body]).to.deep.equal([400, failedValidation(unknown)])
    }
    const redirect = await stored({ redirect_url: 'https://shop.example.test/back' })
    expect([redirect.status, redirect.body]).to.deep.equal([
      400,
      failedValidation({
        pointer: '/payment_method/redirect_url',
        message: '`payment_method.redirect_url` is not supported',
        type: 'unsupported',
      }),
    ])
    const malformed = await stored({ security_code: '12' })
    expect(malformed.status).to.equal(422)
    expect((await h.request<Tx>('GET', '/transactions')).body.items).to.deep.equal([])
  })

  it('pays with a checkout session once: a second payment, or one without card data, is a 400', async () => {
    const session = (await h.request<Resource>('POST', '/checkout/sessions', { rawBody: '' })).body
    const unknown = await pay({ ...PAYMENT, payment_method: { method: 'checkout-session', id: '0f5e4c2a-1111-4222-8333-444455556666' } })
    expect([unknown.status, unknown.body]).to.deep.equal([
      400,
      failedValidation({
        pointer: '/payment_method/id',
        message: 'No live checkout session with this id exists in this merchant account (unknown, expired or deleted)',
        type: 'unknown_checkout_session',
      }),
    ])
    const empty = await pay({ ...PAYMENT, payment_method: { method: 'checkout-session', id: session.id } })
    expect([empty.status, empty.body]).to.deep.equal([
      400,
      failedValidation({ pointer: '/payment_method/id', message: 'The checkout session holds no card data', type: 'no_card_data' }),
    ])
    const fields = await h.request('PUT', `/checkout/sessions/${session.id}/fields`, { auth: null, body: { payment_method: CARD } })
    expect(fields.status).to.equal(204)
    const paid = await pay({ ...PAYMENT, payment_method: { method: 'checkout-session', id: session.id } })
    expect(paid.body).to.include({ status: 'authorization_succeeded', checkout_session_id: session.id })
    const again = await pay({ ...PAYMENT, payment_method: { method: 'checkout-session', id: session.id } })
    expect([again.status, again.body]).to.deep.equal([
      400,
      failedValidation({
        pointer: '/payment_method/id',
        message: 'The checkout session was used for another transaction',
        type: 'used_checkout_session',
      }),
    ])
    expect((await h.request<{ payment_method: unknown }>('GET', `/checkout/sessions/${session.id}`)).body.payment_method).to.equal(null)
    // A card sent again after the session paid pays nothing, and is purged by the attempt.
    expect(
      (await h.request('PUT', `/checkout/sessions/${session.id}/fields`, { auth: null, body: { payment_method: CARD } })).status,
    ).to.equal(204)
    const late = await pay({ ...PAYMENT, payment_method: { method: 'checkout-session', id: session.id } })
    expect([late.status, late.body]).to.deep.equal([400, again.body])
    expect((await h.request<{ payment_method: unknown }>('GET', `/checkout/sessions/${session.id}`)).body.payment_method).to.equal(null)
    expect((await h.request<{ items: unknown[] }>('GET', '/transactions')).body.items).to.have.length(1)
  })

  it('replays an idempotent payment byte for byte', async () => {
    const first = await pay(PAYMENT, { 'idempotency-key': 'pay-1' })
    const again = await pay(PAYMENT, { 'idempotency-key': 'pay-1' })
    expect([again.status, again.text, again.headers.get('idempotent-replayed')]).to.deep.equal([201, first.text, 'true'])
    expect((await h.request<{ items: unknown[] }>('GET', '/transactions')).body.items).to.have.length(1)
  })

  it('lists, filters and updates transactions; another account sees none of them', async () => {
    const a = (await pay({ ...PAYMENT, external_identifier: 'order-1' })).body
    const b = (await pay({ ...PAYMENT, amount: 5000, payment_method: { ...CARD, number: '4000000000000002' } })).body
    const list = async (q: string) => (await h.request<{ items: Tx[] }>('GET', `/transactions${q}`)).body.items.map((x) => x.id)
    expect(await list('')).to.have.members([a.id, b.id])
    expect(await list('?status=authorization_declined')).to.deep.equal([b.id])
    expect(await list('?status=authorization_declined,authorization_succeeded')).to.have.members([a.id, b.id])
    expect(await list('?external_identifier=order-1')).to.deep.equal([a.id])
    expect(await list('?amount_gte=2000')).to.deep.equal([b.id])
    const updated = await h.request<Tx>('PUT', `/transactions/${a.id}`, { body: { metadata: { k: 'v' } } })
    expect(updated.body).to.include({ external_identifier: 'order-1' })
    expect(updated.body.metadata).to.deep.equal({ k: 'v' })
    const foreign = await h.request('GET', `/transactions/${a.id}`, { auth: 'acmeAdmin', merchantAccount: 'acme' })
    expect([foreign.status, foreign.body]).to.deep.equal([404, errorBody(404)])
  })

  it('lets an embed token pay within its pins only, and do nothing else', async () => {
    const embed = h.token('admin', { scopes: ['embed'], embedClaim: { amount: 1299, currency: 'USD' } })
    expect((await h.request('POST', '/transactions', { auth: embed, body: PAYMENT })).status).to.equal(201)
    const other = await h.request('POST', '/transactions', { auth: embed, body: { ...PAYMENT, amount: 1300 } })
    expect([other.status, other.body]).to.deep.equal([403, errorBody(403)])
    const t = (await pay()).body
    expect((await h.request('GET', `/transactions/${t.id}`, { auth: embed })).status).to.equal(403)
    expect((await h.request('POST', `/transactions/${t.id}/capture`, { auth: embed })).status).to.equal(403)
  })

  it('answers the original API routes nothing produces yet: empty lists, 404 by id, 400 for unsupported operations', async () => {
    const t = (await pay()).body
    for (const list of ['actions', 'settlements', 'refund-settlements'])
      expect((await h.request('GET', `/transactions/${t.id}/${list}`)).body).to.deep.equal({ items: [] })
    expect((await h.request('GET', `/transactions/${t.id}/settlements/${IDS.defaultBuyer}`)).status).to.equal(404)
    const cancel = await h.request('POST', `/transactions/${t.id}/cancel`)
    expect([cancel.status, cancel.body]).to.deep.equal([
      400,
      failedValidation({
        pointer: '',
        message: 'Canceling a transaction is not supported by the card service Mock cards (mock-card)',
        type: 'unsupported_operation',
      }),
    ])
    expect((await h.request('POST', `/transactions/${t.id}/authorization/increment`)).status).to.equal(400)
    // The sandbox settles every call in its answer: a sync finds nothing more to say and answers the transaction as it is.
    const synced = await h.request('POST', `/transactions/${t.id}/sync`)
    expect([synced.status, synced.body]).to.deep.equal([200, (await h.request('GET', `/transactions/${t.id}`)).body])
    expect((await h.request('POST', `/transactions/${IDS.defaultBuyer}/sync`)).status).to.equal(404)
    expect((await h.request('POST', `/transactions/${IDS.defaultBuyer}/cancel`)).status).to.equal(404)
  })
})
