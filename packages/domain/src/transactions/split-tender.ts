import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as T from 'fp-ts/Task'
import * as TE from 'fp-ts/TaskEither'
import { askConnector } from '../gift-cards/ask-connector'
import { CreditResult, RedemptionResult } from '../gift-cards/gift-card.ports'
import { serviceFailed, Unavailable } from '../shared/errors'
import { mayHaveTaken, RedemptionRecord } from './gift-card-redemption'
import { CardConnectorError, OperationResult } from '../payments/card-connector.ports'
import { collapse } from './transaction-versions'
import { callCapture, callRefund, callVoid } from './operation-calls'
import { captureReference, cardPart, isOpen, redemptionsOf, RefundRecord, TransactionRecord } from './transaction'
import { stepContext, TransactionDeps } from './transaction-deps'
import { captureAnswered, captureRequested, voidAnswered, voidRequested } from './operation-steps'
import {
  RedemptionAnswer,
  redemptionAnswered,
  redemptionRequested,
  restSkipped,
  reversalRequested,
  reversalSucceeded,
  splitSettled,
} from './redemption-steps'

/**
 * `live`: the payment's own request, which redeems its gift cards. `settle`: anyone else who
 * finds it unfinished (recovery, a retried request, an operation): it never redeems anew, it
 * only finishes what was answered or gives back what may have been taken.
 */
export type SplitMode = 'live' | 'settle'

/** The next version, or null: nothing to write (the provider gave no answer). */
type Step = TE.TaskEither<Unavailable, TransactionRecord | null>

/** Whether the payment is being undone: a gift card failed or was given up, its card part's capture failed, or a void was asked for. */
export const isUndone = (r: TransactionRecord): boolean =>
  redemptionsOf(r).some((x) => x.status === 'failed' || x.status === 'skipped') ||
  r.captures.some((c) => c.status === 'declined' || c.status === 'failed') ||
  r.void !== null

/** The next step: one with no call (its version), one with a call (which answers its version, or null: no answer), or none of the split's. */
type Plan =
  { readonly k: 'pure'; readonly next: TransactionRecord | null } | { readonly k: 'call'; readonly call: Step } | { readonly k: 'none' }

const pure = (next: TransactionRecord | null): Plan => ({ k: 'pure', next })
const call = (f: Step): Plan => ({ k: 'call', call: f })

/**
 * The next step of a split payment (a transaction with gift cards). In order:
 *
 * 1. The card part is routed first (`route`); while it is, nothing here. Declined or failed,
 *    every gift card is skipped and the card's status stands.
 * 2. Each gift card in turn: recorded as requested, then redeemed by its reference.
 * 3. Paid: with `intent: capture`, the card part (only authorized so far) is captured now, so
 *    that a failed gift card never costs a card refund; then the final status.
 * 4. Undone: the rest skipped, every redemption that may have taken money reversed by its
 *    reference (recorded first), then the card part voided; then the final status.
 *
 * `none` when what is left is not the split's (a capture, void or refund the merchant asked for
 * later: `settleStep` goes on with those).
 */
const planOf = (deps: TransactionDeps, r: TransactionRecord, mode: SplitMode): Plan => {
  const ctx = stepContext(deps)
  const xs = redemptionsOf(r)
  if (cardPart(r) > 0 && r.authorization === null) return r.status === 'processing' ? { k: 'none' } : pure(restSkipped(r, ctx))
  if (!isUndone(r)) {
    const x = xs.find((y) => y.status === 'created')
    if (x !== undefined) {
      if (x.requested_at === null) return pure(mode === 'live' ? redemptionRequested(r, ctx, x) : restSkipped(r, ctx))
      if (mode === 'settle') return pure(redemptionAnswered(r, ctx, x, { _tag: 'Abandoned' }))
      return call(TE.fromTask(T.map((a: RedemptionAnswer) => redemptionAnswered(r, ctx, x, a))(redeem(deps, x, r.currency))))
    }
    if (r.status !== 'processing') return { k: 'none' }
    const capture = r.captures.find(isOpen)
    if (capture !== undefined) return call(TE.map((a: CallAnswer) => captureAnswered(r, ctx, a))(callCapture(deps, r, capture)))
    if (r.intent === 'capture' && r.authorization !== null && r.authorization.amount > 0 && r.captures.length === 0)
      return pure(captureRequested(r, ctx, splitCapture(r, ctx.newId(), ctx.now, r.authorization.amount)))
    return pure(splitSettled(r, ctx, false))
  }
  const skipped = restSkipped(r, ctx)
  if (skipped !== null) return pure(skipped)
  const asked = xs.find((y) => y.status === 'created')
  if (asked !== undefined) return pure(redemptionAnswered(r, ctx, asked, { _tag: 'Abandoned' }))
  const taken = xs.find((y) => mayHaveTaken(y) && y.reversal?.status !== 'succeeded')
  if (taken !== undefined) {
    const reversal = taken.reversal
    if (reversal === null) return pure(reversalRequested(r, ctx, taken))
    return call(
      TE.fromTask(
        T.map((back: CreditResult | null) => (back === null ? null : reversalSucceeded(r, ctx, taken, back.balance)))(
          reverse(deps, taken, reversal.reference, r.currency),
        ),
      ),
    )
  }
  if (r.authorization !== null && r.void === null && r.captures.every((c) => c.status !== 'succeeded'))
    return pure(voidRequested(r, ctx, `${r.id}:void:undo`))
  const voiding = r.void
  if (voiding !== null && isOpen(voiding))
    return call(TE.map((a: CallAnswer) => voidAnswered(r, ctx, a))(callVoid(deps, r, voiding.reference)))
  return r.status === 'processing' ? pure(splitSettled(r, ctx, true)) : { k: 'none' }
}

