import { expect } from 'chai'
import { errorBody, Harness, recordedResponses, Resource, startHarness } from '../support/harness'
import { emptySession } from './checkout-session-support'

type Session = Resource & { readonly expires_at: string }

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '7373' }
const GIFT = '7200000000002001'
const OTHER = '72000000000020027'
// Distinctive, so that finding it anywhere is a leak, not a coincidence.
const PIN = 'Qz8Pin'
const gift = (number: string, amount: number, pin = PIN) => ({ number, pin, amount })
const MINUTE = 60_000
const rule = (pointer: string, message: string, type: string) => errorBody(400, [{ location: 'body', pointer, message, type }])

describe('checkout session fields with gift cards (Secure Fields)', () => {
  let h: Harness
  let seenFrom: number
  beforeEach(async () => {
    h = await startHarness()
    seenFrom = recordedResponses.length
  })
  afterEach(async () => {
    // Whatever a test did, no response and no log line carried a gift card's number or PIN, or the card.
    const answers = recordedResponses
      .slice(seenFrom)
      .map((r) => r.text)
      .join('\n')
    for (const secret of [GIFT, OTHER, PIN, CARD.number, CARD.security_code]) {
      const word = new RegExp(`\\b${secret}\\b`)
      expect(answers, 'a response').not.to.match(word)
      expect(h.logs.join('\n'), 'the log').not.to.match(word)
    }
    await h.close()
  })
  const inFromNow = (ms: number) => new Date(h.clock.now().getTime() + ms).toISOString()
  const create = async (body: Record<string, unknown> = { amount: 1000, currency: 'USD' }) =>
    (await h.request<Session>('POST', '/checkout/sessions', { body })).body
  const fields = (id: string, body: unknown) => h.request('PUT', `/checkout/sessions/${id}/fields`, { auth: null, body })
  const read = (id: string) => h.request<Session>('GET', `/checkout/sessions/${id}`)

  it('takes a card and gift cards without a token: 204, then the session shows each gift card’s BIN, sub-BIN, last 4 and amount', async () => {
    const s = await create()
    h.clock.advance(MINUTE)
    const put = await fields(s.id, { payment_method: CARD, gift_cards: [gift(GIFT, 400), gift(OTHER, 350, '1')] })
    expect([put.status, put.text, put.headers.get('content-type')]).to.deep.equal([204, '', null])
    const shown = await read(s.id)
    const card = shown.body.payment_method as { fingerprint: string }
    expect([shown.status, shown.body]).to.deep.equal([
      200,
      emptySession(s.id, inFromNow(5 * MINUTE), {
        amount: 1000,
        currency: 'USD',
        payment_method: {
          type: 'payment-method',
          method: 'card',
          id: null,
          label: '1111',
          scheme: 'visa',
          fingerprint: card.fingerprint,
          details: { bin: '411111', card_type: null },
        },
        gift_cards: [
          { bin: '720000', sub_bin: '000', last4: '2001', amount: 400 },
          { bin: '720000', sub_bin: '000', last4: '0027', amount: 350 },
        ],
      }),
    ])
  })

  it('takes gift cards alone (PUT and POST) when they pay the session’s amount; a session without one takes any', async () => {
    const s = await create()
    const put = await h.request('POST', `/checkout/sessions/${s.id}/fields`, { auth: null, body: { gift_cards: [gift(GIFT, 1000)] } })
    expect([put.status, put.text]).to.deep.equal([204, ''])
    const shown = await read(s.id)
    expect(shown.body).to.deep.equal(
      emptySession(s.id, inFromNow(5 * MINUTE), {
        amount: 1000,
        currency: 'USD',
        gift_cards: [{ bin: '720000', sub_bin: '000', last4: '2001', amount: 1000 }],
      }),
    )
    const open = await create({})
    expect((await fields(open.id, { payment_method: null, gift_cards: [gift(GIFT, 99_999_999)] })).status).to.equal(204)
    // Sent again with the card alone, the session holds the card alone.
    expect((await fields(open.id, { payment_method: CARD, gift_cards: null })).status).to.equal(204)
    expect((await read(open.id)).body).not.to.have.property('gift_cards')
  })

  it('refuses with a 400 naming the item or payment_method what the payment would refuse, and keeps what it had', async () => {
    const s = await create()
    expect((await fields(s.id, { payment_method: CARD })).status).to.equal(204)
    const before = (await read(s.id)).body
    const cases: [unknown, unknown][] = [
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 100), gift(GIFT, 100, 'other')] },
        rule('/gift_cards/1/number', 'Gift card 1 is also an earlier item', 'duplicate_gift_card'),
      ],
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 600), gift(OTHER, 401)] },
        rule('/gift_cards/1/amount', 'The gift cards would pay more than the checkout session amount', 'gift_cards_exceed_amount'),
      ],
      [
        { gift_cards: [gift(GIFT, 600), gift(OTHER, 399)] },
        rule('/payment_method', 'The gift cards pay 999 of 1000: a card must pay the rest', 'payment_method_required'),
      ],
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 1000)] },
        rule('/payment_method', 'The gift cards pay the whole amount: leave out `payment_method`', 'payment_method_not_needed'),
      ],
      [
        { payment_method: { method: 'id', id: 'pm-1' }, gift_cards: [gift(GIFT, 100)] },
        rule('/payment_method/id', 'No stored payment method with this id can pay', 'unknown_payment_method'),
      ],
    ]
    for (const [body, refusal] of cases) {
      const r = await fields(s.id, body)
      expect([r.status, r.body], JSON.stringify(refusal)).to.deep.equal([400, refusal])
    }
    expect((await read(s.id)).body).to.deep.equal(before)
  })

  it('answers 404 for gift cards sent to an unknown, expired or deleted session', async () => {
    const body = { gift_cards: [gift(GIFT, 1000)] }
    expect((await fields('99999999-9999-4999-8999-999999999999', body)).body).to.deep.equal(errorBody(404))
    const deleted = await create()
    await h.request('DELETE', `/checkout/sessions/${deleted.id}`)
    expect([(await fields(deleted.id, body)).status]).to.deep.equal([404])
    const expired = await create()
    h.clock.advance(60 * MINUTE)
    expect((await fields(expired.id, body)).body).to.deep.equal(errorBody(404))
  })

  it('refuses malformed gift cards, or neither a card nor gift cards, with a 422 that never echoes a number or PIN', async () => {
    const s = await create()
    const value = (loc: (string | number)[], msg: string, type: string, extra: Record<string, unknown> = {}) => ({
      detail: [{ loc: ['body', ...loc], msg, type, ...extra }],
    })
    const cases: [unknown, unknown][] = [
      [{}, value(['payment_method'], 'Value error, a `payment_method` or `gift_cards` is required', 'value_error')],
      [
        { payment_method: null, gift_cards: null },
        value(['payment_method'], 'Value error, a `payment_method` or `gift_cards` is required', 'value_error', { input: null }),
      ],
      [{ gift_cards: [] }, value(['gift_cards'], 'Value error, `gift_cards` holds at least one gift card', 'value_error')],
      [
        { gift_cards: Array.from({ length: 11 }, (_, i) => gift(`72000000000030${10 + i}`, 1)) },
        value(['gift_cards'], 'List should have at most 10 items after validation, not 11', 'too_long', {
          ctx: { field_type: 'List', max_length: 10, actual_length: 11 },
        }),
      ],
      [
        { gift_cards: [{ number: '720000000000201', pin: PIN, amount: 1 }] },
        value(['gift_cards', 0, 'number'], 'String should have at least 16 characters', 'string_too_short', { ctx: { min_length: 16 } }),
      ],
      [
        { gift_cards: [{ number: '72000000000020x1', pin: PIN, amount: 1 }] },
        value(['gift_cards', 0, 'number'], "String should match pattern '^\\d+$'", 'string_pattern_mismatch', {
          ctx: { pattern: '^\\d+$' },
        }),
      ],
      [{ gift_cards: [{ number: GIFT, amount: 1 }] }, value(['gift_cards', 0, 'pin'], 'Field required', 'missing')],
      [
        { gift_cards: [{ number: GIFT, pin: 'x'.repeat(65), amount: 1 }] },
        value(['gift_cards', 0, 'pin'], 'String should have at most 64 characters', 'string_too_long', { ctx: { max_length: 64 } }),
      ],
      [
        { gift_cards: [gift(GIFT, 0)] },
        value(['gift_cards', 0, 'amount'], 'Input should be greater than or equal to 1', 'greater_than_equal', {
          input: 0,
          ctx: { ge: 1 },
        }),
      ],
      [{ gift_cards: [{ number: GIFT, pin: PIN }] }, value(['gift_cards', 0, 'amount'], 'Field required', 'missing')],
      [
        { gift_cards: [{ ...gift(GIFT, 1), id: '7c0b8f3e-2a4d-4b6e-9f1a-3c5d7e9b1a2c' }] },
        value(['gift_cards', 0, 'id'], 'Extra inputs are not permitted', 'extra_forbidden'),
      ],
    ]
    for (const [body, refusal] of cases) {
      const r = await fields(s.id, body)
      expect([r.status, r.body], JSON.stringify(refusal)).to.deep.equal([422, refusal])
    }
    expect((await read(s.id)).body).to.deep.include({ payment_method: null })
  })
})
