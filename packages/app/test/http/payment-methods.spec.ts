import { expect } from 'chai'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { errorBody, Harness, IDS, Page, recordedResponses, Resource, startHarness, UUID_RE, ValidationErrorBody } from '../support/harness'
import { OpenApiDoc } from '../support/openapi'
import { eventually, quietFor, Receiver, startReceiver } from '../support/receiver'
import { WEBHOOK_TEST_ENV } from '../webhooks/delivery.suite'
import { methodBody, summaryOf, withCheckDigit } from './payment-method-support'

type Json = Record<string, unknown>

/** A PaymentMethod as the API shows it; the tests compare whole bodies, reading only these. */
interface PaymentMethod extends Resource {
  readonly status: string
  readonly fingerprint: string
  readonly expiration_date: string
  readonly created_at: string
  readonly updated_at: string
  readonly buyer: Resource | null
}

// Four digits, matched as a whole word: a shorter run turns up inside timestamps.
const CVV = '7319'
const MISSING = '99999999-9999-4999-8999-999999999999'
const FINGERPRINT = /^[A-Za-z0-9_-]{43}$/

describe('payment methods (cards on file) over HTTP (embedded store)', () => {
  let h: Harness
  let seenFrom: number
  /** Every card number a test of this suite sent: none may be in any response or log line. */
  const sent = new Set<string>()
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())
  beforeEach(() => {
    seenFrom = recordedResponses.length
  })
  afterEach(() => {
    const answers = recordedResponses
      .slice(seenFrom)
      .map((r) => r.text)
      .join('\n')
    for (const secret of sent) {
      const word = new RegExp(`\\b${secret}\\b`)
      expect(answers, `a response carries ${secret}`).not.to.match(word)
      expect(h.logs.join('\n'), `the log carries ${secret}`).not.to.match(word)
    }
    // The code as a JSON string: four digits alone can turn up as a group of a UUID.
    expect(answers, 'a response carries the security code').not.to.include(`"${CVV}"`)
    expect(h.logs.join('\n'), 'the log carries the security code').not.to.include(`"${CVV}"`)
  })

  let n = 0
  /** A Visa number no other test stores (Luhn-valid, approved by the mock card service). */
  const fresh = () => {
    const number = withCheckDigit(`41${String(2_000_000_000_000 + n++).padStart(13, '0')}`)
    sent.add(number)
    return number
  }
  const card = (number = fresh(), o: Json = {}) => ({ method: 'card', number, expiration_date: '12/30', security_code: CVV, ...o })
  const now = () => h.clock.now().toISOString()
  const store = <T = PaymentMethod>(
    body: unknown,
    o: { merchantAccount?: string; auth?: string | null; headers?: Record<string, string> } = {},
  ) => h.request<T>('POST', '/payment-methods', { body, ...o })
  const stored = async (body: Json = card(), merchantAccount?: string) => {
    const r = await store(body, merchantAccount === undefined ? {} : { merchantAccount })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }
  const newBuyer = async (external: string, merchantAccount?: string) => {
    const r = await h.request<Resource>('POST', '/buyers', {
      body: { display_name: 'Grace Hopper', external_identifier: external },
      ...(merchantAccount === undefined ? {} : { merchantAccount }),
    })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }
  const buyerView = async (id: string) => (await h.request<Resource>('GET', `/buyers/${id}`)).body
  const embedFor = (claim?: Record<string, string>) =>
    h.token('admin', { scopes: ['embed'], ...(claim === undefined ? {} : { embedClaim: claim }) })

  /** The PaymentMethod a card stored at `now` is, for no buyer: its id and fingerprint from the answer. */
  const expected = (m: PaymentMethod, number: string, o: Json = {}): Json => methodBody(m, number, now(), o)

  describe('POST /payment-methods', () => {
    it('stores a card for no buyer: 201 with exactly the PaymentMethod properties, never the number or the security code', async () => {
      const number = fresh()
      const r = await store(card(number))
      expect(r.status).to.equal(201)
      expect(r.body.id).to.match(UUID_RE)
      expect(r.body.fingerprint).to.match(FINGERPRINT)
      expect(r.body).to.deep.equal(expected(r.body, number))
      expect(r.headers.get('idempotent-replayed')).to.equal(null)
      expect(r.text).not.to.include(number).and.not.to.include(number.slice(-12)).and.not.to.include(`"${CVV}"`)
      const read = await h.request<PaymentMethod>('GET', `/payment-methods/${r.body.id}`)
      expect([read.status, read.body]).to.deep.equal([200, r.body])
    })

    it('stores for a buyer named by id or by external identifier, with an external_identifier of its own', async () => {
      const ada = await buyerView(IDS.defaultBuyer)
      const byId = fresh()
      const r = await store(card(byId, { buyer_id: IDS.defaultBuyer, external_identifier: 'card-of-ada' }))
      expect(r.status).to.equal(201)
      expect(r.body).to.deep.equal(expected(r.body, byId, { buyer: ada, external_identifier: 'card-of-ada' }))
      const byExternal = fresh()
      const ext = await store(card(byExternal, { buyer_external_identifier: 'buyer-1' }))
      expect(ext.status).to.equal(201)
      expect(ext.body).to.deep.equal(expected(ext.body, byExternal, { buyer: ada }))
    })

    it('answers 422 for a malformed card or body, without echoing the number, the expiry or the code', async () => {
      const number = fresh()
      const cases: [Json, unknown][] = [
        [
          { number: `${number.slice(0, -1)}${(Number(number.slice(-1)) + 1) % 10}` },
          {
            loc: ['body', 'number'],
            msg: 'Value error, number is not a valid card number (its check digit is wrong)',
            type: 'value_error',
          },
        ],
        [
          { number: withCheckDigit('41111111111') },
          {
            loc: ['body', 'number'],
            msg: "String should match pattern '^\\d{13,19}$'",
            type: 'string_pattern_mismatch',
            ctx: { pattern: '^\\d{13,19}$' },
          },
        ],
        ...['13/30', '12/2030', '1/30', '12-30'].map((expiration_date): [Json, unknown] => [
          { expiration_date },
          {
            loc: ['body', 'expiration_date'],
            msg: "String should match pattern '^(0[1-9]|1[0-2])\\/\\d{2}$'",
            type: 'string_pattern_mismatch',
            ctx: { pattern: '^(0[1-9]|1[0-2])\\/\\d{2}$' },
          },
        ]),
        ...['12', '12345', 'abc'].map((security_code): [Json, unknown] => [
          { security_code },
          {
            loc: ['body', 'security_code'],
            msg: "String should match pattern '^\\d{3,4}$'",
            type: 'string_pattern_mismatch',
            ctx: { pattern: '^\\d{3,4}$' },
          },
        ]),
        [
          { method: 'paypal' },
          {
            loc: ['body', 'method'],
            msg: "Input should be 'card', 'checkout-session'",
            type: 'enum',
            input: 'paypal',
            ctx: { expected: 'card, checkout-session' },
          },
        ],
        [{ cvv: '123' }, { loc: ['body', 'cvv'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
        [
          { buyer_id: IDS.defaultBuyer, buyer_external_identifier: 'buyer-1' },
          {
            loc: ['body', 'buyer_external_identifier'],
            msg: 'Value error, `buyer_id` and `buyer_external_identifier` must not both be set',
            type: 'value_error',
            input: 'buyer-1',
          },
        ],
      ]
      for (const [o, violation] of cases) {
        const r = await store<ValidationErrorBody>(card(number, o))
        expect([o, r.status, r.body]).to.deep.equal([o, 422, { detail: [violation] }])
        expect(r.text).not.to.include(number)
      }
      const missing = await store<ValidationErrorBody>({ method: 'card', expiration_date: '12/30' })
      expect([missing.status, missing.body]).to.deep.equal([
        422,
        { detail: [{ loc: ['body', 'number'], msg: 'Field required', type: 'missing' }] },
      ])
      const sessionExtra = await store<ValidationErrorBody>({ method: 'checkout-session', id: MISSING, number })
      expect([sessionExtra.status, sessionExtra.body]).to.deep.equal([
        422,
        { detail: [{ loc: ['body', 'number'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] },
      ])
      expect(sessionExtra.text).not.to.include(number)
      // Nothing was stored.
      const all = await h.request<Page<PaymentMethod>>('GET', '/payment-methods?limit=100')
      expect(all.body.items.map((m) => m.label)).not.to.include(number.slice(-4))
    })

    it('answers 400 on expiration_date for a card past its expiry month, and keeps nothing', async () => {
      const now = h.clock.now()
      const last = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1))
      const lastMonth = `${String(last.getUTCMonth() + 1).padStart(2, '0')}/${String(last.getUTCFullYear() % 100).padStart(2, '0')}`
      const thisMonth = `${String(now.getUTCMonth() + 1).padStart(2, '0')}/${String(now.getUTCFullYear() % 100).padStart(2, '0')}`
      const number = fresh()
      for (const expiration_date of [lastMonth, '01/20']) {
        const r = await store(card(number, { expiration_date }))
        expect([r.status, r.body]).to.deep.equal([
          400,
          {
            ...errorBody(400, [{ location: 'body', pointer: '/expiration_date', message: 'The card has expired', type: 'expired_card' }]),
            message: 'Request failed validation',
          },
        ])
        expect(r.text).not.to.include(expiration_date)
      }
      // A card expires at the end of its month.
      const current = await store(card(number, { expiration_date: thisMonth }))
      expect(current.status).to.equal(201)
      expect(current.body.expiration_date).to.equal(thisMonth)
    })

    it('answers 404 naming the field for an unknown buyer, or one of another account', async () => {
      for (const buyer_id of [MISSING, IDS.acmeBuyer]) {
        const r = await store(card(fresh(), { buyer_id }))
        expect([r.status, r.body]).to.deep.equal([
          404,
          errorBody(404, [
            {
              location: 'body',
              pointer: '/buyer_id',
              message: 'No buyer with this id exists in this merchant account',
              type: 'unknown_buyer',
            },
          ]),
        ])
      }
      const r = await store(card(fresh(), { buyer_external_identifier: 'nobody' }))
      expect([r.status, r.body]).to.deep.equal([
        404,
        errorBody(404, [
          {
            location: 'body',
            pointer: '/buyer_external_identifier',
            message: 'No buyer with this external identifier exists in this merchant account',
            type: 'unknown_buyer',
          },
        ]),
      ])
    })

    it('answers the same card stored again for the same buyer with that method (201), its expiry renewed only by a later one', async () => {
      const b = await newBuyer('same-card')
      const view = await buyerView(b.id)
      const number = fresh()
      const first = await stored(card(number, { buyer_id: b.id }))
      h.clock.advance(60_000)
      // The same card, sent again with another code and the buyer named otherwise: the same method, unchanged.
      const again = await store(card(number, { buyer_external_identifier: 'same-card', security_code: '987' }))
      expect([again.status, again.body]).to.deep.equal([201, first])
      // An earlier expiry is not taken.
      const earlier = await store(card(number, { buyer_id: b.id, expiration_date: '11/30' }))
      expect([earlier.status, earlier.body]).to.deep.equal([201, first])
      // A later expiry renews the card: same id, the new expiry, updated now.
      const renewed = await store(card(number, { buyer_id: b.id, expiration_date: '03/31' }))
      expect(renewed.status).to.equal(201)
      expect(renewed.body).to.deep.equal({ ...first, expiration_date: '03/31', updated_at: now() })
      expect(first.buyer).to.deep.equal(view)
      expect((await h.request('GET', `/payment-methods/${first.id}`)).body).to.deep.equal(renewed.body)
      // Another buyer, no buyer, another account: other methods, with the same fingerprint in the account.
      const ada = await stored(card(number, { buyer_id: IDS.defaultBuyer }))
      const nobody = await stored(card(number))
      const acme = await stored(card(number), 'acme')
      expect(new Set([first.id, ada.id, nobody.id, acme.id]).size).to.equal(4)
      expect([ada.fingerprint, nobody.fingerprint]).to.deep.equal([first.fingerprint, first.fingerprint])
      const mine = await h.request<Page<PaymentMethod>>('GET', `/payment-methods?buyer_id=${b.id}`)
      expect(mine.body.items).to.deep.equal([renewed.body])
    })

    it('replays the stored method for the same idempotency key and body, and refuses the key with another body', async () => {
      const body = card()
      const headers = { 'idempotency-key': 'pm-store-key-1' }
      const first = await store(body, { headers })
      expect(first.status).to.equal(201)
      h.clock.advance(1000)
      const again = await store(body, { headers })
      expect([again.status, again.body, again.headers.get('idempotent-replayed')]).to.deep.equal([201, first.body, 'true'])
      const other = await store(card(), { headers })
      expect([other.status, other.body]).to.deep.equal([
        400,
        errorBody(400, [
          {
            location: 'header',
            pointer: '/idempotency-key',
            message: 'This idempotency key was already used with a different request body',
            type: 'idempotency_key_reused',
          },
        ]),
      ])
      // A refusal is not recorded: the key serves the request once it can succeed.
      const refusedKey = { 'idempotency-key': 'pm-store-key-2' }
      const unknownBuyer = card(fresh(), { buyer_external_identifier: 'late-pm-buyer' })
      expect((await store(unknownBuyer, { headers: refusedKey })).status).to.equal(404)
      await newBuyer('late-pm-buyer')
      const later = await store(unknownBuyer, { headers: refusedKey })
      expect([later.status, later.headers.get('idempotent-replayed')]).to.deep.equal([201, null])
    })

    it('stores the card a checkout session holds, which the session gives up; a session without one is a 400 on id', async () => {
      const number = fresh()
      const session = (await h.request<Resource>('POST', '/checkout/sessions')).body
      const put = await h.request('PUT', `/checkout/sessions/${session.id}/fields`, {
        auth: null,
        body: { payment_method: { method: 'card', number, expiration_date: '10/31', security_code: CVV } },
      })
      expect(put.status).to.equal(204)
      const r = await store({ method: 'checkout-session', id: session.id.toUpperCase(), buyer_id: IDS.defaultBuyer })
      expect(r.status, r.text).to.equal(201)
      expect(r.body).to.deep.equal(expected(r.body, number, { expiration_date: '10/31', buyer: await buyerView(IDS.defaultBuyer) }))
      const noCard = errorBody(400, [
        { location: 'body', pointer: '/id', message: 'No live checkout session with this id holds a card to store', type: 'no_card_data' },
      ])
      for (const id of [session.id, MISSING]) {
        const again = await store({ method: 'checkout-session', id })
        expect([again.status, again.body]).to.deep.equal([400, { ...noCard, message: 'Request failed validation' }])
      }
    })

    it('answers 401 without a token and 403 without payment-methods.write', async () => {
      const none = await store(card(), { auth: null })
      expect([none.status, none.body, none.headers.get('www-authenticate')]).to.deep.equal([401, errorBody(401), 'Bearer'])
      for (const scopes of [['payment-methods.read'], ['gift-cards.write'], ['*.read']]) {
        const r = await store(card(), { auth: h.token('admin', { scopes }) })
        expect([scopes, r.status, r.body]).to.deep.equal([scopes, 403, errorBody(403)])
      }
      expect((await store(card(), { auth: h.token('admin', { scopes: ['payment-methods.write'] }) })).status).to.equal(201)
      expect((await store(card(), { auth: 'readOnly' })).status).to.equal(403)
    })

    it('lets an embed token store for no buyer or its own, rate limited; another or an unknown buyer is a 403', async () => {
      const b = await newBuyer('pm-embed-writer')
      const token = embedFor({ buyer_id: b.id })
      const free = await store(card(), { auth: token })
      expect([free.status, free.body.buyer]).to.deep.equal([201, null])
      expect(free.headers.get('ratelimit-policy')).to.equal('"embed";q=50;w=60')
      expect(free.headers.get('ratelimit')).to.match(/^"embed";r=49;/)
      const own = await store(card(fresh(), { buyer_external_identifier: 'pm-embed-writer' }), { auth: token })
      expect([own.status, own.body.buyer?.id]).to.deep.equal([201, b.id])
      expect(own.headers.get('ratelimit')).to.match(/^"embed";r=48;/)
      for (const [auth, buyer] of [
        [token, { buyer_id: IDS.defaultBuyer }],
        [token, { buyer_external_identifier: 'no-such-buyer' }],
        [embedFor(), { buyer_id: b.id }],
      ] as const) {
        const r = await store(card(fresh(), buyer), { auth })
        expect([buyer, r.status, r.body]).to.deep.equal([buyer, 403, errorBody(403)])
      }
      // A server's request is not drawn from any quota.
      expect((await store(card())).headers.get('ratelimit')).to.equal(null)
    })
  })

  describe('GET /payment-methods', () => {
    it('lists the account newest first, page by page, with cursors bound to the filters and the account', async () => {
      const b = await newBuyer('pm-pages')
      const methods: PaymentMethod[] = []
      for (let i = 0; i < 3; i++) {
        h.clock.advance(1000)
        methods.push(await stored(card(fresh(), { buyer_id: b.id })))
      }
      const first = await h.request<Page<PaymentMethod>>('GET', `/payment-methods?limit=2&buyer_id=${b.id}`)
      expect(first.status).to.equal(200)
      expect(first.body).to.deep.equal({
        items: [methods[2], methods[1]],
        limit: 2,
        next_cursor: first.body.next_cursor,
        previous_cursor: null,
      })
      expect(first.body.next_cursor).to.be.a('string')
      const next = await h.request<Page<PaymentMethod>>('GET', `/payment-methods?limit=2&buyer_id=${b.id}&cursor=${first.body.next_cursor}`)
      expect(next.status).to.equal(200)
      expect(next.body.items).to.deep.equal([methods[0]])
      expect(next.body.next_cursor).to.equal(null)
      const invalidCursor = {
        ...errorBody(400, [
          {
            location: 'query',
            pointer: '/cursor',
            message: 'The cursor is not valid for this list; use a cursor from the previous response',
            type: 'invalid_cursor',
          },
        ]),
      }
      for (const [q, account] of [
        [`buyer_id=${b.id}&status=succeeded`, undefined],
        ['', undefined],
        [`buyer_id=${b.id}`, 'acme'],
      ] as const) {
        const r = await h.request(
          'GET',
          `/payment-methods?limit=2&${q}&cursor=${first.body.next_cursor}`,
          account ? { merchantAccount: account } : {},
        )
        expect([q, account, r.status, r.body]).to.deep.equal([q, account, 400, invalidCursor])
      }
    })

    it('filters by buyer (id or external identifier), status (repeated or comma-separated) and external_identifier', async () => {
      const b = await newBuyer('pm-filters')
      h.clock.advance(1000)
      const kept = await stored(card(fresh(), { buyer_id: b.id, external_identifier: 'pm-ext-1' }))
      h.clock.advance(1000)
      // A card declined by the payment that kept it: `failed`.
      const declined = '4000000000000002'
      sent.add(declined)
      const tx = await h.request<Resource & { payment_method: Resource }>('POST', '/transactions', {
        body: { amount: 100, currency: 'USD', store: true, buyer_id: b.id, payment_method: card(declined) },
      })
      expect([tx.status, tx.body.status]).to.deep.equal([201, 'authorization_declined'])
      const failed = (await h.request<PaymentMethod>('GET', `/payment-methods/${tx.body.payment_method.id}`)).body
      expect(failed.status).to.equal('failed')
      const list = async (q: string) => {
        const r = await h.request<Page<PaymentMethod>>('GET', `/payment-methods?${q}`)
        expect(r.status, `${q}: ${r.text}`).to.equal(200)
        return r.body.items
      }
      expect(await list(`buyer_id=${b.id}`)).to.deep.equal([failed, kept])
      expect(await list(`buyer_id=${b.id.toUpperCase()}`)).to.deep.equal([failed, kept])
      expect(await list('buyer_external_identifier=pm-filters')).to.deep.equal([failed, kept])
      expect(await list(`buyer_id=${b.id}&buyer_external_identifier=pm-filters`)).to.deep.equal([failed, kept])
      expect(await list(`buyer_id=${b.id}&buyer_external_identifier=buyer-1`)).to.deep.equal([])
      expect(await list('buyer_external_identifier=nobody')).to.deep.equal([])
      expect(await list(`buyer_id=${b.id}&status=failed`)).to.deep.equal([failed])
      expect(await list(`buyer_id=${b.id}&status=succeeded`)).to.deep.equal([kept])
      expect(await list(`buyer_id=${b.id}&status=succeeded,failed`)).to.deep.equal([failed, kept])
      expect(await list(`buyer_id=${b.id}&status=processing&status=failed`)).to.deep.equal([failed])
      expect(await list('external_identifier=pm-ext-1')).to.deep.equal([kept])
      expect(await list(`external_identifier=pm-ext-1&status=failed`)).to.deep.equal([])
      const all = await list('status=failed&limit=100')
      expect(all.every((m) => m.status === 'failed')).to.equal(true)
    })

    it('answers 422 for a malformed filter, 403 to an embed token naming no buyer or a token without payment-methods.read', async () => {
      for (const [q, loc, type] of [
        ['buyer_id=not-a-uuid', ['query', 'buyer_id'], 'uuid_parsing'],
        ['status=done', ['query', 'status', 0], 'enum'],
        ['status=failed,', ['query', 'status', 1], 'enum'],
        ['limit=0', ['query', 'limit'], 'greater_than_equal'],
        [`external_identifier=${'x'.repeat(201)}`, ['query', 'external_identifier'], 'string_too_long'],
      ] as const) {
        const r = await h.request<ValidationErrorBody>('GET', `/payment-methods?${q}`)
        expect([q, r.status, r.body.detail.map((d) => [d.loc, d.type])]).to.deep.equal([q, 422, [[loc, type]]])
      }
      for (const auth of [
        embedFor(),
        h.token('admin', { scopes: ['payment-methods.write'] }),
        h.token('admin', { scopes: ['gift-cards.read'] }),
      ]) {
        const r = await h.request('GET', '/payment-methods', { auth })
        expect([r.status, r.body]).to.deep.equal([403, errorBody(403)])
      }
      const none = await h.request('GET', '/payment-methods', { auth: null })
      expect([none.status, none.body]).to.deep.equal([401, errorBody(401)])
      expect((await h.request('GET', '/payment-methods', { auth: 'readOnly' })).status).to.equal(200)
    })
  })

  describe('GET, PUT and DELETE /payment-methods/{payment_method_id}', () => {
    it("answers 404 for an unknown method and for another account's; 422 for an id that is not a UUID", async () => {
      const theirs = await stored(card(), 'acme')
      for (const id of [MISSING, theirs.id]) {
        for (const [method, body] of [
          ['GET', undefined],
          ['PUT', { external_identifier: 'x' }],
          ['DELETE', undefined],
        ] as const) {
          const r = await h.request(method, `/payment-methods/${id}`, body === undefined ? {} : { body })
          expect([method, id, r.status, r.body]).to.deep.equal([method, id, 404, errorBody(404)])
        }
      }
      const ok = await h.request<PaymentMethod>('GET', `/payment-methods/${theirs.id.toUpperCase()}`, { merchantAccount: 'acme' })
      expect([ok.status, ok.body]).to.deep.equal([200, theirs])
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const r = await h.request<ValidationErrorBody>(method, '/payment-methods/not-a-uuid', method === 'PUT' ? { body: {} } : {})
        expect([method, r.status, r.body.detail.map((d) => d.loc)]).to.deep.equal([method, 422, [['path', 'payment_method_id']]])
      }
    })

    it('changes what the body names (absent: as it was; null: cleared) and moves updated_at', async () => {
      const number = fresh()
      const m = await stored(card(number, { external_identifier: 'before' }))
      h.clock.advance(5000)
      const put = (body: unknown) => h.request<PaymentMethod>('PUT', `/payment-methods/${m.id}`, { body })
      const r = await put({
        expiration_date: '07/32',
        scheme_transaction_id: 'sti-1',
        scheme_transaction_id_scheme: 'visa',
        transaction_link_id: 'link-1',
      })
      const changed = {
        ...m,
        expiration_date: '07/32',
        scheme_transaction_id: 'sti-1',
        scheme_transaction_id_scheme: 'visa',
        transaction_link_id: 'link-1',
        updated_at: now(),
      }
      expect([r.status, r.body]).to.deep.equal([200, changed])
      h.clock.advance(5000)
      const cleared = await put({ external_identifier: null, scheme_transaction_id: null })
      expect([cleared.status, cleared.body]).to.deep.equal([
        200,
        { ...changed, external_identifier: null, scheme_transaction_id: null, updated_at: now() },
      ])
      expect((await h.request('GET', `/payment-methods/${m.id}`)).body).to.deep.equal(cleared.body)
      // A past expiry is kept (a payment refuses it); the card cannot lose its expiry.
      const past = await put({ expiration_date: '01/20' })
      expect([past.status, past.body.expiration_date]).to.deep.equal([200, '01/20'])
      for (const [body, loc, type] of [
        [{ expiration_date: null }, ['body', 'expiration_date'], 'string_type'],
        [{ expiration_date: '2032-07' }, ['body', 'expiration_date'], 'string_pattern_mismatch'],
        [{ number }, ['body', 'number'], 'extra_forbidden'],
        [{ scheme_transaction_id_scheme: 'bank' }, ['body', 'scheme_transaction_id_scheme'], 'enum'],
        [{ external_identifier: '' }, ['body', 'external_identifier'], 'string_too_short'],
      ] as const) {
        const bad = await h.request<ValidationErrorBody>('PUT', `/payment-methods/${m.id}`, { body })
        expect([body, bad.status, bad.body.detail.map((d) => [d.loc, d.type])]).to.deep.equal([body, 422, [[loc, type]]])
      }
      const ro = await h.request('PUT', `/payment-methods/${m.id}`, {
        auth: h.token('admin', { scopes: ['payment-methods.read'] }),
        body: {},
      })
      expect([ro.status, ro.body]).to.deep.equal([403, errorBody(403)])
    })

    it('deletes a method: 204, then 404 to every read, write and second delete; the card stored again is a new method', async () => {
      const number = fresh()
      const m = await stored(card(number, { buyer_id: IDS.defaultBuyer }))
      const r = await h.request('DELETE', `/payment-methods/${m.id}`)
      expect([r.status, r.text]).to.deep.equal([204, ''])
      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { external_identifier: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const again = await h.request(method, `/payment-methods/${m.id}`, body === undefined ? {} : { body })
        expect([method, again.status, again.body]).to.deep.equal([method, 404, errorBody(404)])
      }
      const listed = await h.request<Page<PaymentMethod>>('GET', `/payment-methods?buyer_id=${IDS.defaultBuyer}&limit=100`)
      expect(listed.body.items.map((x) => x.id)).not.to.include(m.id)
      const anew = await stored(card(number, { buyer_id: IDS.defaultBuyer }))
      expect(anew.id).not.to.equal(m.id)
      const ro = await h.request('DELETE', `/payment-methods/${anew.id}`, { auth: h.token('admin', { scopes: ['payment-methods.read'] }) })
      expect([ro.status, ro.body]).to.deep.equal([403, errorBody(403)])
      expect((await h.request('GET', `/payment-methods/${anew.id}`)).status).to.equal(200)
    })

    it("lets an embed token read, change and delete only its buyer's methods: another's is a 404, naming no buyer a 403", async () => {
      const b = await newBuyer('pm-embed-reader')
      const mine = await stored(card(fresh(), { buyer_id: b.id }))
      const adas = await stored(card(fresh(), { buyer_id: IDS.defaultBuyer }))
      const nobodys = await stored(card())
      const token = embedFor({ buyer_external_identifier: 'pm-embed-reader' })
      const listed = await h.request<Page<PaymentMethod>>('GET', '/payment-methods', { auth: token })
      expect([listed.status, listed.body]).to.deep.equal([200, { items: [mine], limit: 20, next_cursor: null, previous_cursor: null }])
      const filtered = await h.request<Page<PaymentMethod>>('GET', `/payment-methods?buyer_id=${IDS.defaultBuyer}`, { auth: token })
      expect(filtered.body).to.deep.equal({ items: [], limit: 20, next_cursor: null, previous_cursor: null })
      expect((await h.request('GET', `/payment-methods/${mine.id}`, { auth: token })).body).to.deep.equal(mine)
      for (const other of [adas, nobodys]) {
        for (const [method, body] of [
          ['GET', undefined],
          ['PUT', { external_identifier: 'taken' }],
          ['DELETE', undefined],
        ] as const) {
          const r = await h.request(method, `/payment-methods/${other.id}`, { auth: token, ...(body === undefined ? {} : { body }) })
          expect([method, r.status, r.body]).to.deep.equal([method, 404, errorBody(404)])
        }
        expect((await h.request('GET', `/payment-methods/${other.id}`)).body).to.deep.equal(other)
      }
      h.clock.advance(1000)
      const changed = await h.request<PaymentMethod>('PUT', `/payment-methods/${mine.id}`, {
        auth: token,
        body: { external_identifier: 'mine' },
      })
      expect([changed.status, changed.body]).to.deep.equal([200, { ...mine, external_identifier: 'mine', updated_at: now() }])
      for (const [method, path] of [
        ['GET', '/payment-methods'],
        ['GET', `/payment-methods/${mine.id}`],
        ['PUT', `/payment-methods/${mine.id}`],
        ['DELETE', `/payment-methods/${mine.id}`],
      ] as const) {
        const r = await h.request(method, path, { auth: embedFor(), ...(method === 'PUT' ? { body: {} } : {}) })
        expect([method, path, r.status, r.body]).to.deep.equal([method, path, 403, errorBody(403)])
      }
      expect((await h.request('DELETE', `/payment-methods/${mine.id}`, { auth: token })).status).to.equal(204)
      expect((await h.request('GET', `/payment-methods/${mine.id}`)).status).to.equal(404)
    })
  })

  it("deletes a buyer's payment methods with the buyer, and leaves the others", async () => {
    const b = await newBuyer('pm-leaving')
    const number = fresh()
    const theirs = [await stored(card(number, { buyer_id: b.id })), await stored(card(fresh(), { buyer_id: b.id }))]
    const unowned = await stored(card(number))
    expect((await h.request('DELETE', `/buyers/${b.id}`)).status).to.equal(204)
    for (const m of theirs) expect((await h.request('GET', `/payment-methods/${m.id}`)).status).to.equal(404)
    expect((await h.request('GET', `/payment-methods/${unowned.id}`)).body).to.deep.equal(unowned)
    const listed = await h.request<Page<PaymentMethod>>('GET', `/payment-methods?buyer_id=${b.id}`)
    expect(listed.body.items).to.deep.equal([])
  })

  describe('GET /buyers/payment-methods', () => {
    const list = (query: string, auth?: string) =>
      h.request<{ items: Json[] }>('GET', `/buyers/payment-methods?${query}`, auth === undefined ? {} : { auth })
    const read = async (id: string) => (await h.request<PaymentMethod>('GET', `/payment-methods/${id}`)).body

    it("lists the buyer's usable methods (succeeded, not expired) newest first, or by last use in either direction", async () => {
      const b = await newBuyer('pm-wallet')
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        h.clock.advance(1000)
        ids.push((await stored(card(fresh(), { buyer_id: b.id }))).id)
      }
      const [a, c, d] = ids as [string, string, string]
      // Used: d first, then a (c never).
      for (const id of [d, a]) {
        h.clock.advance(1000)
        const tx = await h.request<Resource>('POST', '/transactions', {
          body: { amount: 100, currency: 'USD', buyer_id: b.id, payment_method: { method: 'id', id, security_code: CVV } },
        })
        expect([tx.status, tx.body.status]).to.deep.equal([201, 'authorization_succeeded'])
      }
      // Not listed: a card declined when it was kept, one past its expiry, another buyer's, another account's.
      const declined = '4000000000009995'
      sent.add(declined)
      const failed = await h.request('POST', '/transactions', {
        body: { amount: 100, currency: 'USD', store: true, buyer_id: b.id, payment_method: card(declined) },
      })
      expect(failed.status).to.equal(201)
      const expired = await stored(card(fresh(), { buyer_id: b.id }))
      expect((await h.request('PUT', `/payment-methods/${expired.id}`, { body: { expiration_date: '01/20' } })).status).to.equal(200)
      await stored(card(fresh(), { buyer_id: IDS.defaultBuyer }))
      const [ma, mc, md] = [await read(a), await read(c), await read(d)]
      expect([ma.last_used_at, md.last_used_at]).to.deep.equal([now(), new Date(h.clock.now().getTime() - 1000).toISOString()])

      const newest = await list(`buyer_id=${b.id}`)
      expect([newest.status, newest.body]).to.deep.equal([200, { items: [md, mc, ma].map(summaryOf) }])
      expect((await list(`buyer_external_identifier=pm-wallet&order_by=asc`)).body).to.deep.equal({ items: [ma, mc, md].map(summaryOf) })
      const byUse = await list(`buyer_id=${b.id}&sort_by=last_used_at`)
      expect(byUse.body).to.deep.equal({ items: [ma, md, mc].map(summaryOf) })
      const byUseAsc = await list(`buyer_id=${b.id}&sort_by=last_used_at&order_by=asc`)
      expect(byUseAsc.body).to.deep.equal({ items: [mc, md, ma].map(summaryOf) })
      // A card pays in any country and currency: they narrow nothing.
      expect((await list(`buyer_id=${b.id}&country=GB&currency=EUR`)).body).to.deep.equal(newest.body)
      expect((await list(`buyer_id=${MISSING}`)).body).to.deep.equal({ items: [] })
      expect((await list('buyer_external_identifier=nobody')).body).to.deep.equal({ items: [] })
    })

    it('answers 422 for no buyer, both buyer fields, or a malformed sort, order, country or currency', async () => {
      const none = await list('')
      expect([none.status, none.body]).to.deep.equal([
        422,
        {
          detail: [
            {
              loc: ['query', 'buyer_id'],
              msg: 'Value error, one of `buyer_id` and `buyer_external_identifier` is required',
              type: 'value_error',
            },
          ],
        },
      ])
      const both = await h.request<ValidationErrorBody>(
        'GET',
        `/buyers/payment-methods?buyer_id=${IDS.defaultBuyer}&buyer_external_identifier=buyer-1`,
      )
      expect([both.status, both.body.detail.map((d) => [d.loc, d.type])]).to.deep.equal([
        422,
        [[['query', 'buyer_external_identifier'], 'value_error']],
      ])
      const bad = await h.request<ValidationErrorBody>(
        'GET',
        `/buyers/payment-methods?buyer_id=${IDS.defaultBuyer}&sort_by=usage_count&order_by=up&country=gb&currency=XYZ`,
      )
      expect([bad.status, bad.body]).to.deep.equal([
        422,
        {
          detail: [
            {
              loc: ['query', 'sort_by'],
              msg: "Input should be 'last_used_at'",
              type: 'enum',
              input: 'usage_count',
              ctx: { expected: 'last_used_at' },
            },
            { loc: ['query', 'order_by'], msg: "Input should be 'asc', 'desc'", type: 'enum', input: 'up', ctx: { expected: 'asc, desc' } },
            {
              loc: ['query', 'country'],
              msg: "String should match pattern '^[A-Z]{2}$'",
              type: 'string_pattern_mismatch',
              input: 'gb',
              ctx: { pattern: '^[A-Z]{2}$' },
            },
            {
              loc: ['query', 'currency'],
              msg: 'Value error, currency must be an ISO 4217 currency code in circulation, such as USD',
              type: 'value_error',
              input: 'XYZ',
            },
          ],
        },
      ])
    })

    it('shows an embed token only the buyer its claim names, refuses one naming none, and refuses tokens without the scope', async () => {
      const b = await newBuyer('pm-embed-wallet')
      const m = await stored(card(fresh(), { buyer_id: b.id }))
      const own = await list('buyer_external_identifier=pm-embed-wallet', embedFor({ buyer_id: b.id }))
      expect([own.status, own.body]).to.deep.equal([200, { items: [summaryOf(m)] }])
      const other = await list(`buyer_id=${b.id}`, embedFor({ buyer_id: IDS.defaultBuyer }))
      expect([other.status, other.body]).to.deep.equal([200, { items: [] }])
      for (const auth of [embedFor(), h.token('admin', { scopes: ['gift-cards.read'] })]) {
        const r = await list(`buyer_id=${b.id}`, auth)
        expect([r.status, r.body]).to.deep.equal([403, errorBody(403)])
      }
      expect((await list(`buyer_id=${b.id}`, h.token('admin', { scopes: ['payment-methods.read'] }))).body).to.deep.equal(own.body)
    })
  })

  it('keeps the fixed path /buyers/payment-methods apart from /buyers/{buyer_id}: other methods there are 405', async () => {
    const del = await h.request('DELETE', '/buyers/payment-methods')
    expect([del.status, del.headers.get('allow'), del.body]).to.deep.equal([405, 'GET, HEAD, OPTIONS', errorBody(405)])
    const put = await h.request('PUT', '/payment-methods')
    expect([put.status, put.headers.get('allow')]).to.deep.equal([405, 'GET, HEAD, POST, OPTIONS'])
  })

  describe('webhook events', function () {
    this.timeout(30_000)
    let w: Harness
    let rx: Receiver
    before(async () => {
      rx = await startReceiver()
      w = await startHarness({ env: WEBHOOK_TEST_ENV })
      const sub = await w.request('POST', '/webhook-subscriptions', { merchantAccount: 'acme', body: { url: `${rx.url}/hook` } })
      expect(sub.status, sub.text).to.equal(201)
    })
    after(async () => {
      await w.close()
      await rx.close()
    })

    it('sends payment-method.created once per stored method and payment-method.deleted on delete, never the number or code', async () => {
      const number = fresh()
      const body = { ...card(number), buyer_id: IDS.acmeBuyer }
      const r = await w.request<PaymentMethod>('POST', '/payment-methods', { merchantAccount: 'acme', body })
      expect(r.status, r.text).to.equal(201)
      // Stored again (the same method) and replayed: no second event.
      expect((await w.request('POST', '/payment-methods', { merchantAccount: 'acme', body })).status).to.equal(201)
      const del = await w.request('DELETE', `/payment-methods/${r.body.id}`, { merchantAccount: 'acme' })
      expect(del.status).to.equal(204)
      const got = await eventually(() => (rx.received.length >= 2 ? rx.received : undefined), 'two events')
      await quietFor(300)
      expect(rx.received).to.have.length(2)
      const events = got.map((x) => JSON.parse(x.body) as Json)
      const event = (name: string, target: unknown, i: number) => ({
        type: 'event',
        id: events[i]!.id,
        name,
        created_at: w.clock.now().toISOString(),
        merchant_account_id: 'acme',
        environment: 'sandbox',
        target,
      })
      expect(events).to.deep.equal([event('payment-method.created', r.body, 0), event('payment-method.deleted', r.body, 1)])
      for (const x of got) {
        expect(x.body).not.to.include(number).and.not.to.include(number.slice(-12)).and.not.to.include(`"${CVV}"`)
        expect(x.body).not.to.include('security_code')
      }
      // The payloads are what the OpenAPI document's `webhooks` section says they are.
      const doc = (await (await fetch(`${w.url}/openapi.json`)).json()) as OpenApiDoc
      const ajv = new Ajv2020({ strict: false })
      addFormats(ajv)
      const abs = JSON.parse(JSON.stringify(doc).replace(/"#\/components\/schemas\//g, '"urn:orka:openapi#/$defs/')) as OpenApiDoc
      ajv.addSchema({ $id: 'urn:orka:openapi', $defs: abs.components.schemas })
      for (const e of events) {
        const schema = abs.webhooks[e.name as string]!.post.requestBody.content['application/json']!.schema
        expect(ajv.validate(schema, e), JSON.stringify(ajv.errors)).to.equal(true)
      }
    })
  })
})
