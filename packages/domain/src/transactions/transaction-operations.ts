import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { AuditActor } from '../audit/audit-entry'
import { versionWitness } from '../audit/change-witness'
import { AuditedChange, auditedWhen, changeOf } from '../audit/record-audited'
import { canonicalJson } from '../gift-cards/gift-card'
import { Answered, Attempted, IdempotencyRefusal, makeRunIdempotently, OutcomeCodec, Reservation } from '../idempotency/run-idempotently'
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
import { advance, reread } from './authorize-transaction'
import { callCapture, callVoid } from './operation-calls'
import { makeSettleTransaction } from './settle-transaction'
import { Capture, Refund, Transaction } from './transaction.codecs'
import {
  CaptureRecord,
  redemptionRefundable,
  redemptionsOf,
  refundable,
  RefundRecord,
  toCapture,
  toRefund,
  toTransaction,
  transactionResource,
  TransactionRecord,
} from './transaction'
import { RedemptionRecord } from './gift-card-redemption'
import { callRefundOf } from './split-tender'
import {
  TransactionCaptureCreate,
  TransactionRefundAllCreate,
  TransactionRefundCreate,
  unsupportedFields,
} from './transaction-requests.codecs'
import { notOffered, refusedInput, statusWords, stepContext, TransactionDeps, wrongState } from './transaction-deps'
import { captureAnswered, captureRequested, refundAnswered, refundRequested, voidAnswered, voidRequested } from './transaction-steps'

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
type Plan =
  | {
      readonly requested: TransactionRecord
      readonly call: (r: TransactionRecord) => Promise<E.Either<Unavailable, OperationResult | CardConnectorError>>
      readonly answered: (r: TransactionRecord, answer: OperationResult | CardConnectorError) => TransactionRecord | null
    }
  // Several calls (a split payment's void: each gift card given back, then the card part): the
  // request is recorded, then settled by the same steps recovery uses.
  | { readonly requested: TransactionRecord; readonly settled: true }

/** Whether `r` holds this request's own operation already (an earlier attempt of it stopped half way). */
type Mine = (r: TransactionRecord, ownIds: readonly string[]) => boolean

/** A refund this request made: by its id, or by the `refunds/all` request it was one of. */
const ownRefund = (x: RefundRecord, ids: readonly string[]) => ids.includes(x.id) || (x.batch !== undefined && ids.includes(x.batch))

const doneOf = (r: TransactionRecord, ids: readonly string[]): OperationDone => ({
  transaction: toTransaction(r),
  capture: ((c) => (c === undefined ? null : toCapture(r, c)))(r.captures.find((c) => ids.includes(c.id))),
  refunds: r.refunds.filter((x) => ownRefund(x, ids)).map((x) => toRefund(r, x)),
})

const codec: OutcomeCodec<OperationError, OperationDone> = {
  encode: (o) => (E.isRight(o) ? { ok: true, value: OperationDone.encode(o.right) } : { ok: false, error: o.left }),
  decode: (stored) =>
    stored.ok
      ? E.mapLeft(() => unavailable(new Error('stored operation does not decode')))(OperationDone.decode(stored.value))
      : E.left(unavailable(new Error('an operation recorded a failure'))),
}

/**
 * Runs one operation: read the transaction, settle what is still open on it, decide (`plan`),
 * write the request, call the service, write its answer. Losing the write of the request to
 * another process means it acted first: read again and decide again. An answer the service
 * does not give (timeout) leaves the operation open: a `504`, not recorded, so a retry with the
 * same idempotency key settles it by repeating the call, which the service does once. A
 * transaction still `processing` is a `409` before anything else: its authorization belongs to
 * the payment's own flow (or to recovery, once stale), which settling here would take over (void
 * a live authorization, end the routing).
 */
