import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import {
  makeAuthorize,
  makeCheckRateLimit,
  notFound,
  unavailable,
  replayed,
  cardDeclined,
  conflict,
  inFlight,
  invalidInput,
  problem,
  Role,
  ROLE_CATALOGUE,
} from '@orka/domain'
import { createHttpApp, HttpDeps, RequestDone } from '../src'
import { PAYMENT_METHOD_USE_CASES_UNUSED, PAYMENT_SERVICE_USE_CASES_UNUSED, TRANSACTION_USE_CASES_UNUSED } from './support'
import {
  aBuyer,
  aCard,
  CaptureLog,
  catalogueRoles,
  clockAtT0,
  FakeKeys,
  fakeMac,
  fakeMerchantAccounts,
  keyPair,
  listen,
  mint,
  newP521Key,
  pageOf,
  SlidingLogRateLimitStore,
  T0,
  TestKey,
} from './support'

const roles = catalogueRoles
const merchantAccounts = fakeMerchantAccounts('default')

const SUBSCRIPTION_ID = 'ef9496d8-53a5-4aad-8ca2-00eb68334389'
const buyer = aBuyer
const card = aCard
const page = pageOf

const WILD = 'Should never be thrown to a client'
const SECURE_FIELDS = JSON.stringify({ payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/35' } })

describe('createHttpApp (smoke)', () => {
  let key: TestKey
  before(() => {
    key = newP521Key()
  })

  let log: CaptureLog
  let server: { url: string; close(): Promise<void> }
  let behaviour: { rolesThrow: boolean; activation: 'fresh' | 'replay' | 'replayed-decline' | 'in-flight' }
  let activations: { idempotencyKey: string | null }[]
  let rotations: unknown[]
  let deliveryFilters: unknown[]
  let observed: RequestDone[]

  beforeEach(async () => {
    log = new CaptureLog()
    observed = []
    behaviour = { rolesThrow: false, activation: 'fresh' }
    activations = []
    rotations = []
    deliveryFilters = []
    const clock = clockAtT0()
    const deps: HttpDeps = {
      keys: new FakeKeys(keyPair(key), keyPair(newP521Key(), { id: '00000000-0000-4000-8000-000000000002', thumbprint: 'unused' })),
      clock,
      mac: fakeMac,
      log,
      onRequestDone: (r) => observed.push(r),
      config: {
        merchantAccountHeader: 'x-orka-merchant-account-id',
        defaultMerchantAccountId: 'default',
        maxBodyBytes: 1024,
        tokenCacheSize: 10,
      },
      useCases: {
        ...TRANSACTION_USE_CASES_UNUSED,
        ...PAYMENT_METHOD_USE_CASES_UNUSED,
        ...PAYMENT_SERVICE_USE_CASES_UNUSED,
        authorize: makeAuthorize({ merchantAccounts, roles }),
        checkRateLimit: makeCheckRateLimit({ store: new SlidingLogRateLimitStore(), clock, config: { limit: 2, windowS: 60 } }),
        activateGiftCard: (cmd) => {
          activations.push({ idempotencyKey: cmd.idempotencyKey })
          if (behaviour.activation === 'replayed-decline') return TE.left(replayed(cardDeclined('Declined by the gift card service')))
          if (behaviour.activation === 'in-flight') return TE.left(inFlight(1))
          return TE.right({ value: card, replayed: behaviour.activation === 'replay' })
        },
        storeGiftCard: () => TE.right({ value: card, replayed: false }),
        listGiftCards: () => TE.right(page([card])),
        getGiftCard: (q) => TE.left(notFound('GiftCard', q.id)),
        deleteGiftCard: (q) => TE.left(notFound('GiftCard', q.id)),
        checkBalances: () => TE.right({ items: [] }),
        listBuyerGiftCards: () => TE.right({ items: [] }),
        listRoles: () => {
          if (behaviour.rolesThrow) throw new Error(WILD)
          return TE.right(page<Role>([ROLE_CATALOGUE[0]!]))
        },
        createBuyer: () => TE.right(buyer),
        listBuyers: () => TE.right(page([buyer])),
        getBuyer: () => TE.right(buyer),
        updateBuyer: () => TE.right(buyer),
        deleteBuyer: () => TE.right(undefined),
        createWebhookSubscription: () => TE.left(unavailable(new Error('webhook store down'))),
        getWebhookSubscription: (q) => TE.left(notFound('WebhookSubscription', q.id)),
        listWebhookSubscriptions: () => TE.right(page([])),
        deleteWebhookSubscription: (q) => (q.id === SUBSCRIPTION_ID ? TE.right(undefined) : TE.left(notFound('WebhookSubscription', q.id))),
        updateWebhookSubscription: () => TE.left(invalidInput({ path: ['url'], msg: 'webhooks may not be sent to a private address' })),
        rotateWebhookSecret: (q) => {
          rotations.push(q.input)
          return TE.left(notFound('WebhookSubscription', q.id))
        },
        listWebhookDeliveries: (q) => {
          deliveryFilters.push(q.filter)
          return TE.right(page([]))
        },
        redeliverWebhookDelivery: (q) =>
          TE.left(conflict(q.deliveryId, problem('deliveryId', [], 'This delivery is still pending', 'delivery_pending'))),
        createCheckoutSession: () => TE.left(unavailable(new Error('not expected here'))),
        getCheckoutSession: (q) => TE.left(notFound('CheckoutSession', q.id)),
        updateCheckoutSession: (q) => TE.left(notFound('CheckoutSession', q.id)),
        deleteCheckoutSession: (q) => TE.left(notFound('CheckoutSession', q.id)),
        putCheckoutSessionFields: () => TE.right(undefined),
      },
    }
    server = await listen(createHttpApp(deps))
  })
  afterEach(() => server.close())

  const token = (scopes: string[], extra: Record<string, unknown> = {}) => mint(key, { scopes, exp: T0 + 30, ...extra })
  const call = async (method: string, path: string, init: { token?: string; headers?: Record<string, string>; body?: string } = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), ...init.headers },
      ...(init.body === undefined ? {} : { body: init.body }),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, text, json: text === '' ? undefined : (JSON.parse(text) as unknown) }
  }
  const json = { 'content-type': 'application/json' }
  const err = (status: number, code: string, message: string) => ({ type: 'error', code, status, message, details: [] })

  describe('routing', () => {
    it('answers an unknown route with the 404 body, without asking for a token', async () => {
      const r = await call('GET', '/nothing-here')
      expect(r.status).to.equal(404)
      expect(r.json).to.deep.equal(err(404, 'not_found', 'The resource could not be found'))
      expect(r.headers.get('content-type')).to.match(/^application\/json/)
    })

    it('answers a known path with another method with 405 and Allow', async () => {
      const r = await call('PATCH', `/webhook-subscriptions/${SUBSCRIPTION_ID}`)
      expect(r.status).to.equal(405)
      expect(r.json).to.deep.equal(err(405, 'method_not_allowed', 'Method Not Allowed'))
      expect(r.headers.get('allow')).to.equal('GET, HEAD, PUT, DELETE, OPTIONS')
      const post = await call('POST', '/roles')
      expect(post.status).to.equal(405)
      expect(post.headers.get('allow')).to.equal('GET, HEAD, OPTIONS')
    })

    it('answers OPTIONS on a known path with 204 and Allow', async () => {
      const r = await call('OPTIONS', '/buyers')
      expect(r.status).to.equal(204)
      expect(r.text).to.equal('')
      expect(r.headers.get('allow')).to.equal('GET, HEAD, POST, OPTIONS')
    })

    it('answers HEAD on a GET route as the GET without a body', async () => {
      const r = await call('HEAD', '/roles', { token: token(['roles.read']) })
      expect(r.status).to.equal(200)
      expect(r.text).to.equal('')
      expect(r.headers.get('content-type')).to.match(/^application\/json/)
      expect((await call('HEAD', '/roles')).status).to.equal(401)
    })

    it('treats paths as case-sensitive', async () => {
      const r = await call('GET', '/Roles', { token: token(['roles.read']) })
      expect(r.status).to.equal(404)
      expect(r.json).to.deep.equal(err(404, 'not_found', 'The resource could not be found'))
    })

    it('echoes a sane x-request-id and makes one up otherwise', async () => {
      expect((await call('GET', '/nothing', { headers: { 'x-request-id': 'req-42' } })).headers.get('x-request-id')).to.equal('req-42')
      expect((await call('GET', '/nothing', { headers: { 'x-request-id': 'a b; rm' } })).headers.get('x-request-id')).to.match(
        /^[0-9a-f-]{36}$/,
      )
    })
  })

  describe('authentication and authorization', () => {
    it('serves Secure Fields without a token; a token sent anyway is checked: bad is 401, without the scope 403', async () => {
      const path = '/checkout/sessions/0D4BD3B8-1B73-4F1C-8F35-6D3C1F8B9A10/fields'
      expect((await call('PUT', path, { headers: json, body: SECURE_FIELDS })).status).to.equal(204)
      expect((await call('POST', path, { token: token(['embed']), headers: json, body: SECURE_FIELDS })).status).to.equal(204)
      expect((await call('PUT', path, { token: token(['checkout-sessions.write']), headers: json, body: SECURE_FIELDS })).status).to.equal(
        204,
      )
      const bad = await call('PUT', path, { token: `${token(['embed'])}x`, headers: json, body: SECURE_FIELDS })
      expect([bad.status, bad.json, bad.headers.get('www-authenticate')]).to.deep.equal([
        401,
        err(401, 'unauthorized', 'No valid API authentication found'),
        'Bearer',
      ])
      const empty = await call('PUT', path, { headers: { ...json, authorization: '' }, body: SECURE_FIELDS })
      expect(empty.status).to.equal(401)
      const narrow = await call('PUT', path, { token: token(['buyers.read']), headers: json, body: SECURE_FIELDS })
      expect([narrow.status, narrow.json]).to.deep.equal([403, err(403, 'forbidden', 'Generic error')])
      // The other checkout session routes need a token.
      expect((await call('GET', path.replace('/fields', ''))).status).to.equal(401)
      expect((await call('POST', '/checkout/sessions', { headers: json, body: '{}' })).status).to.equal(401)
    })

    it('answers a request without token with the 401 body', async () => {
      const r = await call('GET', '/roles')
      expect(r.status).to.equal(401)
      expect(r.json).to.deep.equal(err(401, 'unauthorized', 'No valid API authentication found'))
      expect(r.headers.get('www-authenticate')).to.equal('Bearer')
    })

    it('answers a token without the route scope with the 403 body', async () => {
      const r = await call('GET', '/roles', { token: token(['buyers.read']) })
      expect(r.status).to.equal(403)
      expect(r.json).to.deep.equal(err(403, 'forbidden', 'Generic error'))
    })

    it('answers an unknown merchant account with the same 403', async () => {
      const r = await call('GET', '/roles', { token: token(['roles.read']), headers: { 'x-orka-merchant-account-id': 'nope' } })
      expect(r.status).to.equal(403)
      expect(r.json).to.deep.equal(err(403, 'forbidden', 'Generic error'))
    })

    it('serves a valid token with the scope', async () => {
      const r = await call('GET', '/roles', { token: token(['roles.read']) })
      expect(r.status).to.equal(200)
      expect(r.json).to.deep.equal({ items: [ROLE_CATALOGUE[0]], limit: 20, next_cursor: null, previous_cursor: null })
    })
  })

  describe('request decoding', () => {
    const buyers = (body: string | undefined, headers: Record<string, string> = json) =>
      call('POST', '/buyers', { token: token(['buyers.write']), headers, ...(body === undefined ? {} : { body }) })

    it('answers a body that is not JSON with 422 json_invalid, echoing nothing', async () => {
      const r = await buyers('{"display_name": 4111111111111111')
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({ detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] })
      expect(r.text).not.to.include('4111')
    })

    it('answers a missing body with 422 missing', async () => {
      const r = await buyers(undefined, {})
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({ detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] })
    })

    it('answers a body that is not sent as JSON with 422', async () => {
      const r = await buyers('display_name=Jo', { 'content-type': 'application/x-www-form-urlencoded' })
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [
          { loc: ['body'], msg: 'Request body must be JSON: send it with Content-Type: application/json', type: 'model_attributes_type' },
        ],
      })
    })

    it('answers a body over the size cap with 422', async () => {
      const r = await buyers(JSON.stringify({ display_name: 'x'.repeat(2000) }))
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({ detail: [{ loc: ['body'], msg: 'Request body must not exceed 1024 bytes', type: 'value_error' }] })
    })

    it('answers a body that fails its codec with the domain violations', async () => {
      const r = await buyers(JSON.stringify({ display_name: '', nickname: 'x' }))
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [
          { loc: ['body', 'nickname'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          {
            loc: ['body', 'display_name'],
            msg: 'String should have at least 1 character',
            type: 'string_too_short',
            input: '',
            ctx: { min_length: 1 },
          },
        ],
      })
    })

    it('creates with 201 and the encoded resource', async () => {
      const r = await buyers(JSON.stringify({ display_name: 'Jo' }))
      expect(r.status).to.equal(201)
      expect(r.json).to.deep.equal(buyer)
    })

    it('answers a path id that is not a UUID with 422 uuid_parsing', async () => {
      const r = await call('GET', '/webhook-subscriptions/not-a-uuid', { token: token(['webhook-subscriptions.read']) })
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [{ loc: ['path', 'subscription_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'not-a-uuid' }],
      })
    })

    it('answers a limit out of range or not a number with 422 on query.limit, ignoring unknown parameters', async () => {
      const zero = await call('GET', '/roles?limit=0&colour=blue', { token: token(['roles.read']) })
      expect(zero.status).to.equal(422)
      expect(zero.json).to.deep.equal({
        detail: [
          {
            loc: ['query', 'limit'],
            msg: 'Input should be greater than or equal to 1',
            type: 'greater_than_equal',
            input: 0,
            ctx: { ge: 1 },
          },
        ],
      })
      const word = await call('GET', '/roles?limit=ten', { token: token(['roles.read']) })
      expect(word.status).to.equal(422)
      expect(word.json).to.deep.equal({
        detail: [{ loc: ['query', 'limit'], msg: 'Input should be a valid integer', type: 'int_type', input: 'ten' }],
      })
    })

    it('answers an empty idempotency-key with 422 on the header', async () => {
      const r = await call('POST', '/gift-cards/activations', {
        token: token(['gift-cards.write']),
        headers: { ...json, 'idempotency-key': '' },
        body: JSON.stringify({ number: '4123456789010001' }),
      })
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [
          {
            loc: ['header', 'idempotency-key'],
            msg: 'String should have at least 1 character',
            type: 'string_too_short',
            input: '',
            ctx: { min_length: 1 },
          },
        ],
      })
      expect(activations).to.deep.equal([])
    })
  })

  describe('responses', () => {
    const activate = (headers: Record<string, string> = {}) =>
      call('POST', '/gift-cards/activations', {
        token: token(['gift-cards.write']),
        headers: { ...json, ...headers },
        body: JSON.stringify({ number: '4123456789010001' }),
      })

    it('activates with 201, forwarding the idempotency key', async () => {
      const r = await activate({ 'idempotency-key': 'k-1' })
      expect(r.status).to.equal(201)
      expect(r.json).to.deep.equal(card)
      expect(r.headers.get('idempotent-replayed')).to.equal(null)
      expect(activations).to.deep.equal([{ idempotencyKey: 'k-1' }])
    })

    it('marks a replay, success or failure, with Idempotent-Replayed', async () => {
      const first = await activate({ 'idempotency-key': 'k-1' })
      behaviour.activation = 'replay'
      const again = await activate({ 'idempotency-key': 'k-1' })
      expect(again.status).to.equal(201)
      expect(again.headers.get('idempotent-replayed')).to.equal('true')
      expect(again.text).to.equal(first.text)
      behaviour.activation = 'replayed-decline'
      const declined = await activate({ 'idempotency-key': 'k-2' })
      expect(declined.status).to.equal(400)
      expect(declined.headers.get('idempotent-replayed')).to.equal('true')
      expect(declined.json).to.deep.equal({
        ...err(400, 'bad_request', 'Generic error'),
        details: [{ location: 'body', pointer: '/number', message: 'Declined by the gift card service', type: 'card_declined' }],
      })
    })

    it('deletes with 204, no body and no content type; an unknown id is 404', async () => {
      const r = await call('DELETE', `/webhook-subscriptions/${SUBSCRIPTION_ID}`, { token: token(['webhook-subscriptions.write']) })
      expect(r.status).to.equal(204)
      expect(r.text).to.equal('')
      expect(r.headers.get('content-type')).to.equal(null)
      const gone = await call('DELETE', '/webhook-subscriptions/0d4bd3b8-1b73-4f1c-8f35-6d3c1f8b9a10', {
        token: token(['webhook-subscriptions.write']),
      })
      expect(gone.status).to.equal(404)
      expect(gone.json).to.deep.equal(err(404, 'not_found', 'The resource could not be found'))
    })

    it('answers a URL the policy refuses with 422 on its body location, echoing nothing', async () => {
      const r = await call('PUT', `/webhook-subscriptions/${SUBSCRIPTION_ID}`, {
        token: token(['webhook-subscriptions.write']),
        headers: json,
        body: JSON.stringify({ url: 'http://10.0.0.1/hook' }),
      })
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [{ loc: ['body', 'url'], msg: 'Value error, webhooks may not be sent to a private address', type: 'value_error' }],
      })
    })

    it('rotates with no body as an empty one, and refuses a delta out of range', async () => {
      const write = token(['webhook-subscriptions.write'])
      const none = await call('POST', `/webhook-subscriptions/${SUBSCRIPTION_ID}/rotate-secret`, { token: write })
      expect(none.status).to.equal(404)
      const some = await call('POST', `/webhook-subscriptions/${SUBSCRIPTION_ID}/rotate-secret`, {
        token: write,
        headers: json,
        body: '{"delta":60}',
      })
      expect(some.status).to.equal(404)
      expect(rotations).to.deep.equal([{}, { delta: 60 }])
      const bad = await call('POST', `/webhook-subscriptions/${SUBSCRIPTION_ID}/rotate-secret`, {
        token: write,
        headers: json,
        body: '{"delta":10081}',
      })
      expect(bad.status).to.equal(422)
      expect((bad.json as { detail: { loc: unknown }[] }).detail.map((d) => d.loc)).to.deep.equal([['body', 'delta']])
      expect(rotations).to.have.length(2)
    })

    it('lists deliveries by status, and refuses an unknown status with 422 on the query', async () => {
      const read = token(['webhook-subscriptions.read'])
      const ok = await call('GET', `/webhook-subscriptions/${SUBSCRIPTION_ID}/deliveries?status=failed`, { token: read })
      expect(ok.status).to.equal(200)
      expect(ok.json).to.deep.equal({ items: [], limit: 20, next_cursor: null, previous_cursor: null })
      const bad = await call('GET', `/webhook-subscriptions/${SUBSCRIPTION_ID}/deliveries?status=lost`, { token: read })
      expect(bad.status).to.equal(422)
      expect((bad.json as { detail: { loc: unknown }[] }).detail.map((d) => d.loc)).to.deep.equal([['query', 'status']])
      expect(deliveryFilters).to.deep.equal([{ status: 'failed' }])
    })

    it('answers a Conflict with the 409 body, its detail and the resource id', async () => {
      const id = '5b0e8f7c-3a9d-4c1e-8f2b-6d7a9c0e1f23'
      const r = await call('POST', `/webhook-subscriptions/${SUBSCRIPTION_ID}/deliveries/${id}/redeliver`, {
        token: token(['webhook-subscriptions.write']),
      })
      expect(r.status).to.equal(409)
      expect(r.json).to.deep.equal({
        ...err(409, 'duplicate_record', 'Generic error'),
        details: [{ location: 'path', pointer: '/delivery_id', message: 'This delivery is still pending', type: 'delivery_pending' }],
        resource_id: id,
      })
    })

    it('answers Unavailable with the 500 body and logs the cause', async () => {
      const r = await call('POST', '/webhook-subscriptions', {
        token: token(['webhook-subscriptions.write']),
        headers: json,
        body: JSON.stringify({ url: 'https://merchant.example/hooks' }),
      })
      expect(r.status).to.equal(500)
      expect(r.json).to.deep.equal(err(500, 'server_error', 'Request could not be processed'))
      const line = log.lines.find((l) => l.level === 'error')
      expect(line?.msg).to.equal('dependency unavailable')
      expect((line?.o.err as { stack: string }).stack).to.include('webhook store down')
    })

    it('turns an exception into the bare 500 body and logs its stack', async () => {
      behaviour.rolesThrow = true
      const r = await call('GET', '/roles', { token: token(['roles.read']) })
      expect(r.status).to.equal(500)
      expect(r.json).to.deep.equal({
        type: 'error',
        code: 'server_error',
        status: 500,
        message: 'Request could not be processed',
        details: [],
      })
      expect(r.text).not.to.include(WILD)
      const line = log.lines.find((l) => l.level === 'error')
      expect(line?.msg).to.equal('unhandled exception')
      expect((line?.o.err as { stack: string }).stack).to.include(WILD)
    })
  })

  describe('request observer (onRequestDone)', () => {
    /** The observer runs when the response is finished, which the client may see a moment before. */
    const observedAfter = async (n: number) => {
      for (let i = 0; i < 100 && observed.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 10))
      return observed.map(({ seconds, ...r }) => {
        expect(seconds).to.be.a('number').and.at.least(0)
        return r
      })
    }
    const plain = { replayed: false, idempotencyConflict: undefined, rateLimited: undefined }

    it('reports each request once: method, route template (never the path), status, replay and rate-limit refusal', async () => {
      behaviour.activation = 'replay'
      const embed = token(['embed'], { jti: 'browser-2' })
      const body = JSON.stringify({ number: '4123456789010001' })
      expect((await call('GET', '/roles', { token: token(['roles.read']) })).status).to.equal(200)
      const sub = await call('GET', `/webhook-subscriptions/${SUBSCRIPTION_ID}`, { token: token(['webhook-subscriptions.read']) })
      expect(sub.status).to.equal(404)
      expect((await call('GET', '/nothing-here/4123456789010001')).status).to.equal(404)
      for (const status of [201, 201, 429])
        expect((await call('POST', '/gift-cards/activations', { token: embed, headers: json, body })).status).to.equal(status)
      expect(await observedAfter(6)).to.deep.equal([
        { ...plain, method: 'GET', route: '/roles', status: 200 },
        { ...plain, method: 'GET', route: '/webhook-subscriptions/{subscription_id}', status: 404 },
        { ...plain, method: 'GET', route: 'unmatched', status: 404 },
        { ...plain, method: 'POST', route: '/gift-cards/activations', status: 201, replayed: true },
        { ...plain, method: 'POST', route: '/gift-cards/activations', status: 201, replayed: true },
        { ...plain, method: 'POST', route: '/gift-cards/activations', status: 429, rateLimited: 'embed' },
      ])
    })

    it('reports a replayed failure as replayed', async () => {
      behaviour.activation = 'replayed-decline'
      const r = await call('POST', '/gift-cards/activations', {
        token: token(['gift-cards.write']),
        headers: { ...json, 'idempotency-key': 'k' },
        body: JSON.stringify({ number: '4123456789010001' }),
      })
      expect(r.status).to.equal(400)
      expect(await observedAfter(1)).to.deep.equal([
        { ...plain, method: 'POST', route: '/gift-cards/activations', status: 400, replayed: true },
      ])
    })

    it('reports a request refused because another with its idempotency key still runs (425)', async () => {
      behaviour.activation = 'in-flight'
      const r = await call('POST', '/gift-cards/activations', {
        token: token(['gift-cards.write']),
        headers: { ...json, 'idempotency-key': 'k' },
        body: JSON.stringify({ number: '4123456789010001' }),
      })
      expect(r.status).to.equal(425)
      expect(await observedAfter(1)).to.deep.equal([
        { ...plain, method: 'POST', route: '/gift-cards/activations', status: 425, idempotencyConflict: 'in_flight' },
      ])
    })
  })

  describe('rate limits', () => {
    it('counts embed tokens on limited routes, sends RateLimit headers, then 429 with Retry-After', async () => {
      const embed = token(['embed'], { jti: 'browser-1' })
      const body = JSON.stringify({ number: '4123456789010001' })
      const first = await call('POST', '/gift-cards/activations', { token: embed, headers: json, body })
      expect(first.status).to.equal(201)
      expect(first.headers.get('ratelimit-policy')).to.equal('"embed";q=2;w=60')
      expect(first.headers.get('ratelimit')).to.equal('"embed";r=1;t=60')
      // A request refused after the limit (here its body is no transaction) still counts.
      const refused = await call('POST', '/transactions', { token: embed, headers: json, body })
      expect(refused.status).to.equal(422)
      expect(refused.headers.get('ratelimit')).to.equal('"embed";r=0;t=60')
      const limited = await call('POST', '/gift-cards/activations', { token: embed, headers: json, body })
      expect(limited.status).to.equal(429)
      expect(limited.json).to.deep.equal(err(429, 'too_many_requests', 'Generic error'))
      expect(limited.headers.get('retry-after')).to.equal('60')
      expect(limited.headers.get('ratelimit-policy')).to.equal('"embed";q=2;w=60')
      expect(activations).to.have.length(1)
    })

    it('never limits a server-to-server token, and sends it no RateLimit headers', async () => {
      for (let i = 0; i < 3; i++) {
        const r = await call('POST', '/gift-cards/activations', {
          token: token(['gift-cards.write']),
          headers: json,
          body: JSON.stringify({ number: '4123456789010001' }),
        })
        expect(r.status).to.equal(201)
        expect(r.headers.get('ratelimit')).to.equal(null)
      }
    })

    it('draws on the quota its operation declares, and only for the routes declaring one', async () => {
      const cases: [string, string, string | null][] = [
        ['POST', '/gift-cards/activations', 'embed'],
        ['POST', '/gift-cards/activations/', 'embed'],
        ['POST', '/gift-cards/balances', 'embed'],
        ['POST', '/gift-cards', 'embed'],
        ['POST', '/transactions/', 'embed'],
        ['POST', '/checkout/sessions/cs_123/fields', 'checkout-session'],
        ['POST', '/checkout/sessions/cs_456/fields/', 'checkout-session'],
        ['GET', '/gift-cards', null],
        ['POST', '/gift-cards/balances/extra', null],
        ['POST', '/gift-card', null],
        ['POST', '/Gift-Cards', null],
        ['POST', '/buyers', null],
        ['GET', '/roles', null],
        ['DELETE', `/webhook-subscriptions/${SUBSCRIPTION_ID}`, null],
        ['GET', '/checkout/sessions/cs_123/fields', null],
        ['POST', '/checkout/sessions//fields', null],
        ['POST', '/checkout/sessions/cs_123', null],
      ]
      for (const [i, [method, path, policy]] of cases.entries()) {
        const body = method === 'POST' ? JSON.stringify({ number: '4123456789010001' }) : undefined
        const r = await call(method, path, {
          token: token(['embed'], { jti: `browser-${i}` }),
          headers: json,
          ...(body === undefined ? {} : { body }),
        })
        expect(r.headers.get('ratelimit-policy'), `${method} ${path}`).to.equal(policy === null ? null : `"${policy}";q=2;w=60`)
      }
    })

    it('keys the Secure Fields quota by the checkout session id, whatever the token or its percent-encoding', async () => {
      const fields = (path: string, jti: string) => call('POST', path, { token: token(['embed'], { jti }), headers: json, body: '{}' })
      expect((await fields('/checkout/sessions/s-1/fields', 'a')).headers.get('ratelimit')).to.equal('"checkout-session";r=1;t=60')
      expect((await fields('/checkout/sessions/s%2D1/fields', 'b')).headers.get('ratelimit')).to.equal('"checkout-session";r=0;t=60')
      expect((await fields('/checkout/sessions/s-1/fields', 'c')).status).to.equal(429)
      expect((await fields('/checkout/sessions/s-2/fields', 'a')).headers.get('ratelimit')).to.equal('"checkout-session";r=1;t=60')
    })

    it('limits Secure Fields without a token by the session id alone, whatever the case of its letters', async () => {
      const session = '0d4bd3b8-1b73-4f1c-8f35-6d3c1f8b9a1f'
      const fields = (id: string) => call('PUT', `/checkout/sessions/${id}/fields`, { headers: json, body: SECURE_FIELDS })
      const first = await fields(session)
      expect([first.status, first.headers.get('ratelimit')]).to.deep.equal([204, '"checkout-session";r=1;t=60'])
      expect((await fields(session.toUpperCase())).status).to.equal(204)
      const over = await call('POST', `/checkout/sessions/${session.replace('d', 'D')}/fields`, { headers: json, body: SECURE_FIELDS })
      expect([over.status, over.json]).to.deep.equal([429, err(429, 'too_many_requests', 'Generic error')])
      // An embed token draws on the same quota; a server-to-server token on none.
      expect(
        (await call('PUT', `/checkout/sessions/${session}/fields`, { token: token(['embed']), headers: json, body: SECURE_FIELDS })).status,
      ).to.equal(429)
      const server = await call('PUT', `/checkout/sessions/${session}/fields`, {
        token: token(['checkout-sessions.write']),
        headers: json,
        body: SECURE_FIELDS,
      })
      expect([server.status, server.headers.get('ratelimit')]).to.deep.equal([204, null])
    })

    it('authenticates limited routes before anything else', async () => {
      const r = await call('POST', '/transactions', { headers: json, body: '{}' })
      expect(r.status).to.equal(401)
      expect(r.json).to.deep.equal(err(401, 'unauthorized', 'No valid API authentication found'))
    })
  })

  describe('access log', () => {
    it('writes one line per request with method, route, status, time and id, and never the token', async () => {
      const t = token(['roles.read'])
      await call('GET', '/roles?cursor=secret-cursor', { token: t, headers: { 'x-request-id': 'req-7' } })
      const access = log.lines.filter((l) => l.msg === 'request')
      expect(access).to.have.length(1)
      const { ms, ...rest } = access[0]!.o
      expect(rest).to.deep.equal({ requestId: 'req-7', method: 'GET', path: '/roles', status: 200 })
      expect(ms).to.be.a('number')
      const all = JSON.stringify(log.lines)
      expect(all).not.to.include(t.split('.')[2]!)
      expect(all).not.to.include('secret-cursor')
    })

    it('masks long digit runs of an unmatched path', async () => {
      await call('GET', '/gift-card/4123456789010001')
      expect(log.lines.find((l) => l.msg === 'request')?.o.path).to.equal('/gift-card/################')
    })
  })
})
