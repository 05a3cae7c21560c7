import { expect } from 'chai'
import { randomInt } from 'node:crypto'
import { MOCK_BALANCE } from '@orka/adapters-node'
import { ErrorBody, Harness, Reply } from '../support/harness'
import { TwoInstances, twoInstances } from './support'

const PIN = '7q3x'
const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const RUNS = 3

interface Tx {
  readonly id: string
  readonly status: string
  readonly captured_amount: number
  readonly refunded_amount: number
  readonly gift_card_redemptions: readonly { readonly id: string; readonly amount: number; readonly refunded_amount: number }[]
}

interface Refund {
  readonly amount: number
  readonly status: string
  readonly target_type: string
}

/** A gift card number fresh for this test, none of the sandbox provider's test endings. */
const freshGiftCard = () => `62${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e3)).padStart(3, '0')}5555`

/** An answer as these checks count it: its status, and for an error the reason its details give. */
const outcomeOf = (r: Reply): string => {
  if (r.status < 300) return String(r.status)
  const detail = (r.body as ErrorBody).details[0]
  // The few that lost every round (OPERATION_ROUNDS) to operations begun and ended meanwhile are counted apart.
  return `${r.status} ${detail?.type ?? (r.body as ErrorBody).code}${detail?.message?.startsWith('Other operations') === true ? ' (rounds)' : ''}`
}
const tally = (replies: readonly Reply[]) =>
  replies.reduce<Record<string, number>>((m, r) => ({ ...m, [outcomeOf(r)]: (m[outcomeOf(r)] ?? 0) + 1 }), {})
const REFUSALS = ['409 operation_in_progress', '409 operation_in_progress (rounds)', '409 invalid_transaction_status']

/**
 * Operations racing on one transaction across two instances on one MongoDB database (requests
 * alternate between them), as an attack review sent them: one goes through, every other one is
 * a 409 that names why (another operation in progress, or the state it left), and none is a 5xx
 * for work that another request did. The money afterwards is what the records say.
 */
describe('operations racing on one transaction across two instances (MongoDB)', function () {
  this.timeout(180_000)
  let a: Harness
  let b: Harness
  let both: TwoInstances
  before(async () => {
    both = await twoInstances({ CONNECTOR_TIMEOUT_MS: '15000' })
    ;({ a, b } = both)
  })
  after(() => both.close())

  const at = (i: number) => (i % 2 === 0 ? a : b)
  const balanceOf = async (number: string) => {
    const r = await a.request<{ items: { balance: number | null }[] }>('POST', '/gift-cards/balances', {
      body: { items: [{ number, pin: PIN }] },
    })
    expect(r.status, r.text).to.equal(200)
    return r.body.items[0]?.balance
  }
  const pay = async (body: Record<string, unknown>) => {
    const r = await a.request<Tx>('POST', '/transactions', { body: { currency: 'USD', payment_method: CARD, ...body } })
    expect(r.status, r.text).to.equal(201)
    return r.body
  }

  it(`30 voids of a split payment (5000, 3000 on a gift card), ${RUNS} times: one 200, 29 × 409, the gift card whole again`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const number = freshGiftCard()
      const t = await pay({ amount: 5000, gift_cards: [{ number, pin: PIN, amount: 3000 }] })
      expect([t.status, await balanceOf(number)]).to.deep.equal(['authorization_succeeded', MOCK_BALANCE - 3000])
      const replies = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          at(i).request<Tx>('POST', `/transactions/${t.id}/void`, { headers: { 'idempotency-key': `void-${run}-${i}` } }),
        ),
      )
      const counts = tally(replies)
      expect(counts['200'], JSON.stringify(counts)).to.equal(1)
      expect(
        Object.keys(counts).filter((k) => k !== '200' && !REFUSALS.includes(k)),
        JSON.stringify(counts),
      ).to.deep.equal([])
      expect(replies.find((r) => r.status === 200)?.body.status).to.equal('authorization_voided')
      const after = await b.request<Tx>('GET', `/transactions/${t.id}`)
      expect([after.body.status, await balanceOf(number)]).to.deep.equal(['authorization_voided', MOCK_BALANCE])
      console.log(`      run ${run + 1}: 30 voids ${JSON.stringify(counts)}`)
    }
  })

  it(`40 mixed refunds of a captured split payment (card part, each redemption, refunds/all), ${RUNS} times: each a 201 or a 409 naming why`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const [first, second] = [freshGiftCard(), freshGiftCard()]
      const t = await pay({
        amount: 5000,
        intent: 'capture',
        gift_cards: [
          { number: first, pin: PIN, amount: 1500 },
          { number: second, pin: PIN, amount: 1000 },
        ],
      })
      expect(t.status).to.equal('capture_succeeded')
      const [x, y] = t.gift_card_redemptions.map((r) => r.id)
      const bodies = [
        { amount: 100 },
        { amount: 100, target_type: 'gift-card-redemption', target_id: x },
        { amount: 100, target_type: 'gift-card-redemption', target_id: y },
      ]
      const replies = await Promise.all(
        Array.from({ length: 40 }, (_, i) => {
          const headers = { 'idempotency-key': `refund-${run}-${i}` }
          const body = bodies[i % 4]
          return body === undefined
            ? at(i).request('POST', `/transactions/${t.id}/refunds/all`, { headers })
            : at(i).request('POST', `/transactions/${t.id}/refunds`, { headers, body })
        }),
      )
      const counts = tally(replies)
      expect(counts['201'] ?? 0, JSON.stringify(counts)).to.be.at.least(1)
      expect(
        Object.keys(counts).filter((k) => k !== '201' && !REFUSALS.includes(k)),
        JSON.stringify(counts),
      ).to.deep.equal([])

      // The money: no more refunded than captured, to the card or to either gift card, and each gift card's balance says so.
      const after = (await b.request<Tx>('GET', `/transactions/${t.id}`)).body
      const refunds = (await b.request<{ items: Refund[] }>('GET', `/transactions/${t.id}/refunds`)).body.items
      const toCard = refunds.filter((r) => r.target_type === 'payment-method' && r.status === 'succeeded').reduce((s, r) => s + r.amount, 0)
      expect([refunds.every((r) => r.status === 'succeeded'), toCard <= 2500, after.refunded_amount <= 5000]).to.deep.equal([
        true,
        true,
        true,
      ])
      for (const [number, r] of [
        [first, after.gift_card_redemptions[0]],
        [second, after.gift_card_redemptions[1]],
      ] as const) {
        expect(r?.refunded_amount).to.be.at.most(r?.amount ?? 0)
        expect(await balanceOf(number)).to.equal(MOCK_BALANCE - (r?.amount ?? 0) + (r?.refunded_amount ?? 0))
      }
      console.log(`      run ${run + 1}: 40 refunds ${JSON.stringify(counts)}`)
    }
  })
})
