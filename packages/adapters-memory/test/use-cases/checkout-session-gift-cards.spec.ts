import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import {
  CheckoutSessionCreate,
  CheckoutSessionFields,
  invalidRequest,
  makeCreateCheckoutSession,
  makeGetCheckoutSession,
  makePutCheckoutSessionFields,
  notFound,
  openSessionCard,
  problem,
  makeRecordAudited,
} from '@orka/domain'
import { left, ManualClock, MERCHANT_A, MERCHANT_B, right, SequentialIds, uuidFor } from '@orka/domain/testing'
import { MemoryCheckoutSessionStore, MemoryPaymentMethodVault, MemoryAuditLog } from '../../src'
import { START, testBox, testMac, ACTOR } from './support'

const VISA = '4111111111111111'
const GIFT = '7200000000002001'
const OTHER = '7200000000002002345'
const PIN = 'a1b2'
const MINUTE = 60_000
const iso = (offsetMs: number) => new Date(START.getTime() + offsetMs).toISOString()
const CARD = { method: 'card', number: VISA, expiration_date: '12/35', security_code: '123' } as const
const gift = (number: string, amount: number, pin = PIN) => ({ number, pin, amount })
const rule = (path: string[], message: string, type: string) => invalidRequest(problem('input', path, message, type))

