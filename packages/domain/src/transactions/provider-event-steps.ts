import { ProviderEvent } from '../payments/provider-events'
import { isUnsettled, TransactionRecord } from './transaction'
import { next, StepContext } from './transaction-steps'
import { captureSettled, Outcome, refundSettled, voidSettled } from './operation-steps'

/** What an event settles to; none for `pending` (a provider's "not yet" never takes a step back). */
const outcomeOf = (e: ProviderEvent): Outcome | null =>
  e.outcome === 'pending'
    ? null
    : {
        status: e.outcome === 'succeeded' ? 'succeeded' : 'failed',
        service_id: e.serviceId,
        error_code: e.outcome === 'succeeded' ? null : (e.errorCode ?? 'service_error'),
        raw_response_code: e.rawResponseCode,
        raw_response_description: e.rawResponseDescription,
      }

/** Whether the event names the transaction's authorization (by Orka's reference, or the provider's id). */
const ofAuthorization = (r: TransactionRecord, e: ProviderEvent): boolean =>
  r.authorization !== null &&
  (e.reference === r.authorization.reference || e.serviceTransactionId === r.authorization.service_transaction_id)

/**
 * The capture, void or refund the event is about: the one with its reference or the provider's
 * id for it, or (for an event that names only the authorization) the one of its kind Orka awaits
 * (one at most: a capture or void starts only from `authorization_succeeded`). A refund is found by its
 * reference or the provider's id for it only: with several refunds, "the awaited one" could be
 * any. Never a gift card's refund: a card service has no word on those.
 */
const targetOf = (r: TransactionRecord, e: ProviderEvent) => {
  const byAuthorization = ofAuthorization(r, e)
  switch (e.kind) {
    case 'capture': {
      const c =
        r.captures.find((x) => x.reference === e.reference) ??
        r.captures.find((x) => e.serviceId !== null && x.service_capture_id === e.serviceId) ??
        (byAuthorization ? r.captures.find(isUnsettled) : undefined)
      return c === undefined ? undefined : { kind: 'capture' as const, id: c.id, unsettled: isUnsettled(c) }
    }
    case 'void':
      return r.void !== null && (r.void.reference === e.reference || byAuthorization)
        ? { kind: 'void' as const, id: r.void.reference, unsettled: isUnsettled(r.void) }
        : undefined
    case 'refund': {
      const cards = r.refunds.filter((y) => y.redemption_id === undefined)
      const x =
        cards.find((y) => y.reference === e.reference) ?? cards.find((y) => e.serviceId !== null && y.service_refund_id === e.serviceId)
      return x === undefined ? undefined : { kind: 'refund' as const, id: x.id, unsettled: isUnsettled(x) }
    }
    case 'authorization':
      return undefined
  }
}

/**
 * The next version after a provider's event, or null when it was applied already (its id is
 * among the transaction's `notifications`). An event that settles a capture, void or refund
 * still unsettled (received, or asked and not answered yet: a notification may overtake the
 * answer) settles it with the same steps as an answer, so Orka's own webhooks fire as for one.
 * Any other event (about the authorization, `pending`, about what is already settled, or
 * contradicting it) is only written to the events log: an outcome is never undone by a later
 * word, which a merchant reviews from the log. Either way the event's id is kept, in the same
 * version, so a replay changes nothing. What a provider says when asked (`keep: settling`) is
 * written only when it settles something: asking again must not grow the log.
 */
export const applyProviderEvent = (
  r: TransactionRecord,
  ctx: StepContext,
  e: ProviderEvent,
  /** `settling`: only an event that settles something is written (what a `sync` was told, not sent). */
  keep: 'every' | 'settling' = 'every',
): TransactionRecord | null => {
  const seen = r.notifications ?? []
  if (seen.includes(e.id)) return null
  const noted: TransactionRecord = { ...r, notifications: [...seen, e.id] }
  const source = { source: 'notification', event: e.name }
  const o = outcomeOf(e)
  const target = targetOf(r, e)
  const mismatched =
    e.serviceTransactionId !== null && r.authorization !== null && e.serviceTransactionId !== r.authorization.service_transaction_id
  if (o !== null && target?.unsettled === true && !mismatched) {
    switch (target.kind) {
      case 'capture':
        return captureSettled(noted, ctx, target.id, o, source)
      case 'void':
        return r.void === null ? null : voidSettled({ ...noted, void: r.void }, ctx, o, source)
      case 'refund':
        return refundSettled(noted, ctx, target.id, o, source)
    }
  }
  if (keep === 'settling') return null
  return next(noted, ctx, {}, [
    {
      name: 'payment-connector-notification',
      context: { ...source, kind: e.kind, outcome: e.outcome, applied: false, error_code: e.errorCode },
    },
  ])
}
