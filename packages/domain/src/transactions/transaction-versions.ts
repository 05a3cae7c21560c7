import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { AuditRecord } from '../audit/audit-entry'
import { Unavailable } from '../shared/errors'
import { TransactionRecord } from './transaction'
import { TransactionDeps } from './transaction-deps'
import { withEvent } from './transaction-events'
import { storedMethodOutcome } from './stored-method-outcome'

/**
 * Writes the next version, with the audit entries of the changes it makes; `none` when another
 * writer got that version first (the flow then stops and reads what it wrote). A version that ends the payment settles its stored card.
 */
export const advance =
  (deps: Pick<TransactionDeps, 'transactions' | 'events' | 'paymentMethods'>) =>
  (r: TransactionRecord, audit?: readonly AuditRecord[]): TE.TaskEither<Unavailable, O.Option<TransactionRecord>> =>
  async () => {
    const written = await withEvent(deps, r, deps.transactions.put(r, audit))()
    if (E.isLeft(written)) return written
    if (!written.right) return E.right(O.none)
    await storedMethodOutcome(deps, r)()
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
