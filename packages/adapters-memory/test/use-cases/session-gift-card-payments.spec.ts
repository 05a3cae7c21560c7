import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { CheckoutSessionFields, failedValidation, makePutCheckoutSessionFields, problem } from '@orka/domain'
import { aCheckoutSessionRecord, left, MERCHANT_A, right, ScriptedCardConnector } from '@orka/domain/testing'
import { MOCK_BALANCE } from '@orka/adapters-node'
import { invariants, payment, record, transactionWorld, TransactionWorld } from './transaction-world'

const GIFT = '4123450000001111'
const OTHER = '4123450000002222'
const EMPTY = '4123450000000004'
const PIN = '1234'
const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' } as const
const gift = (number: string, amount: number) => ({ number, pin: PIN, amount })
const refused = (path: string[], message: string, type: string) => failedValidation(problem('input', path, message, type))

/** A session of `amount` (none: null) on which Secure Fields put `fields`, as the browser would. */
const sessionWith = async (w: TransactionWorld, amount: number | null, fields: CheckoutSessionFields) => {
  const s = aCheckoutSessionRecord({ amount, currency: amount === null ? null : 'USD' })
  await right(w.sessions.create(s))
  await right(makePutCheckoutSessionFields(w)({ id: s.id, input: fields }))
  return s.id
}
const fromSession = (id: string, o: Record<string, unknown> = {}) =>
  payment({ amount: 10_000, payment_method: { method: 'checkout-session', id }, ...o })
const balanceOf = async (w: TransactionWorld, number: string) => {
  const b = await right(w.giftCardMock.balance({ service: w.giftCardService, number, pin: PIN }))
  return b._tag === 'Balance' ? b.balance : null
}
const cardDataOf = async (w: TransactionWorld, id: string) => {
  const s = await right(w.sessions.find(MERCHANT_A, id, w.clock.now()))
  return O.isSome(s) ? s.value.card : 'no session'
}

