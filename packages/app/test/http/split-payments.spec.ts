import { expect } from 'chai'
import { defaultCardServiceId } from '../../src/card-services'
import { errorBody, Harness, IDS, Resource, startHarness } from '../support/harness'

const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const PIN = '8642'
type Json = Record<string, unknown>
type Tx = Resource & { status: string; gift_card_redemptions: (Json & { id: string })[]; [k: string]: unknown }
interface Summary {
  readonly id: string | null
  readonly last4: string
  readonly balance: number | null
  readonly usage_count: number
  readonly last_used_at: string | null
}

describe('split payments over HTTP: gift cards and a card in one transaction (embedded store)', () => {
  let h: Harness
  beforeEach(async () => {
    h = await startHarness()
  })
  afterEach(() => h.close())
  let n = 0
  /** A fresh number the mock gift card service funds with 10000 USD, or one ending in `last4`. */
  const number = (last4?: string) => `720000000000000${last4 ?? String(2000 + n++)}`
  const gift = (num: string, amount: number) => ({ number: num, pin: PIN, amount })
  const pay = (body: Json, o: { auth?: string; headers?: Record<string, string> } = {}) =>
    h.request<Tx>('POST', '/transactions', { body: { currency: 'USD', ...body }, ...o })
  const balances = async (items: unknown[]) =>
    (await h.request<{ items: Summary[] }>('POST', '/gift-cards/balances', { body: { items } })).body.items.map((s) => s.balance)
  const now = () => h.clock.now().toISOString()
  const redemption = (t: Tx, i: number, o: Json) => ({
    type: 'gift-card-redemption',
    id: t.gift_card_redemptions[i]?.id,
    status: 'succeeded',
    refunded_amount: 0,
    gift_card_service_redemption_id: null,
    error_code: null,
    raw_error_code: null,
    raw_error_message: null,
    ...o,
  })
  const giftCard = (num: string, id: string | null = null) => ({
    type: 'gift-card',
    id,
    bin: num.slice(0, 6),
    sub_bin: num.slice(6, 9),
    last4: num.slice(-4),
  })

  it('pays with a card and two gift cards: 201, the card authorized for what the gift cards leave, each redemption shown', async () => {
    const [a, b] = [number(), number()]
    const r = await pay({ amount: 10_000, payment_method: CARD, gift_cards: [gift(a, 2500), gift(b, 1500)] })
    expect(r.status).to.equal(201)
    const t = r.body
    expect(t).to.deep.include({
      status: 'authorization_succeeded',
      amount: 10_000,
      authorized_amount: 6000,
      captured_amount: 0,
      intent_outcome: 'succeeded',
      multi_tender: true,
      method: 'card',
      error_code: null,
      authorized_at: now(),
      payment_service: {
        type: 'payment-service',
        id: defaultCardServiceId('default'),
        payment_service_definition_id: 'mock-card',
        method: 'card',
        display_name: 'Mock cards',
      },
    })
    expect(t.gift_card_redemptions).to.deep.equal([
      redemption(t, 0, { amount: 2500, gift_card: giftCard(a) }),
      redemption(t, 1, { amount: 1500, gift_card: giftCard(b) }),
    ])
    expect(
      await balances([
        { number: a, pin: PIN },
        { number: b, pin: PIN },
      ]),
    ).to.deep.equal([7500, 8500])
    const read = await h.request<Tx>('GET', `/transactions/${t.id}`)
    expect([read.status, read.body]).to.deep.equal([200, t])
    const listed = await h.request<{ items: Tx[] }>('GET', '/transactions')
    expect(listed.body.items[0]?.gift_card_redemptions).to.deep.equal(t.gift_card_redemptions)
    for (const secret of [a, b, CARD.number]) {
      expect(r.text).not.to.include(secret)
      expect(h.logs.join('')).not.to.include(secret)
    }
    expect(h.logs.join('')).not.to.include(`"${PIN}"`)
  })

  it('pays with gift cards alone: captured at once, no card, no card service', async () => {
    const a = number()
    const r = await pay({ amount: 1200, gift_cards: [gift(a, 1200)] })
    expect(r.status).to.equal(201)
    expect(r.body).to.deep.include({
      status: 'capture_succeeded',
      authorized_amount: 0,
      captured_amount: 0,
      payment_method: null,
      method: 'gift-card',
      instrument_type: null,
      payment_service: null,
      intent_outcome: 'succeeded',
      multi_tender: false,
    })
    expect(r.body.gift_card_redemptions).to.deep.equal([redemption(r.body, 0, { amount: 1200, gift_card: giftCard(a) })])
    expect(await balances([{ number: a, pin: PIN }])).to.deep.equal([8800])
  })

  it('undoes it all when a gift card is short: the card part voided, the first gift card given back, the rest skipped', async () => {
    const [a, c] = [number(), number()]
    const empty = number('0004')
    const r = await pay({ amount: 5000, payment_method: CARD, gift_cards: [gift(a, 1000), gift(empty, 500), gift(c, 500)] })
    expect(r.status).to.equal(201)
    expect(r.body).to.deep.include({
      status: 'authorization_voided',
      error_code: 'insufficient_funds',
      intent_outcome: 'failed',
      authorized_amount: 3000,
      voided_at: now(),
    })
    expect(r.body.gift_card_redemptions).to.deep.equal([
      redemption(r.body, 0, { amount: 1000, refunded_amount: 1000, gift_card: giftCard(a) }),
      redemption(r.body, 1, { amount: 500, status: 'failed', error_code: 'insufficient_funds', gift_card: giftCard(empty) }),
      redemption(r.body, 2, { amount: 500, status: 'skipped', gift_card: giftCard(c) }),
    ])
    expect(
      await balances([
        { number: a, pin: PIN },
        { number: c, pin: PIN },
      ]),
    ).to.deep.equal([10_000, 10_000])
    const events = await h.request<{ items: { name: string }[] }>('GET', `/transactions/${r.body.id}/events?limit=100`)
    expect(events.body.items.map((e) => e.name).filter((x) => x.startsWith('gift-card'))).to.have.members([
      'gift-card-redemption-succeeded',
      'gift-card-redemption-failed',
      'gift-card-reversal-succeeded',
    ])
  })

  it("spends a buyer's stored card by id: its usage and balance show it; an unknown or another account's id is a 404 and nothing is paid", async () => {
    const a = number()
    const stored = await h.request<Resource>('POST', '/gift-cards', { body: { number: a, pin: PIN, buyer_id: IDS.defaultBuyer } })
    expect(stored.status).to.equal(201)
    const r = await pay({ amount: 3000, buyer_id: IDS.defaultBuyer, gift_cards: [{ id: stored.body.id, amount: 3000 }] })
    expect([r.status, r.body.status]).to.deep.equal([201, 'capture_succeeded'])
    expect(r.body.gift_card_redemptions).to.deep.equal([redemption(r.body, 0, { amount: 3000, gift_card: giftCard(a, stored.body.id) })])
    const mine = await h.request<{ items: Summary[] }>('GET', `/buyers/gift-cards?buyer_id=${IDS.defaultBuyer}`)
    expect(mine.body.items.map((s) => [s.id, s.balance, s.usage_count, s.last_used_at])).to.deep.equal([[stored.body.id, 7000, 1, now()]])

    const unknown = '7c0b8f3e-2a4d-4b6e-9f1a-3c5d7e9b1a2c'
    const before = (await h.request<{ items: unknown[] }>('GET', '/transactions')).body.items.length
    for (const [merchantAccount, id] of [
      ['default', unknown],
      ['acme', stored.body.id],
    ] as const) {
      const refused = await h.request<Tx>('POST', '/transactions', {
        body: { amount: 100, currency: 'USD', gift_cards: [gift(number(), 50), { id, amount: 50 }] },
        merchantAccount,
        auth: h.token('admin', { scopes: ['*.read', '*.write'] }),
      })
      expect([refused.status, refused.body]).to.deep.equal([
        404,
        errorBody(404, [
          {
            location: 'body',
            pointer: '/gift_cards/1/id',
            message: 'No gift card with the id of item 1 exists',
            type: 'unknown_gift_card',
          },
        ]),
      ])
    }
    expect((await h.request<{ items: unknown[] }>('GET', '/transactions')).body.items).to.have.length(before)
  })

  it('is one admission of an embed token, and reaches only its buyer’s stored cards', async () => {
    const stored = await h.request<Resource>('POST', '/gift-cards', { body: { number: number(), pin: PIN, buyer_id: IDS.defaultBuyer } })
    const embed = (buyer: Json | null) =>
      h.token('admin', { scopes: ['embed'], ...(buyer === null ? {} : { embedClaim: buyer as Record<string, string> }) })
    const body = { amount: 500, gift_cards: [{ id: stored.body.id, amount: 500 }] }
    const noBuyer = await pay(body, { auth: embed(null) })
    expect([noBuyer.status, (noBuyer.body as unknown as { code: string }).code]).to.deep.equal([403, 'forbidden'])
    const token = embed({ buyer_id: IDS.defaultBuyer })
    const own = await pay({ ...body, buyer_id: IDS.defaultBuyer }, { auth: token })
    expect([own.status, own.body.status]).to.deep.equal([201, 'capture_succeeded'])
    // Three gift cards and a card in one payment draw one request of the token's quota.
    const three = await pay(
      {
        amount: 4000,
        buyer_id: IDS.defaultBuyer,
        payment_method: CARD,
        gift_cards: [gift(number(), 100), gift(number(), 100), gift(number(), 100)],
      },
      { auth: token },
    )
    expect([three.status, three.body.status, three.body.gift_card_redemptions.length]).to.deep.equal([201, 'authorization_succeeded', 3])
    const remaining = (r: { headers: Headers }) => Number(/r=(\d+)/.exec(r.headers.get('ratelimit') ?? '')?.[1])
    expect(remaining(three)).to.equal(remaining(own) - 1)
  })
})
