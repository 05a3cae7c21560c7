import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { AuditActor, AuditRecord } from '../audit/audit-entry'
import { AuditedChange, auditRecordOf, ChangeOutcome } from '../audit/record-audited'
import { canonicalJson } from '../gift-cards/gift-card'
import {
  Answered,
  Attempted,
  IdempotencyRefusal,
  makeRunIdempotently,
  recordedOutcomeCodec,
  Reservation,
} from '../idempotency/run-idempotently'
import { CardConnectorError, OperationResult } from '../payments/card-connector.ports'
import {
  Conflict,
  InvalidRequest,
  NotFound,
  notFound,
  ServiceFailed,
  serviceFailed,
  ServiceTimeout,
  serviceTimeout,
  Unavailable,
  unavailable,
} from '../shared/errors'
import { advance, foldLater, reread, writeVersion } from './transaction-versions'
import { makeSettleTransaction } from './settle-transaction'
import { Capture, Refund, Transaction } from './transaction.codecs'
import { RefundRecord, toCapture, toRefund, toTransaction, TransactionRecord } from './transaction'
import { inProgress, TransactionDeps, wrongState } from './transaction-deps'
import { WrittenWith } from './transaction.ports'

export type OperationError = NotFound | Conflict | InvalidRequest | ServiceFailed | ServiceTimeout | IdempotencyRefusal | Unavailable

/** What a capture, void or refund answers: the transaction after it, and the capture or refunds it made. */
export const OperationDone = t.type({
  transaction: Transaction,
  capture: t.union([Capture, t.null]),
  refunds: t.readonlyArray(Refund),
})
export type OperationDone = t.TypeOf<typeof OperationDone>

export interface OperationCommand<I> {
  readonly merchantAccountId: string
  readonly actor: AuditActor
  readonly transactionId: string
  readonly input: I
  readonly idempotencyKey: string | null
}

/** One operation on a transaction, as the steps that record it, call the service and settle it. */
export type Plan =
  | {
      readonly requested: TransactionRecord
      readonly call: (r: TransactionRecord) => TE.TaskEither<Unavailable, OperationResult | CardConnectorError>
      readonly answered: (r: TransactionRecord, answer: OperationResult | CardConnectorError) => TransactionRecord | null
    }
  // Several calls (a split payment's void: each gift card given back, then the card part): the
  // request is recorded, then settled by the same steps recovery uses.
  | { readonly requested: TransactionRecord; readonly settled: true }

/** An audit entry of an operation, and what the transaction after it says of whether its change happened. */
export interface AuditedStep {
  readonly change: AuditedChange
  readonly outcome: (after: TransactionRecord) => ChangeOutcome
}

export interface OperationSpec<I> {
  /** The idempotency scope's name. */
  readonly name: string
  /** Whether `r` holds this request's own operation (`ownIds`: its id, and those of earlier attempts of its key), whatever its status. */
  readonly mine: (r: TransactionRecord, ownIds: readonly string[]) => boolean
  /** The operation on `r`, or why it cannot be done from there. */
  readonly plan: (r: TransactionRecord, cmd: OperationCommand<I>, ownIds: readonly string[]) => E.Either<OperationError, Plan>
  /** Its audit entries: written pending with the request's version, settled by what the request came to. */
  readonly audit: (requested: TransactionRecord, before: TransactionRecord, cmd: OperationCommand<I>) => readonly AuditedStep[]
  /** How a status is refused: "cannot be captured". */
  readonly verb: string
}

/** A refund this request made: by its id, or by the `refunds/all` request it was one of. */
export const ownRefund = (x: RefundRecord, ids: readonly string[]) => ids.includes(x.id) || (x.batch !== undefined && ids.includes(x.batch))

const doneOf = (r: TransactionRecord, ids: readonly string[]): OperationDone => ({
  transaction: toTransaction(r),
  capture: ((c) => (c === undefined ? null : toCapture(r, c)))(r.captures.find((c) => ids.includes(c.id))),
  refunds: r.refunds.filter((x) => ownRefund(x, ids)).map((x) => toRefund(r, x)),
})

/** Only a done operation is recorded under an idempotency key: a refused one runs afresh when retried. */
const codec = recordedOutcomeCodec<OperationError, OperationDone>(OperationDone, () =>
  unavailable(new Error('an operation recorded a failure')),
)

/** What running a plan came to: its request lost to another's, or the transaction after it (`failedCall`: the service failed, saying nothing). */
type Ran =
  | { readonly lost: true }
  | { readonly lost: false; readonly after: TransactionRecord; readonly failedCall: boolean; readonly written: WrittenWith }

/**
 * How many times a request decides again after losing the write of its request to another's
 * operation that ended meanwhile. One that finds another's operation still open answers a `409`
 * at once, so a round is lost only to an operation begun and ended between this request's read
 * and its write (`app/test/mongo/operation-races.spec.ts` counts, of 40 racing refunds across
 * two instances, those that went through and those that ran out of rounds: none so far).
 */
export const OPERATION_ROUNDS = 4

