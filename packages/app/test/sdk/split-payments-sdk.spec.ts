import { randomInt } from 'node:crypto'
import { expect } from 'chai'
import { GiftCardRedemption, Transaction } from '@gr4vy/sdk/models/components'
import { errorBody } from '../support/harness'
import { cardPaymentMethod, expectedRefund, expectedTransaction, onBothStores, refusedByOrka, uniqueId } from './transactions-support'

const PIN = '8642'
/** A gift card number the mock gift card service funds with 10000 USD, fresh for each call (and each run: MongoDB keeps balances). */
const giftCardNumber = () => `73${String(randomInt(10 ** 12)).padStart(12, '0')}${String(1000 + randomInt(8000))}`

/** A redemption as the SDK parses it: succeeded unless `o` says otherwise. */
const redemption = (t: Transaction, i: number, number: string, o: Partial<GiftCardRedemption> = {}): GiftCardRedemption => ({
  type: 'gift-card-redemption',
  id: t.giftCardRedemptions[i]?.id ?? '',
  status: 'succeeded',
  amount: 0,
  refundedAmount: 0,
  giftCardServiceRedemptionId: null,
  errorCode: null,
  rawErrorCode: null,
  rawErrorMessage: null,
  giftCard: { type: 'gift-card', id: null, bin: number.slice(0, 6), subBin: number.slice(6, 9), last4: number.slice(-4) },
  ...o,
})

/**
 * Split payments through the original API SDK: `transactions.create` with `giftCards` (by
 * number and PIN, and a stored card by id), `transactions.refunds.create` with `targetType:
 * "gift-card-redemption"`, and `giftCards.balances.list` showing what the payments took and gave
 * back. The SDK validates every answer against its schemas, so each call parsing is a check too.
 */
