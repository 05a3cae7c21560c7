import * as E from 'fp-ts/Either'
import { changeOf, ChangeOutcome } from '../audit/record-audited'
import { InvalidRequest } from '../shared/errors'
import { callCapture, callVoid } from './operation-calls'
import { AuditedStep, makeOperation, OperationCommand, OperationError, ownRefund, Plan } from './operation-runner'
import {
  captureReference,
  CaptureRecord,
  redemptionRefundable,
  redemptionsOf,
  refundable,
  RefundRecord,
  transactionResource,
  TransactionRecord,
} from './transaction'
import { RedemptionRecord } from './gift-card-redemption'
import { callRefundOf } from './split-tender'
import { TransactionCaptureCreate, TransactionRefundAllCreate, TransactionRefundCreate } from './transaction-requests.codecs'
import { notOffered, statusWords, stepContext, TransactionDeps, wrongState } from './transaction-deps'
import { refusedInput } from '../shared/errors'
import { captureAnswered, captureRequested, refundAnswered, refundRequested, voidAnswered, voidRequested } from './operation-steps'
import { unsupportedFields } from '../shared/codecs'

/** Succeeded: it happened; declined or failed: it did not (no money moved); still pending: not known yet. */
const outcomeOf = (status: string | undefined): ChangeOutcome =>
  status === 'succeeded' ? 'happened' : status === 'pending' ? 'not-known' : 'not-happened'

/**
 * A capture's or void's entry, listed only once its service took it: a declined capture is no
 * capture (its attempt stays in the transaction's events). Found after a crash by the outcome of
 * the capture (its id) or void (its reference) in the transaction.
 */
const operationStep = (
  cmd: OperationCommand<unknown>,
  requested: TransactionRecord,
  action: 'captured' | 'voided',
  witness: string,
  status: (after: TransactionRecord) => string | undefined,
): AuditedStep => ({
  change: changeOf(cmd, transactionResource(requested), action, action === 'captured' ? 'capture-outcome' : 'void-outcome', witness),
  outcome: (after) => outcomeOf(status(after)),
})

/** One entry per refund the request adds, committed with the request: a refund is a record from then on, whatever its outcome. */
const refundSteps = (requested: TransactionRecord, before: TransactionRecord, cmd: OperationCommand<unknown>): readonly AuditedStep[] =>
  requested.refunds
    .filter((x) => !before.refunds.some((y) => y.id === x.id))
    .map((x) => ({
      change: {
        merchantAccountId: cmd.merchantAccountId,
        actor: cmd.actor,
        resource: { type: 'refund', id: x.id, name: `${String(x.amount)} ${requested.currency}` },
        action: 'created',
        check: { probe: 'refund-present', id: requested.id, witness: x.id },
      },
      outcome: () => 'happened',
    }))

/** Captures an authorization, all of it or part (`final`: what is not captured is released). */
export const makeCaptureTransaction = (deps: TransactionDeps) =>
  makeOperation<TransactionCaptureCreate>(deps, {
    name: 'transaction-capture',
    verb: 'captured',
    mine: (r, ids) => r.captures.some((c) => ids.includes(c.id)),
    plan: (r, cmd, ids) => {
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
        reference: captureReference(r.id, id),
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
    audit: (requested, before, cmd) => {
      const id = requested.captures.find((c) => !before.captures.some((b) => b.id === c.id))?.id ?? ''
      return [operationStep(cmd, requested, 'captured', id, (after) => after.captures.find((c) => c.id === id)?.status)]
    },
  })

/** Voids an authorization that was not captured. */
export const makeVoidTransaction = (deps: TransactionDeps) =>
  makeOperation<null>(deps, {
    name: 'transaction-void',
    verb: 'voided',
    mine: (r, ids) => ids.some((id) => r.void?.reference.endsWith(`:void:${id}`) === true),
    plan: (r, _cmd, ids) => {
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
    audit: (requested, _, cmd) => {
      const reference = requested.void?.reference ?? ''
      return [
        operationStep(cmd, requested, 'voided', reference, (after) =>
          after.void?.reference === reference ? after.void.status : undefined,
        ),
      ]
    },
  })

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

const mineRefund = (r: TransactionRecord, ids: readonly string[]) => r.refunds.some((x) => ownRefund(x, ids))

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
  makeOperation<TransactionRefundCreate>(deps, {
    name: 'transaction-refund',
    verb: 'refunded',
    mine: mineRefund,
    plan: (r, cmd, ids) =>
      E.flatMap((target: RedemptionRecord | null) => refundPlan(deps, r, ids, cmd.input.amount ?? null, cmd.input, target))(
        targetOf(r, cmd.input),
      ),
    audit: refundSteps,
  })

/** Refunds everything that is left: one refund for the card part and one per gift card, each settled in turn. */
export const makeRefundAllTransaction = (deps: TransactionDeps) =>
  makeOperation<TransactionRefundAllCreate>(deps, {
    name: 'transaction-refund-all',
    verb: 'refunded',
    mine: mineRefund,
    plan: (r, cmd, ids) => {
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
    audit: refundSteps,
  })
