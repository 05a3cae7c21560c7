import { GiftCardErrorCode } from '../gift-cards/gift-card.codecs'
import { ConnectorError, RedemptionResult } from '../gift-cards/gift-card.ports'
import { TransactionStatus } from './transaction.codecs'
import { RedemptionRecord } from './gift-card-redemption'
import { cardPart, redemptionsOf, TransactionRecord } from './transaction'
import { next, statusEvent, StepContext } from './transaction-steps'

/**
 * The gift card steps of a split payment, as pure functions from one version to the next (see
 * `transaction-steps.ts`): each call to the provider is recorded before it is made.
 */

const changed = (r: TransactionRecord, id: string, f: (x: RedemptionRecord) => RedemptionRecord) =>
  redemptionsOf(r).map((x) => (x.id === id ? f(x) : x))

const about = (x: RedemptionRecord) => ({ redemption_id: x.id, gift_card_id: x.gift_card.id, last4: x.gift_card.last4, amount: x.amount })

export const redemptionRequested = (r: TransactionRecord, ctx: StepContext, x: RedemptionRecord): TransactionRecord =>
  next(r, ctx, { gift_card_redemptions: changed(r, x.id, (y) => ({ ...y, requested_at: ctx.now })) }, [
    { name: 'transaction-event', context: { step: 'gift-card-redemption-requested', ...about(x), reference: x.reference } },
  ])

/** Why a redemption has no answer, or the provider's: the code it fails with and whether it may have taken the amount anyway. */
export type RedemptionAnswer = RedemptionResult | ConnectorError | { readonly _tag: 'NoService' } | { readonly _tag: 'Abandoned' }

const failureOf = (a: Exclude<RedemptionAnswer, { _tag: 'Redeemed' }>): { code: GiftCardErrorCode; unknown: boolean } => {
  switch (a._tag) {
    case 'Refused':
      return { code: a.errorCode, unknown: false }
    case 'CardDeclined':
      return { code: 'invalid_gift_card', unknown: false }
    case 'NoService':
      return { code: 'invalid_service_configuration', unknown: false }
    case 'ServiceTimeout':
      return { code: 'service_network_error', unknown: true }
    case 'ServiceFailed':
    case 'Abandoned':
      return { code: 'service_error', unknown: true }
  }
}

/** The provider's answer to a redemption; a failure is the transaction's `error_code` too. */
export const redemptionAnswered = (r: TransactionRecord, ctx: StepContext, x: RedemptionRecord, a: RedemptionAnswer): TransactionRecord => {
  if (a._tag === 'Redeemed')
    return next(r, ctx, { gift_card_redemptions: changed(r, x.id, (y) => ({ ...y, status: 'succeeded', answered_at: ctx.now })) }, [
      { name: 'gift-card-redemption-succeeded', context: { ...about(x), balance: a.balance } },
    ])
  const { code, unknown } = failureOf(a)
  return next(
    r,
    ctx,
    {
      gift_card_redemptions: changed(r, x.id, (y) => ({ ...y, status: 'failed', error_code: code, unknown, answered_at: ctx.now })),
      error_code: code,
      raw_response_code: null,
      raw_response_description: null,
    },
    [{ name: 'gift-card-redemption-failed', context: { ...about(x), error_code: code, outcome: unknown ? 'unknown' : 'refused' } }],
  )
}

/** Every redemption not yet asked for is given up: the payment is being undone (or its card part failed). */
export const restSkipped = (r: TransactionRecord, ctx: StepContext): TransactionRecord | null => {
  const skipped = redemptionsOf(r).filter((x) => x.status === 'created' && x.requested_at === null)
  if (skipped.length === 0) return null
  const ids = new Set(skipped.map((x) => x.id))
  return next(r, ctx, { gift_card_redemptions: redemptionsOf(r).map((x) => (ids.has(x.id) ? { ...x, status: 'skipped' as const } : x)) }, [
    { name: 'transaction-event', context: { step: 'gift-card-redemptions-skipped', redemption_ids: [...ids] } },
  ])
}

export const reversalRequested = (r: TransactionRecord, ctx: StepContext, x: RedemptionRecord): TransactionRecord => {
  const reversal = { reference: `${x.reference}:reverse`, status: 'pending' as const, requested_at: ctx.now, answered_at: null }
  return next(r, ctx, { gift_card_redemptions: changed(r, x.id, (y) => ({ ...y, reversal })) }, [
    { name: 'transaction-event', context: { step: 'gift-card-reversal-requested', ...about(x), reference: reversal.reference } },
  ])
}

export const reversalSucceeded = (r: TransactionRecord, ctx: StepContext, x: RedemptionRecord, balance: number): TransactionRecord =>
  next(
    r,
    ctx,
    {
      gift_card_redemptions: changed(r, x.id, (y) =>
        y.reversal === null ? y : { ...y, reversal: { ...y.reversal, status: 'succeeded', answered_at: ctx.now } },
      ),
    },
    [{ name: 'gift-card-reversal-succeeded', context: { ...about(x), balance } }],
  )

/**
 * The status a split payment ends with once every call is settled. Paid: the card part's
 * (authorized, or captured), or `capture_succeeded` when gift cards paid it all (a redemption
 * takes the money at once). Undone: `authorization_voided` when the card part was voided (set
 * by the void's own step), else `authorization_declined` when a gift card was refused and
 * `authorization_failed` when a provider failed or did not answer.
 */
export const splitSettled = (r: TransactionRecord, ctx: StepContext, undone: boolean): TransactionRecord | null => {
  if (r.status !== 'processing') return null
  const xs = redemptionsOf(r)
  const status: TransactionStatus = !undone
    ? cardPart(r) > 0 && r.captures.every((c) => c.status !== 'succeeded')
      ? 'authorization_succeeded'
      : 'capture_succeeded'
    : r.authorization === null && xs.some((x) => x.status === 'failed') && !xs.some((x) => x.unknown)
      ? 'authorization_declined'
      : 'authorization_failed'
  return next(r, ctx, { status, ...(undone ? {} : { error_code: null }) }, statusEvent(r.status, status))
}
