import { AuditActor } from '../audit/audit-entry'
import { versionWitness } from '../audit/change-witness'
import { auditRecordOf, changeOf } from '../audit/record-audited'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Page, SortKey } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { seekIn } from '../pagination/seek-in'
import { Mac } from '../shared/crypto.ports'
import { Conflict, InvalidRequest, NotFound, notFound, Unavailable } from '../shared/errors'
import { advance } from './transaction-versions'
import { Capture, Refund, Transaction, TransactionEvent, TransactionSummary } from './transaction.codecs'
import {
  toCapture,
  toRefund,
  toTransaction,
  toTransactionSummary,
  transactionResource,
  transactionSortKey,
  TransactionRecord,
} from './transaction'
import { TransactionFilter, TransactionStore } from './transaction.ports'
import { TransactionUpdate } from './transaction-requests.codecs'
import { inProgress, statusWords, stepContext, TransactionDeps, wrongState } from './transaction-deps'
import { refusedInput } from '../shared/errors'
import { OPERATION_ROUNDS } from './operation-runner'
import { next } from './transaction-steps'

interface One {
  readonly merchantAccountId: string
  readonly transactionId: string
}

/** The account's transaction, newest version; another account's is not found, as one that never was. */
const found = (store: TransactionStore, q: One): TE.TaskEither<NotFound | Unavailable, TransactionRecord> =>
  pipe(
    store.find(q.merchantAccountId, q.transactionId),
    TE.flatMap(O.match(() => TE.left<NotFound | Unavailable, TransactionRecord>(notFound('Transaction', q.transactionId)), TE.right)),
  )

export const makeGetTransaction =
  (deps: { transactions: TransactionStore }) =>
  (q: One): TE.TaskEither<NotFound | Unavailable, Transaction> =>
    TE.map(toTransaction)(found(deps.transactions, q))