/**
 * Runs one operation: read the transaction, decide (`plan`), write the request, call the service,
 * write its answer. Its audit entries are written pending with the request, folded with its outcome.
 *
 * Exactly one of racing operations goes through: each writes its request as the next version,
 * which one writer gets. A request that finds another's operation open (its service not answered
 * yet) answers a `409` naming that (`operation_in_progress`): it never takes a live operation
 * over; a retry of the request that recorded it (its idempotency key) settles it, and recovery
 * settles one whose process stopped. One that loses the write decides again from what won. A
 * service that gives no answer (timeout) leaves the operation open: a `504`, not recorded, so a
 * retry with the same idempotency key settles it by repeating the call, which the service does
 * once. A transaction still `processing` is a `409` before anything else: its authorization
 * belongs to the payment's own flow (or to recovery, once stale).
 */
export const makeOperation =
  <I>(deps: TransactionDeps, spec: OperationSpec<I>) =>
  (cmd: OperationCommand<I>): TE.TaskEither<OperationError, Answered<OperationDone>> => {
    const settle = makeSettleTransaction(deps)
    const put = advance(deps)

    const run =
      (p: Plan, audit: readonly AuditRecord[]): TE.TaskEither<Unavailable, Ran> =>
      async () => {
        // Its fold waits for the outcome of its audit entries (the caller queues it).
        const requested = await writeVersion(deps)(p.requested, audit)()
        if (E.isLeft(requested)) return requested
        if (O.isNone(requested.right)) return E.right({ lost: true })
        const [r, written] = [p.requested, requested.right.value]
        const ran = (after: TransactionRecord, failedCall = false): Ran => ({ lost: false, after, failedCall, written })
        if ('settled' in p) return E.map((after: TransactionRecord) => ran(after))(await settle(r)())
        const answer = await p.call(r)()
        if (E.isLeft(answer)) return answer
        const settled = p.answered(r, answer.right)
        if (settled === null) return E.right(ran(r, answer.right._tag === 'ServiceFailed'))
        const stored = await put(settled)()
        if (E.isLeft(stored)) return stored
        const after = O.isSome(stored.right) ? E.right(stored.right.value) : await reread(deps, settled)()
        return E.map((a: TransactionRecord) => ran(a))(after)
      }

    const work = async (reservation: Reservation | null): Promise<Attempted<OperationError, OperationDone>> => {
      const ids = reservation === null ? [deps.ids.uuid()] : [reservation.reservedId, ...reservation.earlierIds]
      const unrecorded = (e: OperationError) => ({ outcome: E.left(e), recorded: false })
      const done = (r: TransactionRecord) => ({ outcome: E.right(doneOf(r, ids)), recorded: true })
      for (let round = 0; round < OPERATION_ROUNDS; round++) {
        const found = await deps.transactions.find(cmd.merchantAccountId, cmd.transactionId)()
        if (E.isLeft(found)) return unrecorded(found.left)
        if (O.isNone(found.right)) return unrecorded(notFound('Transaction', cmd.transactionId))
        let r = found.right.value
        if (r.status === 'processing')
          return unrecorded(
            wrongState(r, `A transaction in status processing cannot be ${spec.verb}: its authorization has no outcome yet`),
          )
        if (r.pending) {
          if (!spec.mine(r, ids)) return unrecorded(inProgress(r, 'Another operation on this transaction is in progress'))
          const settled = await settle(r)()
          if (E.isLeft(settled)) return unrecorded(settled.left)
          r = settled.right
        }
        if (spec.mine(r, ids)) return r.pending ? unrecorded(serviceTimeout('card')) : done(r)
        const p = spec.plan(r, cmd, ids)
        if (E.isLeft(p)) return unrecorded(p.left)
        // Its entries are written pending with the request's version, and folded with what the request came to.
        const steps = spec.audit(p.right.requested, r, cmd)
        const entries = steps.map((step) => auditRecordOf(deps, step.change, false))
        const ran = await run(p.right, entries)()
        if (E.isLeft(ran)) return unrecorded(ran.left)
        if (ran.right.lost) continue
        const { after, failedCall, written } = ran.right
        foldLater(deps, p.right.requested, written, new Map(entries.map((e, i) => [e.id, steps[i]?.outcome(after) ?? 'not-known'])))
        if (!after.pending) return done(after)
        return unrecorded(failedCall ? serviceFailed('the card service did not settle the operation', 'card') : serviceTimeout('card'))
      }
      return unrecorded(
        inProgress({ id: cmd.transactionId }, `Other operations on this transaction went first ${OPERATION_ROUNDS} times: try again`),
      )
    }

    if (cmd.idempotencyKey === null)
      return async () => E.map((value: OperationDone) => ({ value, replayed: false }))((await work(null)).outcome)
    const runIdempotently = makeRunIdempotently({ store: deps.idempotency, clock: deps.clock, ids: deps.ids, config: deps.config })
    return runIdempotently(
      {
        merchantAccountId: cmd.merchantAccountId,
        operation: `${spec.name}\u0000${cmd.transactionId}`,
        key: cmd.idempotencyKey,
        fingerprint: deps.mac.mac('idempotency-fingerprint', canonicalJson(cmd.input ?? null)),
      },
      TE.right(undefined),
      work,
      codec,
    )
  }
