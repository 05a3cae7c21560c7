import { expect } from 'chai'
import { errorBody, Harness, Resource, startHarness, UUID_RE, ValidationErrorBody } from '../support/harness'
import { emptySession } from './checkout-session-support'

type Session = Resource & { readonly expires_at: string; readonly payment_method: unknown }

const UNKNOWN = '99999999-9999-4999-8999-999999999999'
const HOUR = 3_600_000

const FULL = {
  amount: 1299,
  currency: 'USD',
  metadata: { order: 'o-1', 'a.b': 'dotted' },
  cart_items: [{ name: 'Joust Duffle Bag', quantity: 1, unit_amount: 1299, product_type: 'physical' }],
  buyer: { display_name: 'Ada Lovelace', billing_details: { first_name: 'Ada', address: { country: 'GB' } } },
  payment_service_id: '0d4bd3b8-1b73-4f1c-8f35-6d3c1f8b9a10',
  expires_in: 7200,
}

describe('checkout sessions', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())
  const inFromNow = (ms: number) => new Date(h.clock.now().getTime() + ms).toISOString()
  const create = async (body?: unknown, merchantAccount?: string) => {
    const r = await h.request<Session>('POST', '/checkout/sessions', {
      ...(body === undefined ? {} : { body }),
      ...(merchantAccount ? { merchantAccount } : {}),
    })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }

  describe('POST /checkout/sessions', () => {
    it('creates an empty session from no body, an empty body sent as JSON, and {}; each expires in an hour', async () => {
      const none = await h.request<Session>('POST', '/checkout/sessions')
      const empty = await h.request<Session>('POST', '/checkout/sessions', { rawBody: '' })
      const braces = await h.request<Session>('POST', '/checkout/sessions', { body: {} })
      for (const r of [none, empty, braces]) {
        expect(r.status).to.equal(201)
        expect(r.body.id).to.match(UUID_RE)
        expect(r.body).to.deep.equal(emptySession(r.body.id, inFromNow(HOUR)))
      }
      expect(new Set([none.body.id, empty.body.id, braces.body.id]).size).to.equal(3)
    })

    it('keeps what it is given, expiring expires_in seconds from now', async () => {
      const r = await h.request<Session>('POST', '/checkout/sessions', { body: FULL })
      const shown = Object.fromEntries(Object.entries(FULL).filter(([k]) => k !== 'expires_in'))
      expect([r.status, r.body]).to.deep.equal([201, emptySession(r.body.id, inFromNow(2 * HOUR), shown)])
    })

    it('is open to embed tokens, which cannot read sessions', async () => {
      const embed = h.token('admin', { scopes: ['embed'] })
      const r = await h.request<Session>('POST', '/checkout/sessions', { auth: embed })
      expect(r.status).to.equal(201)
      const read = await h.request('GET', `/checkout/sessions/${r.body.id}`, { auth: embed })
      expect([read.status, read.body]).to.deep.equal([403, errorBody(403)])
    })

    it('refuses expires_in out of 3600-86400, unknown properties and a body that is not JSON with 422, creating nothing', async () => {
      for (const [body, loc, type] of [
        [{ expires_in: 3599 }, ['body', 'expires_in'], 'greater_than_equal'],
        [{ expires_in: 86401 }, ['body', 'expires_in'], 'less_than_equal'],
        [{ amount: -1 }, ['body', 'amount'], 'greater_than_equal'],
        [{ currency: 'XYZ' }, ['body', 'currency'], 'value_error'],
        [{ colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
      ] as const) {
        const r = await h.request<ValidationErrorBody>('POST', '/checkout/sessions', { body })
        expect(r.status, JSON.stringify(body)).to.equal(422)
        expect(r.body.detail.map((d) => [d.loc, d.type])).to.deep.equal([[loc, type]])
      }
      const r = await h.request<ValidationErrorBody>('POST', '/checkout/sessions', { rawBody: '{"amount":' })
      expect([r.status, r.body.detail.map((d) => d.type)]).to.deep.equal([422, ['json_invalid']])
    })

    it("refuses a buyer's shipping_details and airline data with 400 naming each as not supported", async () => {
      const r = await h.request('POST', '/checkout/sessions', {
        body: { buyer: { display_name: 'Ada', shipping_details: { first_name: 'Ada' } }, airline: { passenger_name_record: 'X' } },
      })
      expect([r.status, r.body]).to.deep.equal([
        400,
        errorBody(400, [
          { location: 'body', pointer: '/airline', message: '`airline` is not supported', type: 'not_supported' },
          {
            location: 'body',
            pointer: '/buyer/shipping_details',
            message: '`buyer.shipping_details` is not supported',
            type: 'not_supported',
          },
        ]),
      ])
      // null means "not used": accepted.
      expect(
        (await h.request('POST', '/checkout/sessions', { body: { airline: null, buyer: { shipping_details: null } } })).status,
      ).to.equal(201)
    })
  })

  describe('GET, PUT and DELETE /checkout/sessions/{session_id}', () => {
    it('reads a session, by its id in any case', async () => {
      const s = await create(FULL)
      for (const id of [s.id, s.id.toUpperCase()]) {
        const r = await h.request('GET', `/checkout/sessions/${id}`)
        expect([r.status, r.body]).to.deep.equal([200, s])
      }
    })

    it('merges an update: the fields given replace (null clears), the others stay; expires_in moves expires_at from now', async () => {
      const s = await create(FULL)
      h.clock.advance(60_000)
      const r = await h.request('PUT', `/checkout/sessions/${s.id}`, {
        body: { metadata: { order: 'o-2' }, currency: null, expires_in: 3600 },
      })
      const expected = { ...s, metadata: { order: 'o-2' }, currency: null, expires_at: inFromNow(HOUR) }
      expect([r.status, r.body]).to.deep.equal([200, expected])
      expect((await h.request('GET', `/checkout/sessions/${s.id}`)).body).to.deep.equal(expected)
      const same = await h.request('PUT', `/checkout/sessions/${s.id}`, { body: {} })
      expect([same.status, same.body]).to.deep.equal([200, expected])
    })

    it('deletes for good: 204 with no body, then 404 on read, update and a second delete', async () => {
      const s = await create()
      const del = await h.request('DELETE', `/checkout/sessions/${s.id}`)
      expect([del.status, del.text, del.headers.get('content-type')]).to.deep.equal([204, '', null])
      for (const [method, body] of [['GET'], ['PUT', {}], ['DELETE']] as const) {
        const r = await h.request(method, `/checkout/sessions/${s.id}`, body === undefined ? {} : { body })
        expect([method, r.status, r.body]).to.deep.equal([method, 404, errorBody(404)])
      }
    })

    it("answers 404 for an unknown, an expired and another merchant account's session, changing nothing", async () => {
      const theirs = await create({ amount: 5 }, 'acme')
      for (const [method, body] of [['GET'], ['PUT', { amount: 6 }], ['DELETE']] as const)
        for (const id of [theirs.id, UNKNOWN]) {
          const r = await h.request(method, `/checkout/sessions/${id}`, body === undefined ? {} : { body })
          expect([method, r.status, r.body]).to.deep.equal([method, 404, errorBody(404)])
        }
      expect((await h.request('GET', `/checkout/sessions/${theirs.id}`, { merchantAccount: 'acme' })).body).to.deep.equal(theirs)
      const short = await create()
      h.clock.advance(HOUR - 1)
      expect((await h.request('GET', `/checkout/sessions/${short.id}`)).status).to.equal(200)
      h.clock.advance(1)
      expect((await h.request('GET', `/checkout/sessions/${short.id}`)).body).to.deep.equal(errorBody(404))
    })

    it('refuses a path id that is not a UUID with 422, and an update that breaks the schema', async () => {
      const r = await h.request<ValidationErrorBody>('GET', '/checkout/sessions/not-a-uuid')
      expect([r.status, r.body]).to.deep.equal([
        422,
        { detail: [{ loc: ['path', 'session_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid' }] },
      ])
      const s = await create()
      const bad = await h.request<ValidationErrorBody>('PUT', `/checkout/sessions/${s.id}`, { body: { expires_in: 60 } })
      expect([bad.status, bad.body.detail.map((d) => d.loc)]).to.deep.equal([422, [['body', 'expires_in']]])
      const unsupported = await h.request('PUT', `/checkout/sessions/${s.id}`, { body: { buyer: { shipping_details: {} } } })
      expect(unsupported.status).to.equal(400)
    })
  })

  describe('tokens and scopes', () => {
    it('needs a token (401) holding checkout-sessions.read or .write (403) on every route but the fields', async () => {
      const s = await create()
      const routes = [
        ['POST', '/checkout/sessions', 'checkout-sessions.write'],
        ['GET', `/checkout/sessions/${s.id}`, 'checkout-sessions.read'],
        ['PUT', `/checkout/sessions/${s.id}`, 'checkout-sessions.write'],
        ['DELETE', `/checkout/sessions/${s.id}`, 'checkout-sessions.write'],
      ] as const
      for (const [method, path, scope] of routes) {
        const body = method === 'POST' || method === 'PUT' ? { body: {} } : {}
        const none = await h.request(method, path, { auth: null, ...body })
        expect([method, none.status, none.body, none.headers.get('www-authenticate')]).to.deep.equal([
          method,
          401,
          errorBody(401),
          'Bearer',
        ])
        const other = scope.endsWith('read') ? 'checkout-sessions.write' : 'checkout-sessions.read'
        const narrow = await h.request(method, path, { auth: h.token('admin', { scopes: [other, 'buyers.read'] }), ...body })
        expect([method, narrow.status, narrow.body]).to.deep.equal([method, 403, errorBody(403)])
        const wildcard = scope.endsWith('read') ? '*.read' : '*.write'
        const ok = await h.request(method, path, { auth: h.token('admin', { scopes: [wildcard] }), ...body })
        expect(ok.status, `${method} ${path}`).to.be.oneOf([200, 201, 204])
      }
    })

    it('lets the read-only role read sessions but not create them (restricted API key)', async () => {
      const s = await create()
      const read = await h.request('GET', `/checkout/sessions/${s.id}`, { auth: h.token('readOnly', { scopes: ['*.read'] }) })
      expect(read.status).to.equal(200)
      const write = await h.request('POST', '/checkout/sessions', { auth: h.token('readOnly', { scopes: ['checkout-sessions.write'] }) })
      expect([write.status, write.body]).to.deep.equal([403, errorBody(403)])
    })
  })
})