describe('checkout session use cases: gift cards from Secure Fields', () => {
  const setup = () => {
    const clock = new ManualClock(START)
    const ids = new SequentialIds()
    const w = {
      sessions: new MemoryCheckoutSessionStore(),
      paymentMethods: new MemoryPaymentMethodVault(),
      clock,
      ids,
      box: testBox(),
      mac: testMac(),
      audited: makeRecordAudited({ audit: new MemoryAuditLog(), ids, clock }),
    }
    const create = makeCreateCheckoutSession(w)
    const get = makeGetCheckoutSession(w)
    return {
      ...w,
      session: (input: CheckoutSessionCreate = {}, merchantAccountId = MERCHANT_A) =>
        right(create({ merchantAccountId, actor: ACTOR, input })),
      read: (id: string, merchantAccountId = MERCHANT_A) => right(get({ merchantAccountId, id })),
      put: makePutCheckoutSessionFields(w),
    }
  }
  type World = ReturnType<typeof setup>
  const taken = async (s: World, id: string, merchantAccountId = MERCHANT_A) => {
    const r = await right(s.sessions.takeCard(merchantAccountId, id, s.clock.now()))
    if (O.isNone(r) || r.value.card === null) return expect.fail('no card data on the session')
    return r.value.card
  }

  it('seals a card and gift cards together; the session shows each gift card’s BIN, sub-BIN, last 4 and amount only', async () => {
    const s = setup()
    const session = await s.session({ amount: 10_000, currency: 'USD' })
    s.clock.advance(MINUTE)
    const input: CheckoutSessionFields = { payment_method: CARD, gift_cards: [gift(GIFT, 2500), gift(OTHER, 1500, '9')] }
    await right(s.put({ id: session.id, input }))
    const shown = await s.read(session.id)
    expect(shown.gift_cards).to.deep.equal([
      { bin: '720000', sub_bin: '000', last4: '2001', amount: 2500 },
      { bin: '720000', sub_bin: '000', last4: '2345', amount: 1500 },
    ])
    expect(shown).to.deep.include({ expires_at: iso(6 * MINUTE) })
    expect(shown.payment_method).to.deep.include({ label: '1111', scheme: 'visa' })
    expect(JSON.stringify(shown)).not.to.match(new RegExp(`${GIFT}|${OTHER}|${PIN}`))
    // The payment gets them sealed one by one, as its redemptions keep them, and the card as before.
    const card = await taken(s, session.id)
    expect(card.gift_cards?.map((g) => [s.box.open(g.sealed_number), s.box.open(g.sealed_pin), g.amount])).to.deep.equal([
      [GIFT, PIN, 2500],
      [OTHER, '9', 1500],
    ])
    expect(JSON.stringify(card)).not.to.match(new RegExp(`${GIFT}|${OTHER}|"${PIN}"`))
    expect(openSessionCard(s.box, card)).to.deep.equal({ number: VISA, expiration_date: '12/35', security_code: '123' })
  })

  it('takes gift cards alone when they pay the session’s whole amount: no card, nothing of one shown', async () => {
    const s = setup()
    const session = await s.session({ amount: 1000, currency: 'USD' }, MERCHANT_B)
    await right(s.put({ id: session.id, input: { gift_cards: [gift(GIFT, 600), gift(OTHER, 400)] } }))
    const shown = await s.read(session.id, MERCHANT_B)
    expect([shown.payment_method, shown.gift_cards?.map((g) => g.amount)]).to.deep.equal([null, [600, 400]])
    const card = await taken(s, session.id, MERCHANT_B)
    expect([card.sealed, card.payment_method, openSessionCard(s.box, card)]).to.deep.equal([null, null, null])
  })

  it('checks gift cards against a session without an amount only against each other', async () => {
    const s = setup()
    const session = await s.session()
    await right(s.put({ id: session.id, input: { gift_cards: [gift(GIFT, 99_999_999)] } }))
    await right(s.put({ id: session.id, input: { payment_method: CARD, gift_cards: [gift(GIFT, 1), gift(OTHER, 1)] } }))
    expect(await left(s.put({ id: session.id, input: { gift_cards: [gift(GIFT, 1), gift(GIFT, 2, '0')] } }))).to.deep.equal(
      rule(['gift_cards', '1', 'number'], 'Gift card 1 is also an earlier item', 'duplicate_gift_card'),
    )
  })

  it('refuses, storing nothing, what the payment would refuse: a number twice, more than the amount, a card missing or for nothing', async () => {
    const s = setup()
    const session = await s.session({ amount: 1000, currency: 'USD' })
    const before = await s.read(session.id)
    const refusals: [CheckoutSessionFields, ReturnType<typeof rule>][] = [
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 100), gift(OTHER, 100), gift(GIFT, 100, 'x')] },
        rule(['gift_cards', '2', 'number'], 'Gift card 2 is also an earlier item', 'duplicate_gift_card'),
      ],
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 600), gift(OTHER, 401)] },
        rule(['gift_cards', '1', 'amount'], 'The gift cards would pay more than the checkout session amount', 'gift_cards_exceed_amount'),
      ],
      [
        { gift_cards: [gift(GIFT, 999)] },
        rule(['payment_method'], 'The gift cards pay 999 of 1000: a card must pay the rest', 'payment_method_required'),
      ],
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 1000)] },
        rule(['payment_method'], 'The gift cards pay the whole amount: leave out `payment_method`', 'payment_method_not_needed'),
      ],
    ]
    for (const [input, refusal] of refusals) {
      const refused = await left(s.put({ id: session.id, input }))
      expect(refused, JSON.stringify(refusal)).to.deep.equal(refusal)
      expect(JSON.stringify(refused)).not.to.match(new RegExp(`${GIFT}|${OTHER}|${VISA}`))
    }
    expect(await s.read(session.id)).to.deep.equal(before)
  })

  it('refuses an expired card or an unknown stored method, and is NotFound for a gone one', async () => {
    const s = setup()
    const session = await s.session({ amount: 1000, currency: 'USD' })
    const giftCards = [gift(GIFT, 500)]
    expect(
      await left(s.put({ id: session.id, input: { payment_method: { ...CARD, expiration_date: '12/24' }, gift_cards: giftCards } })),
    ).to.deep.equal(rule(['payment_method', 'expiration_date'], 'the card has expired', 'expired_card'))
    expect(
      await left(s.put({ id: session.id, input: { payment_method: { method: 'id', id: 'pm-1' }, gift_cards: giftCards } })),
    ).to.deep.equal(rule(['payment_method', 'id'], 'No stored payment method with this id can pay', 'unknown_payment_method'))
    expect(await s.read(session.id)).to.deep.include({ payment_method: null })
    const unknown = uuidFor(0xcff)
    expect(await left(s.put({ id: unknown, input: { gift_cards: [gift(GIFT, 1)] } }))).to.deep.equal(notFound('CheckoutSession', unknown))
    s.clock.advance(60 * MINUTE)
    expect(await left(s.put({ id: session.id, input: { payment_method: CARD, gift_cards: giftCards } }))).to.deep.equal(
      notFound('CheckoutSession', session.id),
    )
  })

  it('replaces all card data with the next fields: a card alone leaves no gift card behind, and the other way round', async () => {
    const s = setup()
    const session = await s.session({ amount: 1000, currency: 'USD' })
    await right(s.put({ id: session.id, input: { payment_method: CARD, gift_cards: [gift(GIFT, 400)] } }))
    await right(s.put({ id: session.id, input: { payment_method: CARD } }))
    expect(await s.read(session.id)).not.to.have.property('gift_cards')
    await right(s.put({ id: session.id, input: { gift_cards: [gift(OTHER, 1000)] } }))
    const shown = await s.read(session.id)
    expect([shown.payment_method, shown.gift_cards]).to.deep.equal([null, [{ bin: '720000', sub_bin: '000', last4: '2345', amount: 1000 }]])
  })
})
