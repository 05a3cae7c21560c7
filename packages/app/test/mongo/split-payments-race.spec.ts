import { expect } from 'chai'
import { randomInt } from 'node:crypto'
import { MongoClient } from 'mongodb'
import { MOCK_BALANCE } from '@orka/adapters-node'
import { Harness } from '../support/harness'
import { mongoUri, storedTransactions, TwoInstances, twoInstances } from './support'

/** What these checks read of a stored redemption. */
interface StoredRedemption {
  readonly reference: string
  readonly amount: number
  readonly status: string
  readonly error_code: string | null
  readonly unknown: boolean
  readonly reversal: { readonly status: string } | null
}
interface StoredTx {
  readonly id: string
  readonly status: string
  readonly pending: boolean
  readonly error_code: string | null
  readonly gift_card_redemptions?: readonly StoredRedemption[]
}
interface Paid {
  readonly id: string
  readonly status: string
  readonly error_code: string | null
}

const PIN = '7q3x'
const N = 64
const AMOUNT = 700

/**
 * Split payments race for one gift card's balance across instances: 64 payments of 700, each
 * paid by the same gift card alone, sent at once to two instances on one MongoDB database
 * (half to each). The sandbox provider's balance lives in the shared ledger, so exactly what
 * 10000 covers is taken (14 payments end `capture_succeeded`), the other 50 are refused by
 * the provider (`authorization_declined`, `insufficient_funds`) and take nothing. The provider's
 * balance afterwards (read through the API) is the opening balance less what the stored records
 * say stands redeemed (succeeded, not reversed), and no record is left pending.
 */
describe('split payments racing for one gift card across two instances (MongoDB)', function () {
  this.timeout(120_000)
  let a: Harness
  let b: Harness
  let both: TwoInstances
  beforeEach(async () => {
    // Long enough that no redemption waiting for its turn at the ledger times out (that would be an unknown outcome, not a refusal).
    both = await twoInstances({ CONNECTOR_TIMEOUT_MS: '15000' })
    ;({ a, b } = both)
  })
  afterEach(() => both.close())

  it('lets 64 concurrent gift-card-only payments of one card take exactly what its balance covers; the balance matches the records', async () => {
    // A number fresh for this test, none of the provider's test endings.
    const number = `62${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e3)).padStart(3, '0')}5555`
    const body = { amount: AMOUNT, currency: 'USD', gift_cards: [{ number, pin: PIN, amount: AMOUNT }] }
    const started = Date.now()
    const replies = await Promise.all(
      Array.from({ length: N }, (_, i) => (i % 2 === 0 ? a : b).request<Paid>('POST', '/transactions', { body })),
    )
    const tookMs = Date.now() - started
    expect(
      replies.filter((r) => r.status !== 201).map((r) => `${r.status} ${r.text.slice(0, 200)}`),
      'payments not answered 201',
    ).to.deep.equal([])
    const covered = Math.floor(MOCK_BALANCE / AMOUNT)
    const paid = replies.filter((r) => r.body.status === 'capture_succeeded')
    const refused = replies.filter((r) => r.body.status === 'authorization_declined' && r.body.error_code === 'insufficient_funds')
    const byStatus: Record<string, number> = {}
    for (const r of replies) {
      const k = `${r.body.status}/${String(r.body.error_code)}`
      byStatus[k] = (byStatus[k] ?? 0) + 1
    }
    expect(paid.length, JSON.stringify(byStatus)).to.equal(covered)
    expect(refused.length, JSON.stringify(byStatus)).to.equal(N - covered)
    const paidByA = replies.filter((r, i) => i % 2 === 0 && r.body.status === 'capture_succeeded').length

    // --- the provider's balance, read through the API (each instance says the same) ---
    const balances: number[] = []
    for (const h of [a, b]) {
      const r = await h.request<{ items: { balance: number | null; balance_error_code: string | null }[] }>(
        'POST',
        '/gift-cards/balances',
        { body: { items: [{ number, pin: PIN }] } },
      )
      expect(r.status, r.text).to.equal(200)
      balances.push(r.body.items[0]!.balance!)
    }
    expect(balances).to.deep.equal([MOCK_BALANCE - covered * AMOUNT, MOCK_BALANCE - covered * AMOUNT])

    // --- the stored records: every payment's newest version, settled; the money invariant ---
    const client = new MongoClient(mongoUri())
    try {
      await client.connect()
      const records = [...(await storedTransactions<StoredTx>(client, both.database)).values()]
      expect(records.map((r) => r.id).sort(), 'one stored transaction per payment').to.deep.equal(replies.map((r) => r.body.id).sort())
      expect(
        records.filter((r) => r.pending || r.status === 'processing').map((r) => `${r.id} ${r.status}`),
        'records left pending',
      ).to.deep.equal([])
      const wrong: string[] = []
      for (const r of records) {
        const xs = r.gift_card_redemptions ?? []
        const shape = xs.map((x) => [x.status, x.amount, x.error_code, x.unknown, x.reversal?.status ?? null])
        const want =
          r.status === 'capture_succeeded'
            ? [['succeeded', AMOUNT, null, false, null]]
            : [['failed', AMOUNT, 'insufficient_funds', false, null]]
        if (JSON.stringify(shape) !== JSON.stringify(want)) wrong.push(`${r.id} ${r.status}: ${JSON.stringify(shape)}`)
      }
      expect(wrong, 'redemptions not as their transaction’s status says').to.deep.equal([])
      const standing = records
        .flatMap((r) => r.gift_card_redemptions ?? [])
        .filter((x) => x.status === 'succeeded' && x.reversal?.status !== 'succeeded')
        .reduce((s, x) => s + x.amount, 0)
      expect(balances[0], 'opening balance less what stands redeemed').to.equal(MOCK_BALANCE - standing)
      expect(balances[0]).to.be.at.least(0)
      console.log(
        `      ${N} payments of ${AMOUNT} on one gift card in ${tookMs} ms across two instances: ${JSON.stringify(byStatus)} ` +
          `(paid through a: ${paidByA}, through b: ${covered - paidByA}); ` +
          `balance ${balances[0]} = ${MOCK_BALANCE} − ${standing} standing redeemed`,
      )
    } finally {
      await client.close()
    }
  })
})