type CallAnswer = OperationResult | CardConnectorError

/**
 * The next version of a split payment, after at most one call; null when there is nothing to
 * do or the provider gave no answer (it stays pending); none when what is left is not the
 * split's. A call's answer and the step after it, when that step makes no call (the next gift
 * card recorded as requested, the final status, ...), are one version: one write fewer, and
 * the next call is still recorded before it is made.
 */
export const splitStep = (deps: TransactionDeps, r: TransactionRecord, mode: SplitMode): O.Option<Step> => {
  const plan = planOf(deps, r, mode)
  if (plan.k === 'none') return O.none
  if (plan.k === 'pure') return O.some(TE.right(plan.next))
  return O.some(
    TE.map((answered: TransactionRecord | null) => {
      if (answered === null) return null
      const then = planOf(deps, answered, mode)
      return then.k === 'pure' && then.next !== null ? collapse(r, answered, then.next) : answered
    })(plan.call),
  )
}

const splitCapture = (r: TransactionRecord, id: string, now: string, amount: number) => ({
  id,
  reference: captureReference(r.id, id),
  amount,
  status: 'pending' as const,
  external_identifier: null,
  created_at: now,
  updated_at: now,
  captured_at: null,
  service_capture_id: null,
  error_code: null,
  raw_response_code: null,
  raw_response_description: null,
})

/** The connector of the redemption's service, and its card's number and PIN unsealed for the call. */
const providerOf = (deps: TransactionDeps, x: RedemptionRecord) => {
  if (x.service === null) return null
  const connector = deps.giftCards.connectors.forDefinition(x.service.gift_card_service_definition_id)
  if (O.isNone(connector)) return null
  const number = deps.box.open(x.sealed_number)
  const pin = x.sealed_pin === null ? null : deps.box.open(x.sealed_pin)
  return { connector: connector.value, service: x.service, number, pin, secrets: pin === null ? [number] : [number, pin] }
}

const redeem =
  (deps: TransactionDeps, x: RedemptionRecord, currency: string): T.Task<RedemptionAnswer> =>
  async () => {
    const p = providerOf(deps, x)
    if (p === null) return { _tag: 'NoService' }
    const asked = await askConnector(RedemptionResult, p.secrets, () =>
      p.connector.redeem({ service: p.service, number: p.number, pin: p.pin, amount: x.amount, currency, reference: x.reference }),
    )()
    return E.isLeft(asked) ? asked.left : asked.right
  }

/**
 * Gives back what the redemption took, by its reversal's reference (the provider gives back
 * nothing if it took nothing, and refuses the redemption if it comes later); null when the
 * provider did not answer, or is gone: the reversal stays pending for the next pass.
 */
const reverse =
  (deps: TransactionDeps, x: RedemptionRecord, reference: string, currency: string): T.Task<CreditResult | null> =>
  async () => {
    const p = providerOf(deps, x)
    if (p === null) return null
    const asked = await askConnector(CreditResult, p.secrets, () =>
      p.connector.reverse({
        service: p.service,
        number: p.number,
        pin: p.pin,
        amount: x.amount,
        currency,
        reference,
        redemption: x.reference,
      }),
    )()
    return E.isLeft(asked) ? null : asked.right
  }

/**
 * A stored card's `usage_count` and `last_used_at` after a version that redeemed it, counted by
 * the process whose write of that version won. Informational: a failed count (or a kill just
 * before it) leaves the count one short and changes no balance, so it is not retried.
 */
export const recordUses =
  (deps: TransactionDeps, before: TransactionRecord, after: TransactionRecord): T.Task<void> =>
  async () => {
    const was = new Map(redemptionsOf(before).map((x) => [x.id, x.status]))
    for (const x of redemptionsOf(after))
      if (x.status === 'succeeded' && was.get(x.id) !== 'succeeded' && x.gift_card.id !== null)
        await deps.giftCards.vault.recordUse(after.merchant_account_id, x.gift_card.id, after.updated_at)()
  }

/**
 * A refund's call: to the card's service, or (`redemption_id`) to the gift card's provider by
 * the refund's reference, in the card operations' terms so that one set of steps settles both.
 */
export const callRefundOf =
  (deps: TransactionDeps, r: TransactionRecord, x: RefundRecord): TE.TaskEither<Unavailable, OperationResult | CardConnectorError> =>
  async () => {
    if (x.redemption_id === undefined) return callRefund(deps, r, x)()
    const redemption = redemptionsOf(r).find((y) => y.id === x.redemption_id)
    const p = redemption === undefined ? null : providerOf(deps, redemption)
    if (p === null || redemption === undefined) return E.right(serviceFailed('the gift card service is gone', 'gift-card'))
    const asked = await askConnector(CreditResult, p.secrets, () =>
      p.connector.refund({
        service: p.service,
        number: p.number,
        pin: p.pin,
        amount: x.amount,
        currency: r.currency,
        reference: x.reference,
        redemption: redemption.reference,
      }),
    )()
    if (E.isRight(asked)) return E.right({ _tag: 'Succeeded', serviceId: null, rawResponseCode: null, rawResponseDescription: null })
    return E.right(
      asked.left._tag === 'CardDeclined'
        ? { _tag: 'Declined', errorCode: 'declined', rawResponseCode: null, rawResponseDescription: null }
        : asked.left,
    )
  }
