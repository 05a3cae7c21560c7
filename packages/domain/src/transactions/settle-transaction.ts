import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { CardConnectorError, OperationResult } from '../payments/card-connector.ports'
import { serviceFailed, Unavailable } from '../shared/errors'
import { voidAttempt } from './payment-routing'
import { advance, collapse, reread } from './transaction-versions'
import { callCapture, callVoid } from './operation-calls'
import { cardPart, isOpen, redemptionsOf, TransactionRecord } from './transaction'
import { StaleFrom } from './transaction.ports'
import { stepContext, TransactionDeps } from './transaction-deps'
import { attemptAnswered, attemptVoided, routedTo } from './transaction-steps'
import { captureAnswered, refundAnswered, voidAnswered } from './operation-steps'
import { callRefundOf, recordUses, SplitMode, splitStep } from './split-tender'

/**
 * The next version that settles one open call of `r`, after asking the service again; null
 * when `r` has no open call, or the service still gives no answer (`r` stays as it is).
 *
 * - An attempt recorded without an outcome (the process stopped during the call) is written as
 *   unknown. An unknown attempt is voided at its service by its reference: the card is no
 *   longer at hand, so routing does not go on, and the transaction ends `authorization_failed`.
 * - A payment with gift cards goes on by `splitStep` (in `settle` mode: it never redeems anew).
 * - A capture, void or refund recorded without an outcome is asked again with the reference it
 *   was recorded with: the service does it once, and answers as it did the first time.
 */
const settleStep =
  (deps: TransactionDeps, r: TransactionRecord, mode: SplitMode): TE.TaskEither<Unavailable, TransactionRecord | null> =>
  async () => {
    const ctx = stepContext(deps)
    const attempt = r.attempts.at(-1)
    if (r.status === 'processing' && attempt?.outcome === 'pending')
      return E.right(attemptAnswered(r, ctx, serviceFailed('the attempt was abandoned', 'card'), cardPart(r)))
    if (attempt?.outcome === 'unknown' && !attempt.voided) {
      const voided = await voidAttempt(deps, r)()
      if (E.isLeft(voided)) return voided
      const after = attemptVoided(r, ctx, voided.right)
      if (after.attempts.at(-1)?.voided !== true) return E.right(null)
      return E.right(r.status === 'processing' ? collapse(r, after, routedTo(after, ctx, null, '')) : after)
    }
    const split = redemptionsOf(r).length > 0 ? splitStep(deps, r, mode) : O.none
    if (O.isSome(split)) return split.value()
    if (r.status === 'processing') return E.right(routedTo(r, ctx, null, ''))
    const answered = (f: (answer: OperationResult | CardConnectorError) => TransactionRecord | null) => TE.map(f)
    // What the service received is awaited (its notification settles it), not open: never asked again here.
    const capture = r.captures.find(isOpen)
    if (capture !== undefined) return answered((a) => captureAnswered(r, ctx, a))(callCapture(deps, r, capture))()
    if (r.void !== null && isOpen(r.void)) return answered((a) => voidAnswered(r, ctx, a))(callVoid(deps, r, r.void.reference))()
    const refund = r.refunds.find(isOpen)
    if (refund !== undefined) return answered((a) => refundAnswered(r, ctx, refund.id, a))(callRefundOf(deps, r, refund))()
    return E.right(null)
  }

/**
 * Drives a transaction's open calls to their outcome, with the same steps the live flows use.
 * The one rule for every process that finds a transaction pending: the recovery pass, and a
 * request retried with the idempotency key of one that stopped half way. Stops when nothing is
 * open, the service still does not answer, or another process wrote first (its version stands).
 */
export const makeSettleTransaction =
  (deps: TransactionDeps, mode: SplitMode = 'settle') =>
  (start: TransactionRecord): TE.TaskEither<Unavailable, TransactionRecord> =>
  async () => {
    const put = advance(deps)
    let r = start
    // Each round settles one open call: an attempt, its void, one operation, and per gift card
    // its request, its answer, its reversal's request and answer; then a capture or a void.
    const rounds = 8 + 4 * redemptionsOf(r).length
    for (let round = 0; round < rounds && r.pending; round++) {
      const step = await settleStep(deps, r, mode)()
      if (E.isLeft(step)) return step
      if (step.right === null) return E.right(r)
      const written = await put(step.right)()
      if (E.isLeft(written)) return written
      if (O.isNone(written.right)) return reread(deps, r)()
      await recordUses(deps, r, written.right.value)()
      r = written.right.value
    }
    return E.right(r)
  }

export interface RecoveryConfig {
  /** A transaction pending for longer than this is taken over: longer than any live flow writes nothing for (its calls' timeouts). */
  readonly staleAfterMs: number
  readonly batch: number
}

/**
 * On start and periodically: every transaction pending for longer than `staleAfterMs`, of
 * every account, settled by `makeSettleTransaction`, a batch at a time until none is left (each
 * batch read after the last one, so those whose service still does not answer never hold the
 * others back). How many were settled, and how many are still pending (the next pass tries again).
 */
export const makeRecoverTransactions =
  (deps: TransactionDeps & { readonly recovery: RecoveryConfig }) =>
  (): TE.TaskEither<Unavailable, { readonly settled: number; readonly stillPending: number }> =>
  async () => {
    const settle = makeSettleTransaction(deps)
    const before = new Date(deps.clock.now().getTime() - deps.recovery.staleAfterMs)
    let settled = 0
    let stillPending = 0
    for (let after: StaleFrom | undefined; ;) {
      const stale = await deps.transactions.stale(before, deps.recovery.batch, after)()
      if (E.isLeft(stale)) return stale
      for (const r of stale.right) {
        const done = await settle(r)()
        if (E.isLeft(done)) return done
        if (done.right.pending) stillPending++
        else settled++
      }
      after = stale.right.at(-1)
      if (stale.right.length < deps.recovery.batch || after === undefined) return E.right({ settled, stillPending })
    }
  }
