import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { FOLD_BATCH, FOLD_QUEUE, foldWrittenVersions, makeVersionFolds } from '@orka/domain'
import { anAuditRecord, aTransactionRecord, ManualClock, MERCHANT_A, right, SequentialIds, uuidFor } from '@orka/domain/testing'
import { MemoryAuditLog } from '../../src'
import { eventWorld, transactionFolds } from './support'

const ALL = { direction: 'forward', from: O.none, limit: FOLD_QUEUE + 10 } as const
const FAR_FUTURE = new Date('9999-01-01T00:00:00Z')

/** The queue of folds: batches of FOLD_BATCH, at most FOLD_QUEUE waiting, and nothing lost by what it gives up. */
describe('the queue of version folds', () => {
  const world = () => {
    const events = eventWorld(new ManualClock(new Date('2025-01-15T10:00:00Z')), new SequentialIds())
    const { transactions, fanOut } = transactionFolds(events)
    return { audit: events.audit, transactions, fanOut, folds: makeVersionFolds({ audit: events.audit, transactions, fanOut }) }
  }
  const fold = (n: number) => ({
    version: { merchantAccountId: MERCHANT_A, transactionId: uuidFor(n), version: 0 },
    audit: [anAuditRecord({ id: uuidFor(100_000 + n), committed: true, check: null })],
    events: [],
  })
  const listed = (audit: MemoryAuditLog) => right(audit.list(MERCHANT_A, {}, ALL))

  it('writes at most FOLD_BATCH folds a flush, oldest first', async () => {
    const w = world()
    for (let n = 0; n < FOLD_BATCH + 50; n++) w.folds.later(fold(n))
    expect(await right(w.folds.flush())).to.equal(FOLD_BATCH)
    expect(await right(w.folds.flush())).to.equal(50)
    expect(await right(w.folds.flush())).to.equal(0)
    expect(await listed(w.audit)).to.have.length(FOLD_BATCH + 50)
  })

  it('keeps at most FOLD_QUEUE waiting, giving up the oldest, which the relay folds from storage', async () => {
    const w = world()
    const oldest = aTransactionRecord({ id: uuidFor(0) })
    const entry = fold(0).audit
    expect(await right(w.transactions.put(oldest, { audit: entry }))).to.equal(true)
    for (let n = 0; n <= FOLD_QUEUE; n++) w.folds.later(fold(n))
    let written = 0
    for (let f = await right(w.folds.flush()); f > 0; f = await right(w.folds.flush())) written += f
    expect(written).to.equal(FOLD_QUEUE)
    expect((await listed(w.audit)).map((e) => e.id)).not.to.include(entry[0]?.id)
    expect(await right(foldWrittenVersions(w)(FAR_FUTURE, 10))).to.equal(1)
    expect((await listed(w.audit)).map((e) => e.id)).to.include(entry[0]?.id)
  })
})