onBothStores("the original API SDK's split payments against Orka", (world) => {
  it('transactions.create with a card and gift cards by number and by stored id: the whole Transaction, each redemption, the balances', async () => {
    const { sdk } = world()
    const [a, b] = [giftCardNumber(), giftCardNumber()]
    const stored = await sdk.giftCards.create({ number: b, pin: PIN })
    const externalIdentifier = uniqueId('split')
    const t = await sdk.transactions.create({
      amount: 5000,
      currency: 'USD',
      externalIdentifier,
      paymentMethod: cardPaymentMethod(),
      giftCards: [
        { number: a, pin: PIN, amount: 1200 },
        { id: stored.id, amount: 800 },
      ],
    })
    expect(t).to.deep.equal(
      expectedTransaction(t, world().now(), {
        amount: 5000,
        authorizedAmount: 3000,
        externalIdentifier,
        multiTender: true,
        giftCardRedemptions: [
          redemption(t, 0, a, { amount: 1200 }),
          redemption(t, 1, b, {
            amount: 800,
            giftCard: { type: 'gift-card', id: stored.id, bin: b.slice(0, 6), subBin: b.slice(6, 9), last4: b.slice(-4) },
          }),
        ],
      }),
    )
    expect(await sdk.transactions.get(t.id)).to.deep.equal(t)
    const balances = await sdk.giftCards.balances.list({ items: [{ number: a, pin: PIN }, { id: stored.id }] })
    expect(balances.items.map((x) => [x.last4, x.balance])).to.deep.equal([
      [a.slice(-4), 8800],
      [b.slice(-4), 9200],
    ])
    // The SDK's GiftCard has no usage fields: read them as Orka sends them.
    const used = await world().h.request<{ usage_count: number; last_used_at: string }>('GET', `/gift-cards/${stored.id}`)
    expect([used.body.usage_count, used.body.last_used_at]).to.deep.equal([1, world().now().toISOString()])
    const listed = await sdk.transactions.list({ giftCardId: stored.id })
    expect(listed.result.items.map((x) => x.id)).to.deep.equal([t.id])
    expect((await sdk.transactions.list({ hasGiftCardRedemptions: false, externalIdentifier })).result.items).to.deep.equal([])
  })

  it('transactions.create with gift cards alone, then refunds.create targeting each redemption: the gift cards get it back', async () => {
    const { sdk } = world()
    const [a, b] = [giftCardNumber(), giftCardNumber()]
    const t = await sdk.transactions.create({
      amount: 3000,
      currency: 'USD',
      giftCards: [
        { number: a, pin: PIN, amount: 2000 },
        { number: b, pin: PIN, amount: 1000 },
      ],
    })
    expect([t.status, t.paymentMethod, t.method, t.authorizedAmount, t.intentOutcome, t.multiTender]).to.deep.equal([
      'capture_succeeded',
      null,
      'gift-card',
      0,
      'succeeded',
      true,
    ])
    const [ra, rb] = t.giftCardRedemptions.map((x) => x.id)
    const refund = await sdk.transactions.refunds.create(
      { amount: 500, targetType: 'gift-card-redemption', targetId: ra, reason: 'one item' },
      t.id,
    )
    expect(refund).to.deep.equal(
      expectedRefund(refund, t, world().now(), {
        amount: 500,
        reason: 'one item',
        targetType: 'gift-card-redemption',
        targetId: ra,
        paymentServiceRefundId: null,
        rawResponseCode: null,
        rawResponseDescription: null,
      }),
    )
    // More than is left of the redemption, and a target that is no redemption of this transaction: 400s.
    const over = await refusedByOrka(
      sdk.transactions.refunds.create({ amount: 1501, targetType: 'gift-card-redemption', targetId: ra }, t.id),
    )
    expect([over.statusCode, JSON.parse(over.body)]).to.deep.equal([
      400,
      {
        ...errorBody(400, [
          {
            location: 'body',
            pointer: '/amount',
            message: 'The amount is above what is left to refund, 1500',
            type: 'amount_above_refundable',
          },
        ]),
        message: 'Request failed validation',
      },
    ])
    const stranger = await refusedByOrka(sdk.transactions.refunds.create({ targetType: 'gift-card-redemption', targetId: t.id }, t.id))
    expect(JSON.parse(stranger.body)).to.have.nested.property('details[0].type', 'unknown_gift_card_redemption')
    const all = await sdk.transactions.refunds.all.create(t.id)
    expect(all.items.map((x) => [x.targetType, x.targetId, x.amount, x.status])).to.deep.equal([
      ['gift-card-redemption', ra, 1500, 'succeeded'],
      ['gift-card-redemption', rb, 1000, 'succeeded'],
    ])
    const after = await sdk.transactions.get(t.id)
    expect([after.refundedAmount, after.giftCardRedemptions.map((x) => x.refundedAmount)]).to.deep.equal([3000, [2000, 1000]])
    const balances = await sdk.giftCards.balances.list({
      items: [
        { number: a, pin: PIN },
        { number: b, pin: PIN },
      ],
    })
    expect(balances.items.map((x) => x.balance)).to.deep.equal([10_000, 10_000])
  })

  it('a gift card short of funds undoes the payment: authorization_voided, intent_outcome failed, the error code, the other card given back', async () => {
    const { sdk } = world()
    const a = giftCardNumber()
    const empty = `${giftCardNumber().slice(0, -4)}0004`
    const t = await sdk.transactions.create({
      amount: 4000,
      currency: 'USD',
      paymentMethod: cardPaymentMethod(),
      giftCards: [
        { number: a, pin: PIN, amount: 1000 },
        { number: empty, pin: PIN, amount: 500 },
      ],
    })
    expect([t.status, t.intentOutcome, t.errorCode, t.voidedAt]).to.deep.equal([
      'authorization_voided',
      'failed',
      'insufficient_funds',
      world().now(),
    ])
    expect(t.giftCardRedemptions).to.deep.equal([
      redemption(t, 0, a, { amount: 1000, refundedAmount: 1000 }),
      redemption(t, 1, empty, { amount: 500, status: 'failed', errorCode: 'insufficient_funds' }),
    ])
    expect((await sdk.giftCards.balances.list({ items: [{ number: a, pin: PIN }] })).items[0]?.balance).to.equal(10_000)
  })
})
