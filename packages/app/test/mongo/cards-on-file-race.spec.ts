import { expect } from 'chai'
import { randomInt } from 'node:crypto'
import { ManualClock } from '@orka/domain/testing'
import { Harness, makeFixture, startHarness } from '../support/harness'
import { withCheckDigit } from '../http/payment-method-support'
import { freshDatabase } from './support'

interface Paid {
  readonly id: string
  readonly status: string
  readonly payment_method: { readonly id: string | null } | null
}
interface Method {
  readonly id: string
  readonly status: string
  readonly usage_count: number
}

const N = 16

/** A Visa number fresh for this run (the mock card service approves any but its test endings). */
const freshCard = (): string => withCheckDigit(`4${String(randomInt(1e9)).padStart(9, '0')}${String(randomInt(1e5)).padStart(5, '0')}`)

/**
 * Payments racing to keep one card for one buyer, across two instances on one MongoDB database:
 * 16 `store: true` payments of the same card, half to each instance, at once. The vault's unique
 * (account, buyer, fingerprint) key lets one insert win: every payment names that one method,
 * which ends `succeeded`, and the buyer has one card on file. Each instance counts its own uses in
 * turn; two instances counting at the same instant on FerretDB (whose `$inc` is a read then a
 * write) may count one, so the count is at most 16 (exactly 16 on MongoDB, whose `$inc` is atomic).
 */
describe('store: true payments racing for one card across two instances (MongoDB)', function () {
  this.timeout(120_000)
  let a: Harness
  let b: Harness
  let db: ReturnType<typeof freshDatabase>
  beforeEach(async () => {
    db = freshDatabase()
    const fixture = makeFixture()
    const clock = new ManualClock(new Date())
    a = await startHarness({ fixture, clock, env: db.env })
    b = await startHarness({ fixture, clock, env: db.env })
  })
  afterEach(async () => {
    await Promise.all([a.close(), b.close()])
    await db.drop()
  })

  it('keeps one payment method that every payment names, succeeded, and pays each payment once', async () => {
    const buyer = await a.request<{ id: string }>('POST', '/buyers', { body: { display_name: 'Ada' } })
    expect(buyer.status).to.equal(201)
    const body = {
      amount: 1299,
      currency: 'USD',
      buyer_id: buyer.body.id,
      store: true,
      payment_method: { method: 'card', number: freshCard(), expiration_date: '12/35', security_code: '123' },
    }
    const replies = await Promise.all(
      Array.from({ length: N }, (_, i) => (i % 2 === 0 ? a : b).request<Paid>('POST', '/transactions', { body })),
    )
    expect(replies.map((r) => [r.status, r.body.status])).to.deep.equal(replies.map(() => [201, 'authorization_succeeded']))
    const ids = new Set(replies.map((r) => r.body.payment_method?.id))
    expect(ids.size, 'payment methods named').to.equal(1)
    expect(new Set(replies.map((r) => r.body.id)).size, 'transactions').to.equal(N)

    const listed = await b.request<{ items: Method[] }>('GET', `/payment-methods?buyer_id=${buyer.body.id}`)
    expect(listed.status).to.equal(200)
    expect(listed.body.items.map((m) => [m.id, m.status])).to.deep.equal([[[...ids][0], 'succeeded']])
    const used = listed.body.items[0]?.usage_count ?? 0
    expect(used).to.be.at.most(N).and.at.least(1)
  })
})