const makeOperation =
  <I>(
    deps: TransactionDeps,
    name: string,
    verb: string,
    mine: Mine,
    plan: (r: TransactionRecord, cmd: OperationCommand<I>, ids: readonly string[]) => E.Either<OperationError, Plan>,
    audit: (requested: TransactionRecord, before: TransactionRecord, cmd: OperationCommand<I>) => readonly AuditedChange[],
  ) =>
  (cmd: OperationCommand<I>): TE.TaskEither<OperationError, Answered<OperationDone>> => {
    const settle = makeSettleTransaction(deps)
    const put = advance(deps)
    const work = async (reservation: Reservation | null): Promise<Attempted<OperationError, OperationDone>> => {
      const ids = reservation === null ? [deps.ids.uuid()] : [reservation.reservedId, ...reservation.earlierIds]
      const unrecorded = (e: OperationError) => ({ outcome: E.left(e), recorded: false })
      for (let round = 0; round < 3; round++) {
        const found = await deps.transactions.find(cmd.merchantAccountId, cmd.transactionId)()
        if (E.isLeft(found)) return unrecorded(found.left)
        if (O.isNone(found.right)) return unrecorded(notFound('Transaction', cmd.transactionId))
        // The authorization's own flow is still running (or recovery will settle it): never take it over.
        if (found.right.value.status === 'processing')
          return unrecorded(
            wrongState(found.right.value, `A transaction in status processing cannot be ${verb}: its authorization has no outcome yet`),
          )
        const current = await settle(found.right.value)
        if (E.isLeft(current)) return unrecorded(current.left)
        const r = current.right
        if (mine(r, ids)) return { outcome: E.right(doneOf(r, ids)), recorded: true }
        if (r.pending) return unrecorded(wrongState(r, 'Another operation on this transaction is in progress'))
        const p = plan(r, cmd, ids)
        if (E.isLeft(p)) return unrecorded(p.left)
        const requested = await audit(p.right.requested, r, cmd).reduce(
          (write, change) => auditedWhen(deps.audited, change, write, O.isSome),
          put(p.right.requested),
        )()
        if (E.isLeft(requested)) return unrecorded(requested.left)
        if (O.isNone(requested.right)) continue
        if ('settled' in p.right) {
          const done = await settle(requested.right.value)
          if (E.isLeft(done)) return unrecorded(done.left)
          if (done.right.pending) return unrecorded(serviceTimeout())
          return { outcome: E.right(doneOf(done.right, ids)), recorded: true }
        }
        const answer = await p.right.call(requested.right.value)
        if (E.isLeft(answer)) return unrecorded(answer.left)
        const settled = p.right.answered(requested.right.value, answer.right)
        if (settled === null)
          return unrecorded(
            answer.right._tag === 'ServiceTimeout' ? serviceTimeout() : serviceFailed('the card service did not settle the operation'),
          )
        const written = await put(settled)()
        if (E.isLeft(written)) return unrecorded(written.left)
        const final = O.isSome(written.right) ? E.right(written.right.value) : await reread(deps, settled)
        return E.isLeft(final) ? unrecorded(final.left) : { outcome: E.right(doneOf(final.right, ids)), recorded: true }
      }
      return unrecorded(serviceFailed('the transaction kept changing'))
    }
    if (cmd.idempotencyKey === null)
      return async () => E.map((value: OperationDone) => ({ value, replayed: false }))((await work(null)).outcome)
    const runIdempotently = makeRunIdempotently({ store: deps.idempotency, clock: deps.clock, ids: deps.ids, config: deps.config })
    return runIdempotently(
      {
        merchantAccountId: cmd.merchantAccountId,
        operation: `${name}\u0000${cmd.transactionId}`,
        key: cmd.idempotencyKey,
        fingerprint: deps.mac.mac('idempotency-fingerprint', canonicalJson(cmd.input ?? null)),
      },
      TE.right(undefined),
      work,
      codec,
    )
  }

/** A capture's or void's entry: found after a crash by the version that records the request. */
const versionChange = (cmd: OperationCommand<unknown>, requested: TransactionRecord, action: 'captured' | 'voided'): AuditedChange =>
  changeOf(cmd, transactionResource(requested), action, 'transaction-version', versionWitness(requested))

/** One entry per refund the request adds, each found after a crash among the transaction's versions. */
const refundChanges = (requested: TransactionRecord, before: TransactionRecord, cmd: OperationCommand<unknown>): readonly AuditedChange[] =>
  requested.refunds
    .filter((x) => !before.refunds.some((y) => y.id === x.id))
    .map((x) => ({
      merchantAccountId: cmd.merchantAccountId,
      actor: cmd.actor,
      resource: { type: 'refund', id: x.id, name: `${String(x.amount)} ${requested.currency}` },
      action: 'created',
      check: { probe: 'refund-present', id: requested.id, witness: x.id },
    }))

