import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { TransactionStore, WrittenAudit } from '../transactions/transaction.ports'
import { AuditRecord } from './audit-entry'
import { AuditLog } from './audit.ports'
import { ChangeOutcome } from './record-audited'

/**
 * The audit entries a transaction version was written with (`TransactionStore.put`), and, when
 * the writer knows it, whether each one's change happened (a capture's entry is written pending
 * with the capture's request, before the service answers).
 */
export interface AuditFold extends WrittenAudit {
  /** By record id; a record without one goes into the log as it was written. */
  readonly outcomes?: ReadonlyMap<string, ChangeOutcome>
}

/**
 * Moves the audit entries written with transaction versions into the audit log, off the request
 * path: a payment's entry costs no round trip of its own, only a share of a batch. `later`
 * queues; `flush` writes what is queued (the app flushes on a short timer, and before a list).
 * A fold lost with its process is done by `foldWrittenAudit` from the versions themselves.
 */
export interface AuditFolds {
  later(fold: AuditFold): void
  flush(): TE.TaskEither<Unavailable, number>
}
export const AuditFolds = token<AuditFolds>('AuditFolds')

/**
 * Adds the folds' entries to the log (one that happened committed, one that did not left out,
 * the rest as written: a pending one is settled by the relay's probe), then marks their versions
 * folded. Adding is idempotent by id, so a fold repeated after a failure, or done twice by two
 * processes, stores each entry once; one left pending by the other is still settled by its probe.
 */
export const foldAudit =
  (deps: { audit: AuditLog; transactions: TransactionStore }) =>
  (folds: readonly AuditFold[]): TE.TaskEither<Unavailable, number> =>
  async () => {
    if (folds.length === 0) return E.right(0)
    const records = folds.flatMap((f) =>
      f.records.flatMap((r): AuditRecord[] => {
        const outcome = f.outcomes?.get(r.id)
        if (r.committed || outcome === undefined || outcome === 'not-known') return [r]
        return outcome === 'happened' ? [{ ...r, committed: true, check: null }] : []
      }),
    )
    const added = await deps.audit.addAll(records)()
    if (E.isLeft(added)) return added
    const marked = await deps.transactions.auditFolded(folds.map((f) => f.version))()
    return E.isLeft(marked) ? marked : E.right(records.length)
  }

/** A queue of folds written in batches by `flush`; a failed batch is left to `foldWrittenAudit`. */
export const makeAuditFolds = (deps: { audit: AuditLog; transactions: TransactionStore }): AuditFolds => {
  let queued: AuditFold[] = []
  const fold = foldAudit(deps)
  return {
    later: (f) => {
      if (f.records.length > 0) queued.push(f)
    },
    flush: () => {
      const batch = queued
      queued = []
      return fold(batch)
    },
  }
}

/**
 * The relay's part: folds the entries of versions written before `before` and still not folded
 * (their process stopped first, or its batch failed), as they were written.
 */
export const foldWrittenAudit =
  (deps: { audit: AuditLog; transactions: TransactionStore }) =>
  (before: Date, limit: number): TE.TaskEither<Unavailable, number> =>
  async () => {
    const written = await deps.transactions.unfoldedAudit(before, limit)()
    return E.isLeft(written) ? written : foldAudit(deps)(written.right)()
  }
