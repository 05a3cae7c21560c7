import { expect } from 'chai'
import { defaultCardServiceId } from '../../src/card-services'
import { Harness, startHarness, UUID_RE } from '../support/harness'

type Json = Record<string, unknown>
const SECRET = 'sk_test_never_shown_5e4d3c2b1a'

const CREATE = {
  display_name: 'Mock card service',
  payment_service_definition_id: 'mock-card',
  accepted_currencies: ['USD'],
  accepted_countries: ['US'],
  fields: [
    { key: 'merchant_id', value: 'test' },
    { key: 'api_key', value: SECRET },
  ],
}

/** A service as `POST /payment-services` answers `CREATE`, the values only Orka knows taken from `s`. */
const expectedService = (s: Json, o: Json = {}): Json => ({
  type: 'payment-service',
  id: s.id,
  merchant_account_id: 'default',
  payment_service_definition_id: 'mock-card',
  active: true,
  method: 'card',
  display_name: 'Mock card service',
  position: 1,
  status: 'created',
  accepted_currencies: ['USD'],
  accepted_countries: ['US'],
  payment_method_tokenization_enabled: false,
  network_tokens_enabled: false,
  open_loop: false,
  settlement_reporting_enabled: false,
  three_d_secure_enabled: false,
  merchant_profile: null,
  webhook_url: null,
  fields: [{ key: 'merchant_id', value: 'test' }],
  reporting_fields: [],
  is_deleted: false,
  created_at: s.created_at,
  updated_at: s.updated_at,
  ...o,
})

const refusal = (pointer: string, message: string, type: string) => ({
  type: 'error',
  code: 'bad_request',
  status: 400,
  message: 'Request failed validation',
  details: [{ location: 'body', pointer, message, type }],
})