/** The account's transactions, newest first, filtered; the filter is part of the cursor's scope. */
export const makeListTransactions =
  (deps: { transactions: TransactionStore; mac: Mac }) =>
  (
    q: PageQuery & { merchantAccountId: string; filter: TransactionFilter },
  ): TE.TaskEither<InvalidRequest | Unavailable, Page<TransactionSummary>> => {
    const filter = Object.fromEntries(
      Object.entries(q.filter)
        .filter(([, v]) => v !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    )
    const scope = `transactions\u0000${q.merchantAccountId}\u0000${JSON.stringify(filter)}`
    return pipe(
      paginate(deps, scope, transactionSortKey, (seek) => deps.transactions.list(q.merchantAccountId, q.filter, seek))(q),
      TE.map((page) => ({ ...page, items: page.items.map(toTransactionSummary) })),
    )
  }

/**
 * Changes `external_identifier` and `metadata` (replaced whole); what is not given stays. A
 * version like any other step. Not while a call to a card service is recorded without its
 * outcome (`pending`): a `409` naming the status. The version this would write is the one the
 * call's flow writes its outcome as; taking it first would stop the flow short of recording the
 * outcome (a payment answered `processing`, a capture answered pending).
 */
export const makeUpdateTransaction =
  (deps: TransactionDeps) =>
  (
    q: One & { actor: AuditActor; input: TransactionUpdate },
  ): TE.TaskEither<NotFound | Conflict | InvalidRequest | Unavailable, Transaction> =>
  async () => {
    if (q.input.connection_options != null)
      return E.left(refusedInput(['connection_options'], '`connection_options` is not supported', 'unsupported'))
    for (let round = 0; round < OPERATION_ROUNDS; round++) {
      const r = await found(deps.transactions, q)()
      if (E.isLeft(r)) return r
      if (r.right.pending)
        return E.left(
          wrongState(
            r.right,
            `A transaction in status ${statusWords(r.right)} cannot be updated while a call to its card service has no outcome`,
          ),
        )
      const change = {
        ...(q.input.external_identifier === undefined ? {} : { external_identifier: q.input.external_identifier }),
        ...(q.input.metadata === undefined ? {} : { metadata: q.input.metadata }),
      }
      const updated = next(r.right, stepContext(deps), change, [
        { name: 'transaction-modified-event', context: { fields: Object.keys(change) } },
      ])
      const entry = auditRecordOf(
        deps,
        changeOf(q, transactionResource(updated), 'updated', 'transaction-version', versionWitness(updated)),
        true,
      )
      const written = await advance(deps)(updated, [entry])()
      if (E.isLeft(written)) return written
      if (O.isSome(written.right)) return E.right(toTransaction(written.right.value))
    }
    return E.left(inProgress({ id: q.transactionId }, `Other changes to this transaction went first ${OPERATION_ROUNDS} times: try again`))
  }

const eventKey = (e: TransactionEvent & { readonly seq: string }): SortKey => [e.seq, e.id]

/** What happened to the transaction, oldest first: every version's events, in the order they were written. */
export const makeListTransactionEvents =
  (deps: { transactions: TransactionStore; mac: Mac }) =>
  (q: One & PageQuery): TE.TaskEither<NotFound | InvalidRequest | Unavailable, Page<TransactionEvent>> =>
  async () => {
    const history = await deps.transactions.history(q.merchantAccountId, q.transactionId)()
    if (E.isLeft(history)) return history
    if (history.right.length === 0) return E.left(notFound('Transaction', q.transactionId))
    const events = history.right.flatMap((v) =>
      v.events.map((e, i) => ({ ...e, seq: `${String(v.version).padStart(6, '0')}.${String(i).padStart(4, '0')}` })),
    )
    const scope = `transaction-events\u0000${q.merchantAccountId}\u0000${q.transactionId}`
    const page = await paginate(deps, scope, eventKey, (seek) => TE.right(seekIn(events, eventKey, 'ascending', seek)))({
      ...q,
      limit: q.limit ?? 100,
    })()
    const withoutSeq = (e: TransactionEvent & { seq: string }): TransactionEvent => ({
      type: e.type,
      id: e.id,
      name: e.name,
      created_at: e.created_at,
      context: e.context,
    })
    return E.map((p: Page<TransactionEvent & { seq: string }>) => ({ ...p, items: p.items.map(withoutSeq) }))(page)
  }

/** A transaction's captures and refunds (a small list: the whole of it, as the original API's `items`). */
export const makeListCaptures =
  (deps: { transactions: TransactionStore }) =>
  (q: One): TE.TaskEither<NotFound | Unavailable, { readonly items: readonly Capture[] }> =>
    TE.map((r: TransactionRecord) => ({ items: r.captures.map((c) => toCapture(r, c)) }))(found(deps.transactions, q))

export const makeGetCapture =
  (deps: { transactions: TransactionStore }) =>
  (q: One & { captureId: string }): TE.TaskEither<NotFound | Unavailable, Capture> =>
    pipe(
      found(deps.transactions, q),
      TE.flatMap((r) =>
        pipe(
          O.fromNullable(r.captures.find((c) => c.id === q.captureId)),
          O.match(
            () => TE.left<NotFound | Unavailable, Capture>(notFound('Capture', q.captureId)),
            (c) => TE.right(toCapture(r, c)),
          ),
        ),
      ),
    )

export const makeListRefunds =
  (deps: { transactions: TransactionStore }) =>
  (q: One): TE.TaskEither<NotFound | Unavailable, { readonly items: readonly Refund[] }> =>
    TE.map((r: TransactionRecord) => ({ items: r.refunds.map((x) => toRefund(r, x)) }))(found(deps.transactions, q))

/** One refund, through its transaction or by its own id alone (`GET /refunds/{id}`). */
export const makeGetRefund =
  (deps: { transactions: TransactionStore }) =>
  (q: { merchantAccountId: string; transactionId?: string; refundId: string }): TE.TaskEither<NotFound | Unavailable, Refund> =>
    pipe(
      q.transactionId === undefined
        ? deps.transactions.findByRefund(q.merchantAccountId, q.refundId)
        : deps.transactions.find(q.merchantAccountId, q.transactionId),
      TE.flatMap((r) =>
        pipe(
          r,
          O.flatMap((t) =>
            O.map((x: TransactionRecord['refunds'][number]) => toRefund(t, x))(O.fromNullable(t.refunds.find((x) => x.id === q.refundId))),
          ),
          O.match(() => TE.left<NotFound | Unavailable, Refund>(notFound('Refund', q.refundId)), TE.right),
        ),
      ),
    )

/**
 * An operation of the original API that no card service Orka connects to offers (cancel, sync,
 * authorization increment): a `400` naming it and the transaction's service, once the
 * transaction is known to exist (an unknown one is a `404`, as for every operation).
 */
export const makeUnsupportedOperation =
  (deps: { transactions: TransactionStore }) =>
  (q: One & { operation: string }): TE.TaskEither<NotFound | InvalidRequest | Unavailable, never> =>
    pipe(
      found(deps.transactions, q),
      TE.flatMap((r) => {
        const service = r.authorization?.payment_service ?? r.attempts.at(-1)?.payment_service
        const by =
          service === undefined ? 'the card service' : `the card service ${service.display_name} (${service.payment_service_definition_id})`
        return TE.left(refusedInput([], `${q.operation} is not supported by ${by}`, 'unsupported_operation'))
      }),
    )
