import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { CardConnector, makeCreateTransaction, serviceTimeout } from '@orka/domain'
import { cardConnectorsOf, MERCHANT_A, right, ScriptedCardConnector, SUCCEEDED } from '@orka/domain/testing'
import { invariants, payment, record, transactionWorld, TransactionWorld } from './transaction-world'
import { ACTOR } from './support'

/** `n` payments whose process stopped during the authorization: version 0 recorded, the call never answered. */
const abandoned = async (w: TransactionWorld, service: ScriptedCardConnector, n: number): Promise<string[]> => {
  const hanging: CardConnector = {
    authorize: () => () => new Promise<never>(() => undefined),
    capture: (r) => service.capture(r),
    void: (r) => service.void(r),
    refund: (r) => service.refund(r),
    verify: (f) => service.verify(f),
    readNotification: (f, w) => service.readNotification(f, w),
    lookup: (r) => service.lookup(r),
  }
  const create = makeCreateTransaction({ ...w, cardConnectors: cardConnectorsOf({ 'card-1': hanging }) })
  for (let i = 0; i < n; i++)
    void create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: payment(), idempotencyKey: null, embed: null })()
  await new Promise((r) => setImmediate(r))
  const listed = await right(w.transactions.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 100 }))
  return listed.map((r) => r.id).sort()
}

describe('recovery of pending transactions', () => {
  it('settles, in one pass, more stale transactions than one batch holds', async () => {
    const service = new ScriptedCardConnector()
    const w = await transactionWorld([service])
    const ids = await abandoned(w, service, 5)
    expect(ids).to.have.length(5)
    w.clock.advance(61_000)
    expect(await right(w.recover(60_000, 2))).to.deep.equal({ settled: 5, stillPending: 0 })
    for (const id of ids) {
      const r = await record(w, id)
      expect([r.status, r.pending]).to.deep.equal(['authorization_failed', false])
      invariants(r, [service])
    }
    expect(await right(w.recover(60_000, 2))).to.deep.equal({ settled: 0, stillPending: 0 })
  })

  it('goes on past a batch of transactions its service leaves pending: they never hold the others back', async () => {
    const stuck = new Set<string>()
    const service = new ScriptedCardConnector({
      void: (req) => (stuck.has(req.authorization.split(':')[0] ?? '') ? serviceTimeout('card') : SUCCEEDED),
    })
    const w = await transactionWorld([service])
    const ids = await abandoned(w, service, 5)
    // The two oldest (the order ties on the id) cannot be voided yet.
    for (const id of ids.slice(0, 2)) stuck.add(id)
    w.clock.advance(61_000)
    expect(await right(w.recover(60_000, 2))).to.deep.equal({ settled: 3, stillPending: 2 })
    for (const id of ids.slice(2)) expect((await record(w, id)).pending).to.equal(false)
    for (const id of ids.slice(0, 2)) expect((await record(w, id)).pending).to.equal(true)
    // Once written as unknown and still not voided, they keep their place at the head of the order.
    w.clock.advance(61_000)
    expect(await right(w.recover(60_000, 2))).to.deep.equal({ settled: 0, stillPending: 2 })
    stuck.clear()
    w.clock.advance(61_000)
    expect(await right(w.recover(60_000, 2))).to.deep.equal({ settled: 2, stillPending: 0 })
    for (const id of ids) invariants(await record(w, id), [service])
  })
})