/** Captures an authorization, all of it or part (`final`: what is not captured is released). */
export const makeCaptureTransaction = (deps: TransactionDeps) =>
  makeOperation<TransactionCaptureCreate>(
    deps,
    'transaction-capture',
    'captured',
    (r, ids) => r.captures.some((c) => ids.includes(c.id)),
    (r, cmd, ids) => {
      const { amount, final, reauthorize_if_authorization_expired: reauthorize } = cmd.input
      if (final === false) return E.left(refusedInput(['final'], '`final: false` is not supported: a capture is final', 'unsupported'))
      if (reauthorize === true)
        return E.left(refusedInput(['reauthorize_if_authorization_expired'], 'Reauthorization is not supported', 'unsupported'))
      const ignored = unsupportedFields(cmd.input, { airline: null, cart_items: null })
      if (ignored.length > 0) return E.left(notOffered(ignored))
      if (r.status !== 'authorization_succeeded' || r.authorization === null)
        return E.left(wrongState(r, `A transaction in status ${statusWords(r)} cannot be captured: only an authorized one can`))
      const authorized = r.authorization.amount
      // A capture is of 1 or more (`CaptureRecord`): a 0 authorization only checked the card.
      if (authorized === 0)
        return E.left(wrongState(r, 'A transaction authorized for 0 (a card check) cannot be captured: nothing was authorized to capture'))
      const take = amount ?? authorized
      if (take > authorized)
        return E.left(refusedInput(['amount'], `The amount is above the authorized amount of ${authorized}`, 'amount_above_authorized'))
      const ctx = stepContext(deps)
      const id = ids[0] ?? ctx.newId()
      const capture: CaptureRecord = {
        id,
        reference: `${r.id}:capture:${id}`,
        amount: take,
        status: 'pending',
        external_identifier: cmd.input.external_identifier ?? null,
        created_at: ctx.now,
        updated_at: ctx.now,
        captured_at: null,
        service_capture_id: null,
        error_code: null,
        raw_response_code: null,
        raw_response_description: null,
      }
      return E.right({
        requested: captureRequested(r, ctx, capture),
        call: (x) => callCapture(deps, x, capture),
        answered: (x, a) => captureAnswered(x, stepContext(deps), a),
      })
    },
    (requested, _, cmd) => [versionChange(cmd, requested, 'captured')],
  )

/** Voids an authorization that was not captured. */
export const makeVoidTransaction = (deps: TransactionDeps) =>
  makeOperation<null>(
    deps,
    'transaction-void',
    'voided',
    (r, ids) => r.void !== null && ids.some((id) => r.void?.reference.endsWith(`:void:${id}`) === true) && r.void.status !== 'pending',
    (r, _cmd, ids) => {
      if (r.status !== 'authorization_succeeded')
        return E.left(wrongState(r, `A transaction in status ${statusWords(r)} cannot be voided: only an authorized, uncaptured one can`))
      const ctx = stepContext(deps)
      const reference = `${r.id}:void:${ids[0] ?? ctx.newId()}`
      // Gift cards were redeemed: each is given back before the card part is voided (`splitStep`).
      if (redemptionsOf(r).some((x) => x.status === 'succeeded'))
        return E.right({ requested: voidRequested(r, ctx, reference), settled: true })
      return E.right({
        requested: voidRequested(r, ctx, reference),
        call: (x) => callVoid(deps, x, reference),
        answered: (x, a) => voidAnswered(x, stepContext(deps), a),
      })
    },
    (requested, _, cmd) => [versionChange(cmd, requested, 'voided')],
  )

/** A refund record, `processing` until its service answers. */
const refundOf = (
  r: TransactionRecord,
  ctx: ReturnType<typeof stepContext>,
  id: string,
  amount: number,
  input: TransactionRefundAllCreate,
  extra: Pick<RefundRecord, 'redemption_id' | 'batch'> = {},
): RefundRecord => ({
  id,
  reference: `${r.id}:refund:${id}`,
  amount,
  status: 'processing',
  reason: input.reason ?? null,
  external_identifier: input.external_identifier ?? null,
  created_at: ctx.now,
  updated_at: ctx.now,
  service_refund_id: null,
  error_code: null,
  raw_response_code: null,
  raw_response_description: null,
  ...extra,
})

