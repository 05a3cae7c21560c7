import { expect } from 'chai'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import createClient, { Client } from 'openapi-fetch'
import { defaultCardServiceId } from '../../src/card-services'
import { errorBody, Harness, startHarness, UUID_RE } from '../support/harness'
import { JsonSchema, OpenApiDoc } from '../support/openapi'
import type { components, paths } from './orka-api'

type Schemas = components['schemas']

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '123' } as const

/**
 * The transaction routes through the client typed from Orka's own document (see
 * typed-client.spec.ts): every call's path, parameters, body and answer are checked by tsc
 * against `orka-api.ts`, and every answer is also validated at run time against the schema the
 * served document gives its operation and status (Ajv), so a body the types would accept only by
 * luck fails here.
 */
describe('transactions through the client typed from /openapi.json (openapi-fetch)', () => {
  let h: Harness
  let api: Client<paths>
  /** Answers that do not match their documented schema, and how many did. */
  const mismatches: string[] = []
  let validated = 0

  before(async () => {
    h = await startHarness()
    const doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as OpenApiDoc
    // Every `#/components/schemas/X` made absolute, so that each response schema compiles on its own.
    const DOC = 'urn:orka:openapi'
    const abs = JSON.parse(JSON.stringify(doc).replace(/"#\/components\/schemas\//g, `"${DOC}#/$defs/`)) as OpenApiDoc
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    addFormats(ajv)
    ajv.addSchema({ $id: DOC, $defs: abs.components.schemas })
    api = createClient<paths>({ baseUrl: h.url })
    api.use({
      onRequest: ({ request }) => {
        request.headers.set('authorization', `Bearer ${h.token('admin')}`)
        return request
      },
      onResponse: async ({ schemaPath, request, response }) => {
        const what = `${request.method} ${schemaPath} → ${response.status}`
        const schema: JsonSchema | undefined =
          abs.paths[schemaPath]?.[request.method.toLowerCase()]?.responses[String(response.status)]?.content?.['application/json']?.schema
        const text = await response.clone().text()
        if (schema === undefined) {
          if (text !== '') mismatches.push(`${what}: documented without a body, sent ${text}`)
          return
        }
        const validate = ajv.compile(schema)
        if (validate(JSON.parse(text))) validated++
        else mismatches.push(`${what}: ${ajv.errorsText(validate.errors)}`)
      },
    })
  })
  after(() => h.close())
  afterEach(() => {
    expect(mismatches, mismatches.join('\n')).to.deep.equal([])
  })

  const now = () => h.clock.now().toISOString()
  /** The Transaction an approved payment of `CARD` at `now` answers, with what only Orka knows taken from `t`. */
  const expected = (t: Schemas['Transaction'], o: Partial<Schemas['Transaction']> = {}): Schemas['Transaction'] => ({
    type: 'transaction',
    id: t.id,
    reconciliation_id: t.reconciliation_id,
    merchant_account_id: 'default',
    currency: 'EUR',
    amount: 2500,
    status: 'authorization_succeeded',
    authorized_amount: 2500,
    captured_amount: 0,
    refunded_amount: 0,
    settled_currency: null,
    settled_amount: 0,
    settled: false,
    country: null,
    external_identifier: 'typed-1',
    intent: 'authorize',
    payment_method: {
      type: 'payment-method',
      method: 'card',
      id: null,
      label: '1111',
      scheme: 'visa',
      expiration_date: '12/35',
      fingerprint: t.payment_method?.fingerprint ?? null,
      details: { bin: '411111', card_type: null },
      country: null,
      currency: null,
      external_identifier: null,
    },
    method: 'card',
    instrument_type: 'pan',
    error_code: null,
    payment_service: {
      type: 'payment-service',
      id: defaultCardServiceId('default'),
      payment_service_definition_id: 'mock-card',
      method: 'card',
      display_name: 'Mock cards',
    },
    pending_review: false,
    buyer: null,
    raw_response_code: '00',
    raw_response_description: 'Approved',
    checkout_session_id: null,
    reauthorized_from_transaction_id: null,
    gift_card_redemptions: [],
    created_at: now(),
    updated_at: now(),
    disputed: false,
    payment_source: 'ecommerce',
    merchant_initiated: false,
    is_subsequent_payment: false,
    intent_outcome: 'succeeded',
    multi_tender: false,
    account_funding_transaction: false,
    auth_response_code: t.auth_response_code ?? null,
    avs_response_code: null,
    cvv_response_code: 'match',
    cart_items: null,
    payment_service_transaction_id: t.payment_service_transaction_id ?? null,
    metadata: { order: 'o-1' },
    authorized_at: now(),
    captured_at: null,
    voided_at: null,
    ...o,
  })

  const pay = async (body: Partial<Schemas['TransactionCreate']> = {}) => {
    const r = await api.POST('/transactions', {
      body: { amount: 2500, currency: 'EUR', external_identifier: 'typed-1', metadata: { order: 'o-1' }, payment_method: CARD, ...body },
    })
    expect(r.response.status).to.equal(201)
    return r.data ?? expect.fail('no transaction')
  }
  const at = (t: { id: string }) => ({ params: { path: { transaction_id: t.id } } })

  it('POST, GET, PUT and GET /transactions (filtered): 201, 200, 200, then the page holding its summary', async () => {
    const t = await pay()
    expect(t.id).to.match(UUID_RE)
    expect(t).to.deep.equal(expected(t))
    const read = await api.GET('/transactions/{transaction_id}', at(t))
    expect([read.response.status, read.data]).to.deep.equal([200, t])
    const updated = await api.PUT('/transactions/{transaction_id}', { ...at(t), body: { external_identifier: 'typed-2', metadata: null } })
    expect([updated.response.status, updated.data]).to.deep.equal([200, expected(t, { external_identifier: 'typed-2', metadata: null })])

    const page = await api.GET('/transactions', {
      params: {
        query: { status: ['authorization_declined', 'authorization_succeeded'], external_identifier: 'typed-2', currency: ['EUR'] },
      },
    })
    const full = updated.data ?? expect.fail('no update')
    const summary: Schemas['TransactionSummary'] = Object.fromEntries(
      Object.entries(full).filter(([k]) => !DETAILS.includes(k)),
    ) as Schemas['TransactionSummary']
    expect([page.response.status, page.data]).to.deep.equal([
      200,
      { items: [summary], limit: 20, next_cursor: null, previous_cursor: null },
    ])
    const none = await api.GET('/transactions', { params: { query: { status: ['capture_succeeded'], external_identifier: 'typed-2' } } })
    expect(none.data?.items).to.deep.equal([])
  })

  it('capture (part, as a TransactionCapture), refunds (part, then the rest) and every read of captures, refunds and events', async () => {
    const t = await pay()
    const capture = await api.POST('/transactions/{transaction_id}/capture', {
      ...at(t),
      body: { amount: 2000 },
      headers: { prefer: 'resource=transaction-capture' },
    })
    const captured = expected(t, { status: 'capture_succeeded', captured_amount: 2000, captured_at: now() })
    const wrapper = capture.data
    if (wrapper?.type !== 'transaction-capture') return expect.fail(`not a TransactionCapture: ${JSON.stringify(wrapper)}`)
    const outcome = { status: 'succeeded', code: null, raw_response_code: '00', raw_response_description: 'Approved' } as const
    const answer: Schemas['TransactionCapture'] = {
      type: 'transaction-capture',
      ...outcome,
      transaction: captured,
      capture_id: wrapper.capture_id,
      payment_service_capture_id: wrapper.payment_service_capture_id,
    }
    expect(wrapper.payment_service_capture_id, "the card service's id of the capture").to.match(UUID_RE)
    expect(wrapper).to.deep.equal(answer)

    const captures = await api.GET('/transactions/{transaction_id}/captures', at(t))
    const [one] = captures.data?.items ?? []
    if (one === undefined) return expect.fail('no capture listed')
    expect(one).to.deep.include({ id: wrapper.capture_id, type: 'capture', amount: 2000, status: 'succeeded', final: true })
    const read = await api.GET('/transactions/{transaction_id}/captures/{capture_id}', {
      params: { path: { transaction_id: t.id, capture_id: one.id } },
    })
    expect([read.response.status, read.data]).to.deep.equal([200, one])

    const part = await api.POST('/transactions/{transaction_id}/refunds', { ...at(t), body: { amount: 500, reason: 'damaged' } })
    const refund = part.data ?? expect.fail('no refund')
    const expectedRefund: Schemas['Refund'] = {
      ...refund,
      type: 'refund',
      transaction_id: t.id,
      status: 'succeeded',
      currency: 'EUR',
      amount: 500,
      reason: 'damaged',
      target_type: 'payment-method',
      transaction_reconciliation_id: t.reconciliation_id,
      transaction_external_identifier: 'typed-1',
      created_at: now(),
      updated_at: now(),
    }
    expect([part.response.status, refund]).to.deep.equal([201, expectedRefund])
    const rest = await api.POST('/transactions/{transaction_id}/refunds/all', { ...at(t), body: { reason: 'rest' } })
    expect([rest.response.status, rest.data?.items.map((r) => [r.amount, r.status, r.reason])]).to.deep.equal([
      201,
      [[1500, 'succeeded', 'rest']],
    ])
    const refunds = await api.GET('/transactions/{transaction_id}/refunds', at(t))
    expect(refunds.data).to.deep.equal({ items: [refund, ...(rest.data?.items ?? [])] })
    const path = { params: { path: { transaction_id: t.id, refund_id: refund.id } } }
    expect((await api.GET('/transactions/{transaction_id}/refunds/{refund_id}', path)).data).to.deep.equal(refund)
    expect((await api.GET('/refunds/{refund_id}', { params: { path: { refund_id: refund.id } } })).data).to.deep.equal(refund)
    const after = await api.GET('/transactions/{transaction_id}', at(t))
    expect(after.data).to.deep.equal({ ...captured, refunded_amount: 2000 })

    const events = await api.GET('/transactions/{transaction_id}/events', {
      params: { path: { transaction_id: t.id }, query: { limit: 50 } },
    })
    expect(events.data?.items.map((e) => e.name)).to.deep.equal([
      'transaction-api-request',
      'transaction-event',
      'payment-connector-response-transaction-authorization-succeeded',
      'transaction-updated-status',
      'transaction-event',
      'payment-connector-response-transaction-capture-succeeded',
      'transaction-updated-status',
      'transaction-event',
      'refund-succeeded',
      'transaction-event',
      'refund-succeeded',
    ])
    expect([events.data?.limit, events.data?.next_cursor]).to.deep.equal([50, null])
    expect(validated).to.be.greaterThan(10)
  })

  it('void (as a TransactionVoid), then the 409, 400 and 404 errors typed as the document says', async () => {
    const t = await pay()
    const voided = await api.POST('/transactions/{transaction_id}/void', { ...at(t), headers: { prefer: 'resource=transaction-void' } })
    const released = expected(t, { status: 'authorization_voided', voided_at: now() })
    const answer: Schemas['TransactionVoid'] = {
      type: 'transaction-void',
      status: 'succeeded',
      code: null,
      raw_response_code: '00',
      raw_response_description: 'Approved',
      transaction: released,
    }
    expect([voided.response.status, voided.data]).to.deep.equal([200, answer])

    const again = await api.POST('/transactions/{transaction_id}/capture', at(t))
    const conflict: Schemas['Error409'] = {
      ...errorBody(409, [
        {
          location: 'unknown',
          pointer: '',
          message: 'A transaction in status authorization voided cannot be captured: only an authorized one can',
          type: 'invalid_transaction_status',
        },
      ]),
      resource_id: t.id,
    } as Schemas['Error409']
    expect([again.response.status, again.error]).to.deep.equal([409, conflict])

    // `store: true` keeps the card for the transaction's buyer: with none named, it is a 400 on `store`.
    const stored = await api.POST('/transactions', { body: { amount: 100, currency: 'EUR', store: true, payment_method: CARD } })
    const buyerRequired = {
      location: 'body',
      pointer: '/store',
      message: '`store: true` needs a buyer: `buyer_id` or `buyer_external_identifier`',
      type: 'buyer_required',
    }
    expect([stored.response.status, stored.error]).to.deep.equal([
      400,
      { ...errorBody(400, [buyerRequired]), message: 'Request failed validation' },
    ])

    const missing = await api.GET('/transactions/{transaction_id}', {
      params: { path: { transaction_id: '0f5e4c2a-1111-4222-8333-444455556666' } },
    })
    expect([missing.response.status, missing.error]).to.deep.equal([404, errorBody(404)])
  })
})

/** What a TransactionSummary leaves out of a Transaction. */
const DETAILS: readonly string[] = [
  'payment_source',
  'merchant_initiated',
  'is_subsequent_payment',
  'intent_outcome',
  'multi_tender',
  'account_funding_transaction',
  'auth_response_code',
  'avs_response_code',
  'cvv_response_code',
  'cart_items',
  'payment_service_transaction_id',
  'metadata',
  'authorized_at',
  'captured_at',
  'voided_at',
] satisfies readonly Exclude<keyof Schemas['Transaction'], keyof Schemas['TransactionSummary']>[]