describe('split payments from a checkout session: the gift cards Secure Fields put there', () => {
  it('pays the card part with the session’s card and redeems its gift cards, as a request’s gift cards are', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const id = await sessionWith(w, 10_000, { payment_method: CARD, gift_cards: [gift(GIFT, 2500), gift(OTHER, 1500)] })
    const t = (await right(w.create(fromSession(id)))).value
    expect([t.status, t.authorized_amount, t.multi_tender, t.method, t.checkout_session_id]).to.deep.equal([
      'authorization_succeeded',
      6000,
      true,
      'card',
      id,
    ])
    expect(t.gift_card_redemptions.map((x) => [x.status, x.amount, x.gift_card])).to.deep.equal([
      ['succeeded', 2500, { type: 'gift-card', id: null, bin: '412345', sub_bin: '000', last4: '1111' }],
      ['succeeded', 1500, { type: 'gift-card', id: null, bin: '412345', sub_bin: '000', last4: '2222' }],
    ])
    expect(card.calls).to.deep.equal([{ op: 'authorize', reference: `${t.id}:authorize:1`, amount: 6000 }])
    expect([await balanceOf(w, GIFT), await balanceOf(w, OTHER)]).to.deep.equal([MOCK_BALANCE - 2500, MOCK_BALANCE - 1500])
    // The redemptions keep the numbers and PINs as the session sealed them, for a reversal or refund later.
    const r = await record(w, t.id)
    expect(
      r.gift_card_redemptions?.map((x) => [w.box.open(x.sealed_number), x.sealed_pin === null ? null : w.box.open(x.sealed_pin)]),
    ).to.deep.equal([
      [GIFT, PIN],
      [OTHER, PIN],
    ])
    expect(r.gift_card_redemptions?.map((x) => x.reference)).to.deep.equal([`${t.id}:redeem:1`, `${t.id}:redeem:2`])
    invariants(r, [card])
    expect(await cardDataOf(w, id)).to.equal(null)
    // Paid once: the session has nothing left to pay with.
    expect(await left(w.create(fromSession(id)))).to.deep.equal(
      refused(['payment_method', 'id'], 'The checkout session was used for another transaction', 'used_checkout_session'),
    )
  })

  it('pays with the session’s gift cards alone, asking no card service: captured at once', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const id = await sessionWith(w, 10_000, { gift_cards: [gift(GIFT, 10_000)] })
    const t = (await right(w.create(fromSession(id, { intent: 'capture' })))).value
    expect([t.status, t.payment_method, t.payment_service, t.method, t.authorized_amount, t.checkout_session_id]).to.deep.equal([
      'capture_succeeded',
      null,
      null,
      'gift-card',
      0,
      id,
    ])
    expect(card.calls).to.deep.equal([])
    expect(await balanceOf(w, GIFT)).to.equal(0)
  })

  it('pays with gift cards alone where no card service takes the currency; a session with a card keeps it, refused', async () => {
    const w = await transactionWorld([])
    const alone = await sessionWith(w, 10_000, { gift_cards: [gift(GIFT, 10_000)] })
    expect((await right(w.create(fromSession(alone)))).value.status).to.equal('capture_succeeded')
    const split = await sessionWith(w, 10_000, { payment_method: CARD, gift_cards: [gift(OTHER, 100)] })
    const before = await cardDataOf(w, split)
    expect(await left(w.create(fromSession(split)))).to.deep.equal(
      refused(['currency'], 'No card service of this merchant account takes this currency', 'no_payment_service'),
    )
    expect(await cardDataOf(w, split)).to.deep.equal(before)
    expect(await balanceOf(w, OTHER)).to.equal(MOCK_BALANCE)
  })

  it('refuses gift cards in the request when the session holds some: a 400 on /gift_cards, the session keeping its card data', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const id = await sessionWith(w, 10_000, { payment_method: CARD, gift_cards: [gift(GIFT, 2500)] })
    const before = await cardDataOf(w, id)
    expect(await left(w.create(fromSession(id, { gift_cards: [gift(OTHER, 2500)] })))).to.deep.equal(
      refused(['gift_cards'], 'The checkout session holds gift cards: leave out `gift_cards`', 'checkout_session_gift_cards'),
    )
    expect(await cardDataOf(w, id)).to.deep.equal(before)
    expect([card.calls, await balanceOf(w, GIFT), await balanceOf(w, OTHER)]).to.deep.equal([[], MOCK_BALANCE, MOCK_BALANCE])
    // Gift cards in the request with a session holding a card alone are a split payment as ever.
    const cardOnly = await sessionWith(w, null, { payment_method: CARD })
    const t = (await right(w.create(fromSession(cardOnly, { gift_cards: [gift(OTHER, 2500)] })))).value
    expect([t.status, t.authorized_amount, t.gift_card_redemptions.map((x) => x.status)]).to.deep.equal([
      'authorization_succeeded',
      7500,
      ['succeeded'],
    ])
  })

  it('checks again what it takes: gift cards put on the session after the request looked are refused as well', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const id = await sessionWith(w, 10_000, { payment_method: CARD })
    // The look comes first, then the browser sends the fields again, now with a gift card, before the take.
    const find = w.sessions.find.bind(w.sessions)
    w.sessions.find =
      (...args) =>
      async () => {
        const seen = await find(...args)()
        await right(
          makePutCheckoutSessionFields(w)({
            id,
            input: { payment_method: CARD, gift_cards: [gift(GIFT, 100)] },
          }),
        )
        return seen
      }
    expect(await left(w.create(fromSession(id, { gift_cards: [gift(OTHER, 2500)] })))).to.deep.equal(
      refused(['gift_cards'], 'The checkout session holds gift cards: leave out `gift_cards`', 'checkout_session_gift_cards'),
    )
    expect([card.calls, await balanceOf(w, GIFT), await balanceOf(w, OTHER)]).to.deep.equal([[], MOCK_BALANCE, MOCK_BALANCE])
  })

  it('checks the session’s gift cards against the transaction’s amount: more than it, a card missing or one for nothing is a 400', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const at = ['payment_method', 'id']
    const cases: [CheckoutSessionFields, number, ReturnType<typeof refused>][] = [
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 6000), gift(OTHER, 5000)] },
        10_000,
        refused(at, "The checkout session's gift cards would pay more than the transaction amount", 'gift_cards_exceed_amount'),
      ],
      [
        { gift_cards: [gift(GIFT, 6000)] },
        10_000,
        refused(at, 'The gift cards pay 6000 of 10000: a card on the checkout session must pay the rest', 'payment_method_required'),
      ],
      [
        { payment_method: CARD, gift_cards: [gift(GIFT, 500)] },
        500,
        refused(at, 'The gift cards pay the whole amount: send the fields again without the card', 'payment_method_not_needed'),
      ],
    ]
    for (const [fields, amount, refusal] of cases) {
      // A session without an amount: nothing told the fields what the payment would be.
      const id = await sessionWith(w, null, fields)
      expect(await left(w.create(fromSession(id, { amount }))), refusal.problems[0]?.type).to.deep.equal(refusal)
      // Taken to be checked, the card data is used up, as a card found expired is: the shopper sends it again.
      expect(await cardDataOf(w, id)).to.equal(null)
    }
    expect([card.calls, await balanceOf(w, GIFT), await balanceOf(w, OTHER)]).to.deep.equal([[], MOCK_BALANCE, MOCK_BALANCE])
  })

  it('undoes a session’s split payment when one of its gift cards is refused: the first given back, the card part voided', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const id = await sessionWith(w, 10_000, { payment_method: CARD, gift_cards: [gift(GIFT, 2500), gift(EMPTY, 1000)] })
    const t = (await right(w.create(fromSession(id)))).value
    expect([t.status, t.error_code, t.gift_card_redemptions.map((x) => [x.status, x.refunded_amount])]).to.deep.equal([
      'authorization_voided',
      'insufficient_funds',
      [
        ['succeeded', 2500],
        ['failed', 0],
      ],
    ])
    expect(card.calls.map((c) => c.op)).to.deep.equal(['authorize', 'void'])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE)
    invariants(await record(w, t.id), [card])
  })
})
