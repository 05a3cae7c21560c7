import { expect } from 'chai'
import createClient, { Client } from 'openapi-fetch'
import { errorBody, Harness, startHarness, UUID_RE } from '../support/harness'
import type { components, paths } from './orka-api'

type Schemas = components['schemas']

const NUMBER = '5555555555554444'

/** The checkout session routes through the client typed from Orka's own document (see typed-client.spec.ts). */
describe('checkout sessions through the client typed from /openapi.json (openapi-fetch)', () => {
  let h: Harness
  let api: Client<paths>
  /** The same client, sending no token: Secure Fields need none. */
  let browser: Client<paths>

  before(async () => {
    h = await startHarness()
    api = createClient<paths>({ baseUrl: h.url })
    api.use({
      onRequest: ({ request }) => {
        request.headers.set('authorization', `Bearer ${h.token('admin')}`)
        return request
      },
    })
    browser = createClient<paths>({ baseUrl: h.url })
  })
  after(() => h.close())

  it('POST, PUT, GET and DELETE /checkout/sessions: 201, 200, 200, 204, then 404', async () => {
    const created = await api.POST('/checkout/sessions', { body: { amount: 1000, currency: 'EUR', metadata: { order: 'o-1' } } })
    expect(created.response.status).to.equal(201)
    const session = created.data
    if (session === undefined) return expect.fail('no session')
    expect(session.id).to.match(UUID_RE)
    const expected: Schemas['CheckoutSession'] = {
      type: 'checkout-session',
      id: session.id,
      expires_at: new Date(h.clock.now().getTime() + 3_600_000).toISOString(),
      cart_items: null,
      metadata: { order: 'o-1' },
      buyer: null,
      amount: 1000,
      currency: 'EUR',
      payment_service_id: null,
      airline: null,
      payment_method: null,
    }
    expect(session).to.deep.equal(expected)
    const path = { params: { path: { session_id: session.id } } }
    const updated = await api.PUT('/checkout/sessions/{session_id}', { ...path, body: { amount: 1200, metadata: null } })
    expect([updated.response.status, updated.data]).to.deep.equal([200, { ...expected, amount: 1200, metadata: null }])
    const read = await api.GET('/checkout/sessions/{session_id}', path)
    expect([read.response.status, read.data]).to.deep.equal([200, updated.data])
    const deleted = await api.DELETE('/checkout/sessions/{session_id}', path)
    expect(deleted.response.status).to.equal(204)
    const gone = await api.GET('/checkout/sessions/{session_id}', path)
    const notFound: Schemas['Error404'] = {
      type: 'error',
      code: 'not_found',
      status: 404,
      message: 'The resource could not be found',
      details: [],
    }
    expect([gone.response.status, gone.error]).to.deep.equal([404, notFound])
  })

  it('PUT and POST /checkout/sessions/{session_id}/fields without a token: 204, and the card as far as it is shown', async () => {
    const session = (await api.POST('/checkout/sessions', {})).data
    if (session === undefined) return expect.fail('no session')
    const path = { params: { path: { session_id: session.id } } }
    const body: Schemas['CheckoutSessionFieldsUpdate'] = {
      payment_method: { method: 'card', number: NUMBER, expiration_date: '01/30', security_code: '123' },
    }
    for (const r of [
      await browser.PUT('/checkout/sessions/{session_id}/fields', { ...path, body }),
      await browser.POST('/checkout/sessions/{session_id}/fields', { ...path, body }),
    ])
      expect(r.response.status).to.equal(204)
    const read = await api.GET('/checkout/sessions/{session_id}', path)
    expect(read.data?.payment_method).to.deep.include({
      method: 'card',
      label: '4444',
      scheme: 'mastercard',
      details: { bin: '555555', card_type: null },
    })
    expect(JSON.stringify(read.data)).not.to.include(NUMBER)
    expect(h.logs.join('\n')).not.to.include(NUMBER)
  })

  it('400 for a field Orka does not support, typed as Error400', async () => {
    const r = await api.POST('/checkout/sessions', { body: { buyer: { display_name: 'Ada', shipping_details: { first_name: 'Ada' } } } })
    const detail = { location: 'body', pointer: '/buyer/shipping_details', message: '`buyer.shipping_details` is not supported' }
    expect([r.response.status, r.error]).to.deep.equal([400, errorBody(400, [{ ...detail, type: 'not_supported' }])])
  })
})