const notCaptured = (r: TransactionRecord) =>
  wrongState(r, `A transaction in status ${statusWords(r)} cannot be refunded: only a captured one can`)

/** One refund: of the card part, or (`redemption`) of one gift card's redemption. */
const refundPlan = (
  deps: TransactionDeps,
  r: TransactionRecord,
  ids: readonly string[],
  amount: number | null,
  input: TransactionRefundAllCreate,
  redemption: RedemptionRecord | null,
): E.Either<OperationError, Plan> => {
  if (r.status !== 'capture_succeeded') return E.left(notCaptured(r))
  const left = redemption === null ? refundable(r) : redemptionRefundable(r, redemption)
  if (left === 0)
    return E.left(
      wrongState(
        r,
        redemption === null ? 'Nothing is left to refund on this transaction' : 'Nothing is left to refund on this gift card redemption',
      ),
    )
  const give = amount ?? left
  if (give > left) return E.left(refusedInput(['amount'], `The amount is above what is left to refund, ${left}`, 'amount_above_refundable'))
  const ctx = stepContext(deps)
  const id = ids[0] ?? ctx.newId()
  const refund = refundOf(r, ctx, id, give, input, redemption === null ? {} : { redemption_id: redemption.id })
  return E.right({
    requested: refundRequested(r, ctx, [refund]),
    call: (x) => callRefundOf(deps, x, refund),
    answered: (x, a) => refundAnswered(x, stepContext(deps), id, a),
  })
}

const mineRefund: Mine = (r, ids) => r.refunds.some((x) => ownRefund(x, ids))

/** The redemption a refund targets: `target_type: gift-card-redemption` with the id of one of this transaction's. */
const targetOf = (r: TransactionRecord, input: TransactionRefundCreate): E.Either<InvalidRequest, RedemptionRecord | null> => {
  if (input.target_type !== 'gift-card-redemption')
    return input.target_id == null
      ? E.right(null)
      : E.left(refusedInput(['target_id'], '`target_id` names a gift card redemption: send it with `target_type: gift-card-redemption`'))
  const x = redemptionsOf(r).find((y) => y.id === input.target_id)
  return x === undefined
    ? E.left(refusedInput(['target_id'], 'No gift card redemption of this transaction has this id', 'unknown_gift_card_redemption'))
    : E.right(x)
}

/** Refunds all or part of what was captured and is not refunded yet: of the card part, or of one gift card. */
export const makeRefundTransaction = (deps: TransactionDeps) =>
  makeOperation<TransactionRefundCreate>(
    deps,
    'transaction-refund',
    'refunded',
    mineRefund,
    (r, cmd, ids) =>
      E.flatMap((target: RedemptionRecord | null) => refundPlan(deps, r, ids, cmd.input.amount ?? null, cmd.input, target))(
        targetOf(r, cmd.input),
      ),
    refundChanges,
  )

/** Refunds everything that is left: one refund for the card part and one per gift card, each settled in turn. */
export const makeRefundAllTransaction = (deps: TransactionDeps) =>
  makeOperation<TransactionRefundAllCreate>(
    deps,
    'transaction-refund-all',
    'refunded',
    mineRefund,
    (r, cmd, ids) => {
      if (r.status !== 'capture_succeeded') return E.left(notCaptured(r))
      const ctx = stepContext(deps)
      const batch = ids[0] ?? ctx.newId()
      const card = refundable(r)
      const refunds = [
        ...(card > 0 ? [refundOf(r, ctx, batch, card, cmd.input, { batch })] : []),
        ...redemptionsOf(r)
          .filter((x) => redemptionRefundable(r, x) > 0)
          .map((x) => refundOf(r, ctx, ctx.newId(), redemptionRefundable(r, x), cmd.input, { redemption_id: x.id, batch })),
      ]
      if (refunds.length === 0) return E.left(wrongState(r, 'Nothing is left to refund on this transaction'))
      return E.right({ requested: refundRequested(r, ctx, refunds), settled: true })
    },
    refundChanges,
  )