describe('payment services over HTTP', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())
  const create = (body: unknown = CREATE) => h.request<Json>('POST', '/payment-services', { body })

  it('creates, reads, lists, updates and deletes a service; the secret field is never in an answer, a log line or the audit log', async () => {
    // After the seed's default service, so that the audit log lists the two in order.
    h.clock.advance(1000)
    const created = await create()
    expect(created.status).to.equal(201)
    expect(created.body.id).to.match(UUID_RE)
    expect(created.body).to.deep.equal(expectedService(created.body))
    const id = String(created.body.id)
    const read = await h.request<Json>('GET', `/payment-services/${id}`)
    expect([read.status, read.body]).to.deep.equal([200, created.body])
    const list = await h.request<Json>('GET', '/payment-services')
    expect(list.status).to.equal(200)
    expect((list.body.items as Json[]).map((s) => [s.id, s.position])).to.deep.equal([
      [defaultCardServiceId('default'), 0],
      [id, 1],
    ])
    h.clock.advance(1000)
    const updated = await h.request<Json>('PUT', `/payment-services/${id}`, {
      body: { display_name: 'Renamed', position: 0, fields: [{ key: 'api_key', value: `${SECRET}-rotated` }] },
    })
    expect([updated.status, updated.body]).to.deep.equal([
      200,
      expectedService(created.body, { display_name: 'Renamed', position: 0, updated_at: h.clock.now().toISOString() }),
    ])
    const verified = await h.request<Json>('POST', '/payment-services/verify', {
      body: { payment_service_definition_id: 'mock-card', payment_service_id: id, fields: [] },
    })
    expect([verified.status, verified.body]).to.deep.equal([200, { verified: true }])
    h.clock.advance(1000)
    const deleted = await h.request('DELETE', `/payment-services/${id}`)
    expect([deleted.status, deleted.text]).to.deep.equal([204, ''])
    for (const [method, path, body] of [
      ['GET', `/payment-services/${id}`, undefined],
      ['PUT', `/payment-services/${id}`, { active: true }],
      ['DELETE', `/payment-services/${id}`, undefined],
      ['POST', `/payment-services/${id}/sessions`, {}],
    ] as const) {
      const gone = await h.request(method, path, { body })
      expect([gone.status, gone.body]).to.deep.equal([
        404,
        { type: 'error', code: 'not_found', status: 404, message: 'The resource could not be found', details: [] },
      ])
    }
    const listedDeleted = await h.request<Json>('GET', '/payment-services?deleted=true')
    expect(listedDeleted.body).to.deep.equal({
      items: [{ ...updated.body, is_deleted: true, updated_at: h.clock.now().toISOString() }],
      limit: 20,
      next_cursor: null,
      previous_cursor: null,
    })
    const audit = await h.request<Json>('GET', '/audit-logs?resource_type=payment-service')
    expect((audit.body.items as Json[]).map((e) => [e.action, e.changes, (e.resource as Json).name])).to.deep.equal([
      ['deleted', undefined, 'Renamed'],
      ['updated', ['display_name', 'position', 'fields.api_key'], 'Renamed'],
      ['created', undefined, 'Mock card service'],
      // The seed's default service, created through the same use case at start.
      ['created', undefined, 'Mock cards'],
    ])
    const everything = [created, read, list, updated, verified, listedDeleted, audit].map((r) => r.text).join('\n') + h.logs.join('')
    expect(everything).to.not.include(SECRET)
  })

  it('refuses bad input with a clear 4xx naming it, never echoing a secret, and stores nothing', async () => {
    const before = await h.request<Json>('GET', '/payment-services')
    const cases: [unknown, number, Json][] = [
      [
        { ...CREATE, payment_service_definition_id: 'paypal-card' },
        400,
        refusal(
          '/payment_service_definition_id',
          "Orka has no connector 'paypal-card' (it has: mock-card, stripe-card, adyen-card)",
          'unknown_payment_service_definition',
        ),
      ],
      [
        { ...CREATE, fields: [{ key: 'secret_key', value: SECRET }] },
        400,
        refusal('/fields/0/key', "mock-card has no field 'secret_key' (it has: merchant_id, api_key, mode)", 'unknown_field'),
      ],
      [
        { ...CREATE, fields: [{ key: 'mode', value: 'sideways' }] },
        400,
        refusal('/fields/0/value', "mode 'sideways' is not one of: down, timeout", 'invalid_field_value'),
      ],
      [
        { ...CREATE, fields: [...CREATE.fields, { key: 'api_key', value: SECRET }] },
        400,
        refusal('/fields/2/key', "The field 'api_key' is sent twice", 'duplicate_field'),
      ],
      [
        { ...CREATE, three_d_secure_enabled: true },
        400,
        refusal('/three_d_secure_enabled', '`three_d_secure_enabled` is not supported', 'unsupported'),
      ],
    ]
    for (const [body, status, answer] of cases) {
      const r = await create(body)
      expect([r.status, r.body]).to.deep.equal([status, answer])
      expect(r.text).to.not.include(SECRET)
    }
    const unprocessable: unknown[] = [
      { ...CREATE, accepted_currencies: ['usd'] },
      { ...CREATE, accepted_countries: ['XX1'] },
      { ...CREATE, position: 1000 },
      { ...CREATE, position: -1 },
      { ...CREATE, fields: [{ key: 'api_key', value: 'x'.repeat(4097) }] },
      { ...CREATE, display_name: '' },
      { ...CREATE, unknown: 1 },
    ]
    for (const body of unprocessable) {
      const r = await create(body)
      expect(r.status, JSON.stringify(r.body)).to.equal(422)
      expect((r.body as { detail: unknown[] }).detail).to.have.length(1)
    }
    const r = await create({ ...CREATE, fields: [{ key: 'api_key', value: `${SECRET}\u0000` }] })
    expect(r.text).to.not.include(SECRET)
    expect((await h.request<Json>('GET', '/payment-services')).body).to.deep.equal(before.body)
    expect(h.logs.join('')).to.not.include(SECRET)
  })

  it("answers another account's service as a 404 on every route", async () => {
    const created = await create()
    const id = String(created.body.id)
    for (const [method, path, body] of [
      ['GET', `/payment-services/${id}`, undefined],
      ['PUT', `/payment-services/${id}`, { active: false }],
      ['DELETE', `/payment-services/${id}`, undefined],
      ['POST', `/payment-services/${id}/sessions`, {}],
      ['POST', '/payment-services/verify', { payment_service_definition_id: 'mock-card', payment_service_id: id, fields: [] }],
    ] as const) {
      const r = await h.request(method, path, { body, auth: 'acmeAdmin', merchantAccount: 'acme' })
      expect([method, path, r.status]).to.deep.equal([method, path, 404])
    }
    expect((await h.request<Json>('GET', `/payment-services/${id}`)).body).to.deep.equal(created.body)
  })

  it('gives an embed token a 403 on every route but payment options', async () => {
    const embed = h.token('admin', { scopes: ['embed'] })
    const id = defaultCardServiceId('default')
    const routes: [string, string, unknown][] = [
      ['GET', '/payment-services', undefined],
      ['POST', '/payment-services', CREATE],
      ['GET', `/payment-services/${id}`, undefined],
      ['PUT', `/payment-services/${id}`, { active: false }],
      ['DELETE', `/payment-services/${id}`, undefined],
      ['POST', '/payment-services/verify', { payment_service_definition_id: 'mock-card', fields: [] }],
      ['POST', `/payment-services/${id}/sessions`, {}],
      ['GET', '/payment-service-definitions', undefined],
      ['GET', '/payment-service-definitions/mock-card', undefined],
      ['POST', '/payment-service-definitions/mock-card/sessions', {}],
      ['GET', '/card-scheme-definitions', undefined],
    ]
    for (const [method, path, body] of routes) {
      const r = await h.request(method, path, { body, auth: embed })
      expect([method, path, r.status, (r.body as Json).code]).to.deep.equal([method, path, 403, 'forbidden'])
    }
    const options = await h.request<Json>('POST', '/payment-options', { body: { currency: 'USD', amount: 1299 }, auth: embed })
    expect(options.status).to.equal(200)
    expect((options.body.items as Json[]).map((o) => o.method)).to.deep.equal(['card', 'gift-card'])
    // Nothing was changed by the refused calls.
    expect((await h.request<Json>('GET', `/payment-services/${id}`)).body.active).to.equal(true)
  })

  it('verify: 200 with a JSON body when the connector accepts, a 400 naming the field when it refuses, a 504 when it does not answer', async () => {
    const verify = (fields: unknown[]) =>
      h.request<Json>('POST', '/payment-services/verify', { body: { payment_service_definition_id: 'mock-card', fields } })
    expect((await verify([{ key: 'merchant_id', value: 'test' }])).body).to.deep.equal({ verified: true })
    const refused = await verify([{ key: 'api_key', value: 'sk_refused' }])
    expect([refused.status, refused.body]).to.deep.equal([
      400,
      refusal('/fields/0/value', 'api_key: The service refused the API key', 'credentials_refused'),
    ])
    const down = await verify([{ key: 'mode', value: 'down' }])
    expect(down.status).to.equal(502)
    const silent = await verify([{ key: 'mode', value: 'timeout' }])
    expect(silent.status).to.equal(504)
    const unknown = await h.request<Json>('POST', '/payment-services/verify', {
      body: { payment_service_definition_id: 'nope', fields: [] },
    })
    expect([unknown.status, unknown.body]).to.deep.equal([
      400,
      refusal(
        '/payment_service_definition_id',
        "Orka has no connector 'nope' (it has: mock-card, stripe-card, adyen-card)",
        'unknown_payment_service_definition',
      ),
    ])
  })

  it('payment options follow the services: none for a currency no active service takes', async () => {
    const options = async (body: Json) =>
      ((await h.request<Json>('POST', '/payment-options', { body })).body.items as Json[]).map((o) => o.method)
    expect(await options({ currency: 'USD', country: 'US' })).to.deep.equal(['card', 'gift-card'])
    await h.request('PUT', `/payment-services/${defaultCardServiceId('default')}`, { body: { accepted_currencies: ['EUR'] } })
    expect(await options({ currency: 'USD', country: 'US' })).to.deep.equal(['gift-card'])
    expect(await options({ currency: 'EUR' })).to.deep.equal(['card', 'gift-card'])
    const empty = await h.request<Json>('POST', '/payment-options', { rawBody: '' })
    expect(empty.status).to.equal(200)
  })

  it('a service created, reordered, deactivated and deleted by API changes where the next payment goes', async () => {
    const pay = async () => {
      const r = await h.request<Json>('POST', '/transactions', {
        body: {
          amount: 1299,
          currency: 'USD',
          payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '123' },
        },
      })
      expect(r.status, JSON.stringify(r.body)).to.equal(201)
      return [r.body.status, (r.body.payment_service as Json).id]
    }
    const first = defaultCardServiceId('default')
    const down = await create({ ...CREATE, display_name: 'Down', position: 0, fields: [{ key: 'mode', value: 'down' }] })
    const backup = await create({ ...CREATE, display_name: 'Backup', position: 5, fields: [] })
    const [downId, backupId] = [String(down.body.id), String(backup.body.id)]
    // Ties on position: the oldest first; the down service fails over to the next.
    expect(await pay()).to.deep.equal(['authorization_succeeded', first])
    await h.request('PUT', `/payment-services/${first}`, { body: { active: false } })
    expect(await pay()).to.deep.equal(['authorization_succeeded', backupId])
    await h.request('PUT', `/payment-services/${backupId}`, { body: { position: 0 } })
    await h.request('PUT', `/payment-services/${downId}`, { body: { position: 1 } })
    expect(await pay()).to.deep.equal(['authorization_succeeded', backupId])
    await h.request('DELETE', `/payment-services/${backupId}`)
    const failed = await pay()
    expect(failed[0]).to.equal('authorization_failed')
    await h.request('PUT', `/payment-services/${downId}`, { body: { fields: [{ key: 'mode', value: '' }] } })
    expect(await pay()).to.deep.equal(['authorization_succeeded', downId])
  })

  it('definitions, sessions and card schemes', async () => {
    const definitions = await h.request<Json>('GET', '/payment-service-definitions?limit=1')
    expect(definitions.status).to.equal(200)
    expect((definitions.body.items as Json[]).map((d) => d.id)).to.deep.equal(['adyen-card'])
    expect(definitions.body.next_cursor).to.not.equal(null)
    const missing = await h.request<Json>('GET', '/payment-service-definitions/paypal-card')
    expect(missing.status).to.equal(404)
    const session = await h.request<Json>('POST', '/payment-service-definitions/mock-card/sessions', { body: {} })
    expect([session.status, session.body]).to.deep.equal([
      400,
      refusal('', "mock-card opens no sessions: sessions are for wallets, which no connector of Orka's has", 'unsupported'),
    ])
    const noDefinition = await h.request<Json>('POST', '/payment-service-definitions/paypal-card/sessions', { body: {} })
    expect(noDefinition.status).to.equal(404)
    const schemes = await h.request<Json>('GET', '/card-scheme-definitions')
    expect(schemes.status).to.equal(200)
    expect(
      (schemes.body.items as Json[]).every(
        (s) => s.type === 'card-scheme-definition' && String(s.icon_url).startsWith('data:image/svg+xml,'),
      ),
    ).to.equal(true)
  })
})
