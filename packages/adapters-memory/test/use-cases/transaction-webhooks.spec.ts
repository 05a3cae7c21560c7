import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { foldVersions, foldWrittenVersions } from '@orka/domain'
import { aWebhookRecord, MERCHANT_A, MERCHANT_B, right, uuidFor } from '@orka/domain/testing'
import { transactionWorld } from './transaction-world'

const A_SUB = uuidFor(0xa1)
const B_SUB = uuidFor(0xb1)
const ALL = { direction: 'forward', from: O.none, limit: 100 } as const

/**
 * A transaction's webhook events are written with its versions and fanned out to the
 * subscriptions of its account when folded: nothing on the request path reads the subscriptions
 * or writes an outbox entry, and a fold repeated (a batch retried, the relay after a crash)
 * stores each delivery once.
 */
describe("a transaction's webhook events, written with its versions", () => {
  it("reach the account's subscriptions once folded, once each however often folded", async () => {
    const w = await transactionWorld()
    await right(w.webhooks.create(aWebhookRecord({ id: A_SUB, merchant_account_id: MERCHANT_A })))
    await right(w.webhooks.create(aWebhookRecord({ id: B_SUB, merchant_account_id: MERCHANT_B })))
    const { value: t } = await right(w.create())
    expect(await right(w.deliveries.list(A_SUB, {}, ALL)), 'nothing before the fold').to.deep.equal([])
    const written = await right(w.transactions.unfolded(new Date('9999-01-01T00:00:00Z'), 10))
    expect(written.map((u) => [u.version.version, u.audit.length, u.events.map((e) => e.event_name)])).to.deep.equal([
      [0, 1, []],
      [1, 0, ['transaction.authorized']],
    ])

    const wakes = w.dispatch.wakes
    expect(await right(w.folds.flush())).to.be.greaterThan(0)
    const delivered = await right(w.deliveries.list(A_SUB, {}, ALL))
    expect(delivered.map((d) => [d.event_name, d.status, d.merchant_account_id])).to.deep.equal([
      ['transaction.authorized', 'pending', MERCHANT_A],
    ])
    expect(JSON.parse(delivered[0]?.body ?? '{}')).to.deep.include({ name: 'transaction.authorized', target: t })
    expect(await right(w.deliveries.list(B_SUB, {}, ALL)), "another account's subscription").to.deep.equal([])
    expect(w.dispatch.wakes).to.equal(wakes + 1)
    expect(w.dispatch.published, 'no outbox entry handed over').to.deep.equal([])

    // The same versions folded again, as a retried batch or the relay would: no second delivery.
    await right(foldVersions(w)(written))
    await right(foldWrittenVersions(w)(new Date('9999-01-01T00:00:00Z'), 10))
    expect(await right(w.deliveries.list(A_SUB, {}, ALL))).to.deep.equal(delivered)
  })

  it('go to the subscriptions there are when folded: one deleted before the fold gets nothing', async () => {
    const w = await transactionWorld()
    await right(w.webhooks.create(aWebhookRecord({ id: A_SUB, merchant_account_id: MERCHANT_A })))
    await right(w.create())
    expect(await right(w.webhooks.delete({ merchantAccountId: MERCHANT_A, includeInstanceWide: false }, A_SUB))).to.equal(true)
    await right(w.folds.flush())
    expect(await right(w.deliveries.list(A_SUB, {}, ALL))).to.deep.equal([])
    expect(w.fannedOut.map((e) => e.event_name)).to.deep.equal(['transaction.authorized'])
  })
})
