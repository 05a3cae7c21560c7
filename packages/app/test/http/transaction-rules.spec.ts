import { expect } from 'chai'
import { errorBody, Harness, IDS, startHarness } from '../support/harness'

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const PAYMENT = { amount: 1299, currency: 'USD', payment_method: CARD }
interface Tx {
  readonly id: string
  readonly status: string
  readonly authorized_amount: number
}

describe('transaction rules over HTTP (embedded store, mock-card)', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())
  const pay = (body: unknown = PAYMENT) => h.request<Tx>('POST', '/transactions', { body })

  it('refuses to capture an authorization of 0 (a card check) with a 409; intent capture with amount 0 is a 422', async () => {
    const check = await pay({ ...PAYMENT, amount: 0 })
    expect([check.status, check.body.status, check.body.authorized_amount]).to.deep.equal([201, 'authorization_succeeded', 0])
    const capture = await h.request('POST', `/transactions/${check.body.id}/capture`)
    expect([capture.status, capture.body]).to.deep.equal([
      409,
      {
        ...errorBody(409, [
          {
            location: 'unknown',
            pointer: '',
            message: 'A transaction authorized for 0 (a card check) cannot be captured: nothing was authorized to capture',
            type: 'invalid_transaction_status',
          },
        ]),
        resource_id: check.body.id,
      },
    ])
    expect((await h.request<Tx>('GET', `/transactions/${check.body.id}`)).body.status).to.equal('authorization_succeeded')
    expect((await h.request<Tx>('POST', `/transactions/${check.body.id}/void`)).body.status).to.equal('authorization_voided')
    const captureNow = await pay({ ...PAYMENT, amount: 0, intent: 'capture' })
    expect([captureNow.status, captureNow.body]).to.deep.equal([
      422,
      {
        detail: [{ loc: ['body', 'amount'], msg: 'Value error, `intent: capture` needs an amount above 0', type: 'value_error', input: 0 }],
      },
    ])
  })

  it('lets an embed token do nothing on a transaction: every route but creation is a 403, before anything is looked up', async () => {
    const embed = h.token('admin', { scopes: ['embed'], embedClaim: { amount: 1299, currency: 'USD' } })
    const t = (await pay()).body
    const other = IDS.defaultBuyer // any id: the token is refused before anything is looked up
    const reads = ['', '/events', '/captures', `/captures/${other}`, '/refunds', `/refunds/${other}`, '/actions', '/settlements']
    const writes = ['/capture', '/void', '/refunds', '/refunds/all', '/cancel', '/sync', '/authorization/increment']
    for (const [method, path] of [
      ...reads.map((p) => ['GET', `/transactions/${t.id}${p}`]),
      ...writes.map((p) => ['POST', `/transactions/${t.id}${p}`]),
      ['PUT', `/transactions/${t.id}`],
      ['GET', '/transactions'],
      ['GET', `/refunds/${other}`],
      ['POST', `/transactions/${other}/cancel`],
    ] as const) {
      const r = await h.request(method, path, { auth: embed, ...(method === 'PUT' ? { body: {} } : {}) })
      expect([method, path, r.status, r.body]).to.deep.equal([method, path, 403, errorBody(403)])
    }
    expect((await h.request<Tx>('GET', `/transactions/${t.id}`)).body.status).to.equal('authorization_succeeded')
  })

  it('filters on created_at with RFC 3339 date-times only (with Z or an offset); anything else is a 422 naming the parameter', async () => {
    const t = (await pay()).body
    const list = (q: string) => h.request<{ items: Tx[] }>('GET', `/transactions?${q}`)
    const at = new Date(h.clock.now().getTime())
    const iso = at.toISOString()
    const plus2 = `${new Date(at.getTime() + 2 * 3600_000).toISOString().slice(0, 19)}+02:00`
    for (const q of [`created_at_gte=${iso}`, `created_at_lte=${iso}`, `created_at_gte=${encodeURIComponent(plus2)}`]) {
      const r = await list(q)
      expect([q, r.status, r.body.items.map((x) => x.id)]).to.deep.equal([q, 200, [t.id]])
    }
    const later = `${new Date(at.getTime() + 1000).toISOString().slice(0, 19)}.5-00:00`
    expect((await list(`created_at_gte=${encodeURIComponent(later)}`)).body.items).to.deep.equal([])
    const rule = 'created_at_gte must be an RFC 3339 date-time with a time zone, such as 2026-01-31T09:30:00Z'
    for (const bad of [
      '2026-13-01',
      '2026-01-01',
      '2026-13-01T00:00:00Z',
      '2026-02-30T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01 00:00:00Z',
      '2026-01-01T00:00:00+25:00',
      'yesterday',
      '1700000000',
    ]) {
      const r = await h.request<{ detail: unknown[] }>('GET', `/transactions?created_at_gte=${encodeURIComponent(bad)}`)
      expect([bad, r.status, r.body]).to.deep.equal([
        bad,
        422,
        { detail: [{ loc: ['query', 'created_at_gte'], msg: `Value error, ${rule}`, type: 'value_error', input: bad }] },
      ])
    }
    const lte = await h.request<{ detail: { loc: unknown[] }[] }>('GET', '/transactions?created_at_lte=2026-13-01')
    expect([lte.status, lte.body.detail.map((d) => d.loc)]).to.deep.equal([422, [['query', 'created_at_lte']]])
  })

  it('filters on several currencies; a filter of the original API that Orka does not offer is a 400 naming it, never ignored', async () => {
    const usd = (await pay()).body
    h.clock.advance(1000)
    const eur = (await pay({ ...PAYMENT, currency: 'EUR' })).body
    h.clock.advance(1000)
    await pay({ ...PAYMENT, currency: 'GBP' })
    const ids = async (q: string) => {
      const r = await h.request<{ items: Tx[] }>('GET', `/transactions?${q}`)
      return [r.status, r.body.items.map((x) => x.id)]
    }
    expect(await ids('currency=USD&currency=EUR')).to.deep.equal([200, [eur.id, usd.id]])
    expect(await ids('currency=EUR,USD')).to.deep.equal([200, [eur.id, usd.id]])
    expect(await ids('currency=EUR')).to.deep.equal([200, [eur.id]])
    for (const q of ['search=order', 'payment_service_id=x', 'amount_eq=1299', 'metadata=k', 'has_refunds=false']) {
      const name = q.split('=')[0]!
      const r = await h.request('GET', `/transactions?${q}`)
      expect([q, r.status, r.body]).to.deep.equal([
        q,
        400,
        {
          ...errorBody(400, [{ location: 'query', pointer: `/${name}`, message: `\`${name}\` is not supported`, type: 'unsupported' }]),
          message: 'Request failed validation',
        },
      ])
    }
    const two = await h.request<{ details: { pointer: string }[] }>('GET', '/transactions?search=a&error_code=b&currency=USD')
    expect([two.status, two.body.details.map((d) => d.pointer)]).to.deep.equal([400, ['/search', '/error_code']])
  })

  it('refuses what no payment method form offers with a 400 naming it, an unknown stored method on its id; a property no form has is a 422', async () => {
    const refused = (...fields: string[]) => ({
      ...errorBody(
        400,
        fields.map((f) => ({
          location: 'body',
          pointer: `/${f.replace(/\./g, '/')}`,
          message: `\`${f}\` is not supported`,
          type: 'unsupported',
        })),
      ),
      message: 'Request failed validation',
    })
    const unknown = {
      ...errorBody(400, [
        {
          location: 'body',
          pointer: '/payment_method/id',
          message: 'No stored payment method with this id can pay',
          type: 'unknown_payment_method',
        },
      ]),
      message: 'Request failed validation',
    }
    const session = '0f5e4c2a-1111-4222-8333-444455556666'
    const cases: [unknown, number, unknown][] = [
      [{ method: 'id', id: 'pm-1' }, 400, unknown],
      // The stored card's security code is the SDK's to send: it takes nothing from the refusal.
      [{ method: 'id', id: 'pm-1', security_code: '123' }, 400, unknown],
      [{ method: 'id', id: 'pm-1', redirect_url: 'https://shop.test/back' }, 400, refused('payment_method.redirect_url')],
      [{ method: 'checkout-session', id: session, redirect_url: 'https://shop.test/back' }, 400, refused('payment_method.redirect_url')],
      [{ ...CARD, redirect_url: 'https://shop.test/back' }, 400, refused('payment_method.redirect_url')],
    ]
    for (const [pm, status, body] of cases) {
      const r = await pay({ ...PAYMENT, payment_method: pm })
      expect([pm, r.status, r.body]).to.deep.equal([pm, status, body])
    }
    const sessionCode = await pay({ ...PAYMENT, payment_method: { method: 'checkout-session', id: session, security_code: '123' } })
    expect([sessionCode.status, sessionCode.body]).to.deep.equal([
      422,
      { detail: [{ loc: ['body', 'payment_method', 'security_code'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }] },
    ])
    expect((await h.request<{ items: Tx[] }>('GET', '/transactions')).body.items).to.deep.equal([])
  })

  it('checks gift_cards before anything is spent or stored: a malformed item is a 422, a broken rule a 400 naming the item', async () => {
    const card = (last: string, amount: number) => ({ number: `41234555412345${last}`, pin: '1234', amount })
    const stored = (id: string, amount: number) => ({ id, amount })
    const ID = '7c0b8f3e-2a4d-4b6e-9f1a-3c5d7e9b1a2c'
    const rule = (pointer: string, message: string, type: string) => ({
      ...errorBody(400, [{ location: 'body', pointer, message, type }]),
      message: 'Request failed validation',
    })
    const cases: [unknown, number, unknown][] = [
      [[card('61001', 0)], 400, rule('/gift_cards/0/amount', 'A gift card must pay an amount above 0', 'invalid_amount')],
      [
        [card('61001', 100), card('61001', 100)],
        400,
        rule('/gift_cards/1/number', 'Gift card 1 is also an earlier item', 'duplicate_gift_card'),
      ],
      [
        [stored(ID, 100), stored(ID.toUpperCase(), 100)],
        400,
        rule('/gift_cards/1/id', 'Gift card 1 is also an earlier item', 'duplicate_gift_card'),
      ],
      [
        Array.from({ length: 11 }, (_, i) => card(String(61010 + i), 1)),
        400,
        rule('/gift_cards/10', 'At most 10 gift cards may pay one transaction', 'too_many_gift_cards'),
      ],
      [
        [card('61001', 1000), card('61002', 300)],
        400,
        rule('/gift_cards/1/amount', 'The gift cards would pay more than the transaction amount', 'gift_cards_exceed_amount'),
      ],
      [
        [card('61001', 1299)],
        400,
        rule('/payment_method', 'The gift cards pay the whole amount: leave out `payment_method`', 'payment_method_not_needed'),
      ],
    ]
    for (const [gift_cards, status, body] of cases) {
      const r = await pay({ ...PAYMENT, gift_cards })
      expect([gift_cards, r.status, r.body]).to.deep.equal([gift_cards, status, body])
    }
    // Without a card, the gift cards must pay it all.
    const short = await pay({ amount: 1299, currency: 'USD', gift_cards: [card('61001', 1000)] })
    expect([short.status, short.body]).to.deep.equal([
      400,
      rule('/payment_method', 'The gift cards pay 1000 of 1299: a card or a checkout session must pay the rest', 'payment_method_required'),
    ])
    // None or an empty list is no gift card.
    for (const gift_cards of [null, []]) expect((await pay({ ...PAYMENT, gift_cards })).status).to.equal(201)

    const malformed: [unknown, unknown][] = [
      [[{ number: '4123455541234561001', amount: 100 }], ['body', 'gift_cards', 0, 'pin']],
      [[{ number: '412345554123456', pin: '1234', amount: 100 }], ['body', 'gift_cards', 0, 'number']],
      [[{ number: '4123455541234561001', pin: '1234', amount: '100' }], ['body', 'gift_cards', 0, 'amount']],
      [[{ number: '4123455541234561001', pin: '1234', amount: -1 }], ['body', 'gift_cards', 0, 'amount']],
      [[{ id: 'x', amount: 100 }], ['body', 'gift_cards', 0, 'id']],
      [[{ id: ID, number: '4123455541234561001', amount: 100 }], ['body', 'gift_cards', 0, 'number']],
      ['x', ['body', 'gift_cards']],
    ]
    for (const [gift_cards, loc] of malformed) {
      const r = await pay({ ...PAYMENT, gift_cards })
      const body = r.body as unknown as { detail: { loc: unknown[] }[] }
      expect([gift_cards, r.status, body.detail.map((d) => d.loc)]).to.deep.equal([gift_cards, 422, [loc]])
      expect(r.text).not.to.include('4123455541234561001')
    }
    // Only the two payments without gift cards were made, and no gift card was touched.
    expect((await h.request<{ items: Tx[] }>('GET', '/transactions')).body.items).to.have.length(2)
    const balance = await h.request<{ items: { balance: number }[] }>('POST', '/gift-cards/balances', {
      body: { items: [{ number: '4123455541234561001', pin: '1234' }] },
    })
    expect(balance.body.items.map((i) => i.balance)).to.deep.equal([10000])
  })

  it('refuses what a capture may carry but Orka does not act on (airline, cart items) with a 400 naming it', async () => {
    const t = (await pay()).body
    for (const [field, value] of [
      ['cart_items', [{ name: 'Socks', quantity: 1, unit_amount: 1299 }]],
      ['airline', { passenger_name_record: 'ABC123' }],
    ] as const) {
      const r = await h.request('POST', `/transactions/${t.id}/capture`, { body: { [field]: value } })
      expect([field, r.status, r.body]).to.deep.equal([
        field,
        400,
        {
          ...errorBody(400, [{ location: 'body', pointer: `/${field}`, message: `\`${field}\` is not supported`, type: 'unsupported' }]),
          message: 'Request failed validation',
        },
      ])
    }
    expect((await h.request<Tx>('GET', `/transactions/${t.id}`)).body.status).to.equal('authorization_succeeded')
    expect((await h.request<Tx>('POST', `/transactions/${t.id}/capture`, { body: { cart_items: null } })).body.status).to.equal(
      'capture_succeeded',
    )
  })
})
