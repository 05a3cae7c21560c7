import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { AuditRecord } from '../audit/audit-entry'
import { Unavailable } from '../shared/errors'
import { TransactionRecord } from './transaction'
import { TransactionDeps } from './transaction-deps'
import { ChangeOutcome } from '../audit/record-audited'
import { eventsOf } from './transaction-events'
import { WrittenWith } from './transaction.ports'
import { storedMethodOutcome } from './stored-method-outcome'

type VersionDeps = Pick<TransactionDeps, 'transactions' | 'events' | 'paymentMethods' | 'folds'>

/**
 * Writes the next version with what it is written with (the audit entries of the changes it
 * makes, the webhook events it raises), all in one write, without queuing their fold; `none` when
 * another writer got that version first. A version that ends the payment settles its stored card.
 */
export const writeVersion =
  (deps: VersionDeps) =>
  (r: TransactionRecord, audit: readonly AuditRecord[] = []): TE.TaskEither<Unavailable, O.Option<WrittenWith>> =>
  async () => {
    const written: WrittenWith = { audit, events: eventsOf(deps, r) }
    const stored = await deps.transactions.put(r, written)()
    if (E.isLeft(stored)) return stored
    if (!stored.right) return E.right(O.none)
    await storedMethodOutcome(deps, r)()
    return E.right(O.some(written))
  }

/** Queues the fold of what `r` was written with: once the write is known to have stored it. */
export const foldLater = (
  deps: Pick<TransactionDeps, 'folds'>,
  r: TransactionRecord,
  written: WrittenWith,
  outcomes?: ReadonlyMap<string, ChangeOutcome>,
): void => {
  deps.folds.later({
    version: { merchantAccountId: r.merchant_account_id, transactionId: r.id, version: r.version },
    ...written,
    ...(outcomes === undefined ? {} : { outcomes }),
  })
}

/**
 * Writes the next version (`writeVersion`) and queues its fold; `none` when another writer got
 * that version first (the flow then stops and reads what it wrote).
 */
export const advance =
  (deps: VersionDeps) =>
  (r: TransactionRecord, audit: readonly AuditRecord[] = []): TE.TaskEither<Unavailable, O.Option<TransactionRecord>> =>
  async () => {
    const written = await writeVersion(deps)(r, audit)()
    if (E.isLeft(written)) return written
    if (O.isNone(written.right)) return E.right(O.none)
    foldLater(deps, r, written.right.value)
    return E.right(O.some(r))
  }

/** Two steps written as one version: one write instead of two, the events of both. */
export const collapse = (before: TransactionRecord, first: TransactionRecord, second: TransactionRecord): TransactionRecord => ({
  ...second,
  version: before.version + 1,
  events: [...first.events, ...second.events],
})

/** What another writer made of the transaction after this flow lost a race to it. */
export const reread = (deps: Pick<TransactionDeps, 'transactions'>, r: TransactionRecord): TE.TaskEither<Unavailable, TransactionRecord> =>
  TE.map(O.getOrElse(() => r))(deps.transactions.find(r.merchant_account_id, r.id))
