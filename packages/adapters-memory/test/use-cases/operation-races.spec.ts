import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { OperationDone, OperationError, TransactionRecord } from '@orka/domain'
import { right, ScriptedCardConnector } from '@orka/domain/testing'
import { MOCK_BALANCE } from '@orka/adapters-node'
import { invariants, payment, record, transactionWorld, TransactionWorld } from './transaction-world'
import { testBox } from './support'

const GIFT = '4123450000005555'
const OTHER = '4123450000006666'
const PIN = '1234'
const gift = (number: string, amount: number) => ({ number, pin: PIN, amount })

type Answer = E.Either<OperationError, { readonly value: OperationDone }>

/** The machine-readable reason of a 409, or the tag of any other refusal. */
const why = (a: Answer): string => (E.isRight(a) ? 'ok' : a.left._tag === 'Conflict' ? a.left.problem.type : a.left._tag)

const tally = (answers: readonly Answer[]) =>
  answers.reduce<Record<string, number>>((m, a) => ({ ...m, [why(a)]: (m[why(a)] ?? 0) + 1 }), {})

const balanceOf = async (w: TransactionWorld, number: string) => {
  const b = await right(w.giftCardMock.balance({ service: w.giftCardService, number, pin: PIN }))
  return b._tag === 'Balance' ? b.balance : null
}

/** Each gift card's balance is its opening less what stands redeemed, plus what was refunded to it. */
const giftCardsHold = async (w: TransactionWorld, r: TransactionRecord) => {
  const box = testBox()
  for (const x of r.gift_card_redemptions ?? []) {
    const taken = x.status === 'succeeded' && x.reversal?.status !== 'succeeded' ? x.amount : 0
    const given = r.refunds.filter((y) => y.redemption_id === x.id && y.status === 'succeeded').reduce((a, y) => a + y.amount, 0)
    expect(given, 'refunded to a gift card <= what its redemption took').to.be.at.most(x.amount)
    expect(await balanceOf(w, box.open(x.sealed_number))).to.equal(MOCK_BALANCE - taken + given)
  }
}

describe('operations racing on one transaction: one goes through, the others are told why', () => {
  it('30 voids of a split payment, each with its own key: one voids it, 29 are 409s naming the state; nothing is a 5xx', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const t = (await right(w.create(payment({ amount: 5000, gift_cards: [gift(GIFT, 3000)] })))).value
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE - 3000)

    const answers: Answer[] = await Promise.all(Array.from({ length: 30 }, (_, i) => w.void(t.id, `void-${i}`)()))
    const counts = tally(answers)
    expect(counts.ok, JSON.stringify(counts)).to.equal(1)
    expect(
      Object.keys(counts).filter((k) => k !== 'ok' && k !== 'operation_in_progress' && k !== 'invalid_transaction_status'),
    ).to.deep.equal([])
    const voided = answers.find(E.isRight)
    expect(voided?.right.value.transaction.status).to.equal('authorization_voided')
    const r = await record(w, t.id)
    expect([r.status, r.pending]).to.deep.equal(['authorization_voided', false])
    expect(card.calls.map((c) => c.op)).to.deep.equal(['authorize', 'void'])
    expect(await balanceOf(w, GIFT)).to.equal(MOCK_BALANCE)
    invariants(r, [card])
  })

  it('40 mixed refunds of a captured split payment: each a success or a 409 naming why; what went through stays within what was taken', async () => {
    const card = new ScriptedCardConnector()
    const w = await transactionWorld([card])
    const t = (await right(w.create(payment({ amount: 5000, intent: 'capture', gift_cards: [gift(GIFT, 1500), gift(OTHER, 1000)] })))).value
    expect(t.status).to.equal('capture_succeeded')
    const [first, second] = t.gift_card_redemptions.map((x) => x.id)
    const requests = Array.from({ length: 40 }, (_, i) => {
      switch (i % 4) {
        case 0:
          return w.refund(t.id, { amount: 100 }, `refund-${i}`)
        case 1:
          return w.refund(t.id, { amount: 100, target_type: 'gift-card-redemption', target_id: first }, `refund-${i}`)
        case 2:
          return w.refund(t.id, { amount: 100, target_type: 'gift-card-redemption', target_id: second }, `refund-${i}`)
        default:
          return w.refundAll(t.id, `refund-${i}`)
      }
    })
    const answers: Answer[] = await Promise.all(requests.map((x) => x()))
    const counts = tally(answers)
    expect(counts.ok ?? 0, JSON.stringify(counts)).to.be.at.least(1)
    expect(
      Object.keys(counts).filter((k) => k !== 'ok' && k !== 'operation_in_progress' && k !== 'invalid_transaction_status'),
    ).to.deep.equal([])
    const r = await record(w, t.id)
    expect(r.pending).to.equal(false)
    invariants(r, [card])
    await giftCardsHold(w, r)
    console.log(`      40 racing refunds on one transaction (memory): ${JSON.stringify(counts)}`)
  })
})
