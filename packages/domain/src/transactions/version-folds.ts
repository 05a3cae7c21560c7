import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { AuditRecord } from '../audit/audit-entry'
import { AuditLog } from '../audit/audit.ports'
import { ChangeOutcome } from '../audit/record-audited'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { FanOut } from '../webhooks/webhook-events.ports'
import { TransactionStore, Unfolded } from './transaction.ports'

/**
 * What a transaction version was written with (`TransactionStore.put`): its audit entries and
 * webhook events, and, when the writer knows it, whether each pending entry's change happened (a
 * capture's entry is written pending with the capture's request, before the service answers).
 */
export interface VersionFold extends Unfolded {
  /** By audit record id; a record without one goes into the log as it was written. */
  readonly outcomes?: ReadonlyMap<string, ChangeOutcome>
}

/**
 * Moves what versions were written with to where it is read, off the request path: audit
 * entries into the audit log, webhook events to their recipients' deliveries. A payment's entry
 * and event cost it no round trip of their own, only a share of a batch. `later` queues; `flush`
 * writes what is queued (the app flushes on a short timer, and the audit list before it reads).
 * A fold lost with its process is done by `foldWrittenVersions` from the versions themselves.
 */
export interface VersionFolds {
  later(fold: VersionFold): void
  flush(): TE.TaskEither<Unavailable, number>
}
export const VersionFolds = token<VersionFolds>('VersionFolds')

export interface FoldDeps {
  readonly audit: AuditLog
  readonly transactions: TransactionStore
  readonly fanOut: FanOut
}

/**
 * Adds the folds' entries to the log (one that happened committed, one that did not left out,
 * the rest as written: a pending one is settled by the audit relay's probe), fans their events
 * out, then marks their versions folded. Both are idempotent (an entry by its id, a delivery by
 * an id derived from its event and subscription), so a fold repeated after a failure, or done by
 * two processes, stores each once; one left pending by the other is still settled by its probe.
 */
export const foldVersions =
  (deps: FoldDeps) =>
  (folds: readonly VersionFold[]): TE.TaskEither<Unavailable, number> =>
  async () => {
    if (folds.length === 0) return E.right(0)
    const records = folds.flatMap((f) =>
      f.audit.flatMap((r): AuditRecord[] => {
        const outcome = f.outcomes?.get(r.id)
        if (r.committed || outcome === undefined || outcome === 'not-known') return [r]
        return outcome === 'happened' ? [{ ...r, committed: true, check: null }] : []
      }),
    )
    const added = records.length === 0 ? E.right(undefined) : await deps.audit.addAll(records)()
    if (E.isLeft(added)) return added
    const events = folds.flatMap((f) => f.events)
    const fanned = events.length === 0 ? E.right(undefined) : await deps.fanOut(events)()
    if (E.isLeft(fanned)) return fanned
    const marked = await deps.transactions.folded(folds.map((f) => f.version))()
    return E.isLeft(marked) ? marked : E.right(folds.length)
  }

/** At most this many folds are written by one `flush`: a batch stays well within a storage call's bound. */
export const FOLD_BATCH = 200
/** At most this many folds wait in a queue; beyond it the oldest are left to the relay (storage holds them). */
export const FOLD_QUEUE = 20_000

/**
 * A queue of folds written in batches by `flush`, FOLD_BATCH at a time. Nothing is lost by what
 * the queue gives up (a failed batch, the oldest of a full queue, all of it with its process):
 * every fold is also in storage, with its version, until a fold marks it done, and
 * `foldWrittenVersions` folds it from there.
 */
export const makeVersionFolds = (deps: FoldDeps): VersionFolds => {
  let queued: VersionFold[] = []
  const fold = foldVersions(deps)
  return {
    later: (f) => {
      if (f.audit.length === 0 && f.events.length === 0) return
      queued.push(f)
      if (queued.length > FOLD_QUEUE) queued = queued.slice(-FOLD_QUEUE)
    },
    flush: () => {
      const batch = queued.slice(0, FOLD_BATCH)
      queued = queued.slice(FOLD_BATCH)
      return fold(batch)
    },
  }
}

/**
 * The relay's part: folds what versions written before `before` were written with, still not
 * folded (their process stopped first, or its batch failed), as it was written.
 */
export const foldWrittenVersions =
  (deps: FoldDeps) =>
  (before: Date, limit: number): TE.TaskEither<Unavailable, number> =>
  async () => {
    const written = await deps.transactions.unfolded(before, limit)()
    return E.isLeft(written) ? written : foldVersions(deps)(written.right)()
  }
