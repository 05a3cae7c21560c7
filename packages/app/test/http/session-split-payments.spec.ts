import { expect } from 'chai'
import { errorBody, Harness, recordedResponses, Resource, startHarness } from '../support/harness'

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const PIN = 'Wv5Pin'
type Json = Record<string, unknown>
type Tx = Resource & { status: string; gift_card_redemptions: (Json & { id: string })[]; [k: string]: unknown }

describe('split payments from a checkout session over HTTP: the gift cards Secure Fields put there (embedded store)', () => {
  let h: Harness
  let seenFrom: number
  let n = 0
  /** A fresh number the mock gift card service funds with 10000 USD. */
  const number = () => `72000000000050${String(10 + n++)}`
  const spent: string[] = []
  beforeEach(async () => {
    h = await startHarness()
    seenFrom = recordedResponses.length
  })
  afterEach(async () => {
    const answers = recordedResponses
      .slice(seenFrom)
      .map((r) => r.text)
      .join('\n')
    for (const secret of [...spent, PIN, CARD.number]) {
      expect(answers, 'a response').not.to.include(secret)
      expect(h.logs.join('\n'), 'the log').not.to.include(secret)
    }
    await h.close()
  })
  const gift = (amount: number) => {
    const num = number()
    spent.push(num)
    return { number: num, pin: PIN, amount }
  }
  /** What a merchant's server and the shopper's browser do: a session, the fields on it, an embed token pinned to it. */
  const checkout = async (amount: number | null, fields: Json) => {
    const session = await h.request<Resource>('POST', '/checkout/sessions', { body: amount === null ? {} : { amount, currency: 'USD' } })
    const put = await h.request('PUT', `/checkout/sessions/${session.body.id}/fields`, { auth: null, body: fields })
    expect(put.status).to.equal(204)
    return session.body.id
  }
  const pay = (id: string, amount: number, o: Json = {}) =>
    h.request<Tx>('POST', '/transactions', {
      body: { amount, currency: 'USD', payment_method: { method: 'checkout-session', id }, ...o },
      auth: h.token('admin', { scopes: ['embed'], embedClaim: { amount, currency: 'USD', checkout_session_id: id } }),
    })
  const balances = async (numbers: string[]) =>
    (
      await h.request<{ items: { balance: number | null }[] }>('POST', '/gift-cards/balances', {
        body: { items: numbers.map((num) => ({ number: num, pin: PIN })) },
      })
    ).body.items.map((s) => s.balance)
  const redemption = (t: Tx, i: number, num: string, amount: number) => ({
    type: 'gift-card-redemption',
    id: t.gift_card_redemptions[i]?.id,
    status: 'succeeded',
    amount,
    refunded_amount: 0,
    gift_card_service_redemption_id: null,
    error_code: null,
    raw_error_code: null,
    raw_error_message: null,
    gift_card: { type: 'gift-card', id: null, bin: num.slice(0, 6), sub_bin: num.slice(6, 9), last4: num.slice(-4) },
  })

  it('pays a card and a gift card from the session with a token pinned to it: the card part authorized, the gift card redeemed', async () => {
    const [a, b] = [gift(2500), gift(1500)]
    const id = await checkout(10_000, { payment_method: CARD, gift_cards: [a, b] })
    const r = await pay(id, 10_000)
    expect(r.status).to.equal(201)
    expect(r.body).to.deep.include({
      status: 'authorization_succeeded',
      amount: 10_000,
      authorized_amount: 6000,
      intent_outcome: 'succeeded',
      multi_tender: true,
      method: 'card',
      checkout_session_id: id,
    })
    expect(r.body.payment_method).to.deep.include({ method: 'card', label: '1111', scheme: 'visa' })
    expect(r.body.gift_card_redemptions).to.deep.equal([redemption(r.body, 0, a.number, 2500), redemption(r.body, 1, b.number, 1500)])
    expect(await balances([a.number, b.number])).to.deep.equal([7500, 8500])
    const read = await h.request<Tx>('GET', `/transactions/${r.body.id}`)
    expect([read.status, read.body]).to.deep.equal([200, r.body])
    // Taken with the card: the session shows neither any more, and pays no second time.
    const session = await h.request<Json>('GET', `/checkout/sessions/${id}`)
    expect([session.body.payment_method, 'gift_cards' in session.body]).to.deep.equal([null, false])
    const again = await pay(id, 10_000)
    expect([again.status, again.body]).to.deep.equal([
      400,
      {
        ...errorBody(400, [
          {
            location: 'body',
            pointer: '/payment_method/id',
            message: 'The checkout session was used for another transaction',
            type: 'used_checkout_session',
          },
        ]),
        message: 'Request failed validation',
      },
    ])
  })

  it('pays with the session’s gift cards alone: captured at once, no card and no card service', async () => {
    const [a, b] = [gift(700), gift(599)]
    const id = await checkout(1299, { gift_cards: [a, b] })
    const r = await pay(id, 1299)
    expect(r.status).to.equal(201)
    expect(r.body).to.deep.include({
      status: 'capture_succeeded',
      authorized_amount: 0,
      captured_amount: 0,
      payment_method: null,
      payment_service: null,
      instrument_type: null,
      method: 'gift-card',
      multi_tender: true,
      checkout_session_id: id,
    })
    expect(r.body.gift_card_redemptions).to.deep.equal([redemption(r.body, 0, a.number, 700), redemption(r.body, 1, b.number, 599)])
    expect(await balances([a.number, b.number])).to.deep.equal([9300, 9401])
    const listed = await h.request<{ items: Tx[] }>('GET', `/transactions?checkout_session_id=${id}`)
    expect(listed.body.items.map((t) => [t.id, t.status])).to.deep.equal([[r.body.id, 'capture_succeeded']])
  })

  it('refuses gift cards in the request when the session holds some: 400 on /gift_cards, nothing spent, the session as it was', async () => {
    const a = gift(2500)
    const id = await checkout(10_000, { payment_method: CARD, gift_cards: [a] })
    const before = (await h.request<Json>('GET', `/checkout/sessions/${id}`)).body
    const other = gift(2500)
    const r = await pay(id, 10_000, { gift_cards: [other] })
    expect([r.status, r.body]).to.deep.equal([
      400,
      {
        ...errorBody(400, [
          {
            location: 'body',
            pointer: '/gift_cards',
            message: 'The checkout session holds gift cards: leave out `gift_cards`',
            type: 'checkout_session_gift_cards',
          },
        ]),
        message: 'Request failed validation',
      },
    ])
    expect((await h.request<Json>('GET', `/checkout/sessions/${id}`)).body).to.deep.equal(before)
    expect(await balances([a.number, other.number])).to.deep.equal([10_000, 10_000])
    expect((await h.request<{ items: unknown[] }>('GET', '/transactions')).body.items).to.deep.equal([])
    // Paid as the session holds it, the payment goes through.
    expect((await pay(id, 10_000)).body.status).to.equal('authorization_succeeded')
  })

  it('refuses a payment the session’s gift cards do not fit: more than its amount, or short of it without a card', async () => {
    const over = await checkout(null, { payment_method: CARD, gift_cards: [gift(800)] })
    const short = await checkout(null, { gift_cards: [gift(800)] })
    const refusal = (message: string, type: string) => ({
      ...errorBody(400, [{ location: 'body', pointer: '/payment_method/id', message, type }]),
      message: 'Request failed validation',
    })
    const a = await pay(over, 500)
    expect([a.status, a.body]).to.deep.equal([
      400,
      refusal("The checkout session's gift cards would pay more than the transaction amount", 'gift_cards_exceed_amount'),
    ])
    const b = await pay(short, 1000)
    expect([b.status, b.body]).to.deep.equal([
      400,
      refusal('The gift cards pay 800 of 1000: a card on the checkout session must pay the rest', 'payment_method_required'),
    ])
    expect(await balances(spent.slice(-2))).to.deep.equal([10_000, 10_000])
  })
})
