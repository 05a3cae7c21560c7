import * as E from 'fp-ts/Either'
import {
  CardConnectorError,
  fieldOf,
  PaymentServiceField,
  ProviderEvent,
  ProviderNotification,
  ProviderWebhook,
  WebhookRefused,
} from '@orka/domain'
import { StripeAnswer } from './client'
import { declineOrFailure, obj, Obj, text, unknown } from './responses'
import { checkStripeSignature } from './webhook-signature'

/** Orka's reference as Stripe keeps it in a PaymentIntent's or Refund's metadata. */
export const REFERENCE_KEY = 'orka_reference'

/** What Stripe expects back from an endpoint that took its event (any 2xx; its libraries' examples send this). */
const REPLY = { contentType: 'application/json', body: '{"received":true}' } as const

type Outcome = ProviderEvent['outcome']

/** A refund's status as an outcome; one Stripe adds later is not settled yet (never a step back). */
const REFUND_OUTCOMES: Readonly<Record<string, Outcome>> = {
  succeeded: 'succeeded',
  failed: 'failed',
  canceled: 'failed',
  pending: 'pending',
  requires_action: 'pending',
}

/** Stripe's `failure_reason` of a refund as Orka's error code; any other (`unknown`) is a refusal. */
const REFUND_FAILURES: Readonly<Record<string, string>> = {
  lost_or_stolen_card: 'suspected_fraud',
  expired_or_canceled_card: 'canceled_payment_method',
  charge_for_pending_refund_disputed: 'disputed_transaction',
  insufficient_funds: 'insufficient_funds',
  declined: 'issuer_decline',
  merchant_request: 'refused_transaction',
}

/** Events whose object is a Refund. */
const REFUND_EVENTS = new Set(['refund.created', 'refund.updated', 'refund.failed', 'charge.refund.updated'])

const refused = (reason: WebhookRefused['reason']): E.Either<WebhookRefused, never> => E.left({ _tag: 'WebhookRefused', reason })

/** Orka's reference in an object's metadata, if it carries one. */
const referenceOf = (o: Obj): string | null => text(obj(o.metadata)?.[REFERENCE_KEY])

/** A Refund as an event of the refund it is, or null when it carries no Orka reference. */
export const refundEvent = (id: string, name: string, refund: Obj): ProviderEvent | null => {
  const reference = referenceOf(refund)
  if (reference === null || refund.object !== 'refund') return null
  const status = text(refund.status)
  const outcome = REFUND_OUTCOMES[status ?? ''] ?? 'pending'
  const failureReason = text(refund.failure_reason)
  return {
    id,
    name,
    kind: 'refund',
    reference,
    serviceTransactionId: text(refund.payment_intent),
    serviceId: text(refund.id),
    outcome,
    errorCode: outcome === 'failed' ? (REFUND_FAILURES[failureReason ?? ''] ?? 'refused_transaction') : null,
    rawResponseCode: status,
    rawResponseDescription: failureReason,
  }
}

/**
 * A PaymentIntent's change as an event of the authorization's `kind`, or null when it carries
 * no Orka reference. A cancel's id is the intent's, as `void` answers it; otherwise its charge.
 */
const intentEvent = (id: string, name: string, intent: Obj, kind: ProviderEvent['kind'], outcome: Outcome): ProviderEvent | null => {
  const reference = referenceOf(intent)
  if (reference === null || intent.object !== 'payment_intent') return null
  const intentId = text(intent.id)
  const base = {
    id,
    name,
    kind,
    reference,
    serviceTransactionId: intentId,
    serviceId: kind === 'void' ? intentId : text(intent.latest_charge),
  }
  if (outcome !== 'failed') return { ...base, outcome, errorCode: null, rawResponseCode: text(intent.status), rawResponseDescription: null }
  // Worded as the authorize path words the same decline.
  const { errorCode, rawResponseCode, rawResponseDescription } = declineOrFailure(obj(intent.last_payment_error))
  return { ...base, outcome, errorCode, rawResponseCode, rawResponseDescription }
}

const INTENT_EVENTS: Readonly<Record<string, readonly [ProviderEvent['kind'], Outcome]>> = {
  'payment_intent.succeeded': ['capture', 'succeeded'],
  'payment_intent.canceled': ['void', 'succeeded'],
  'payment_intent.amount_capturable_updated': ['authorization', 'succeeded'],
  'payment_intent.payment_failed': ['authorization', 'failed'],
}

/** What one Stripe event tells Orka: nothing for a type it does not follow, or an object without its reference. */
const eventsOf = (id: string, type: string, object: Obj): ProviderEvent[] => {
  const intent = INTENT_EVENTS[type]
  const event = REFUND_EVENTS.has(type)
    ? refundEvent(id, type, object)
    : intent === undefined
      ? null
      : intentEvent(id, type, object, ...intent)
  return event === null ? [] : [event]
}

/**
 * The one `Stripe-Signature` header, or undefined. Several are refused, as Stripe's libraries
 * refuse an array: as an array, or as Node joins repeats (two timestamps in one value).
 */
const signatureHeader = (headers: ProviderWebhook['headers']): string | undefined => {
  const values = Object.entries(headers)
    .filter(([k]) => k.toLowerCase() === 'stripe-signature')
    .flatMap(([, v]) => (v === undefined ? [] : typeof v === 'string' ? [v] : [...v]))
  const [value] = values
  if (values.length !== 1 || value === undefined) return undefined
  return value.split(',').filter((p) => p.trim().startsWith('t=')).length === 1 ? value : undefined
}

/** A Stripe event object: its id, type and object, or null for anything else. */
const parseEvent = (body: string): { id: string; type: string; object: Obj } | null => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return null
  }
  const event = obj(parsed)
  const id = text(event?.id)
  const type = text(event?.type)
  const object = obj(obj(event?.data)?.object)
  return event?.object !== 'event' || id === null || type === null || object === null ? null : { id, type, object }
}

/**
 * A webhook of Stripe's to a service: signed with its `webhook_secret` over the exact body
 * (within 300 s of `now`), then read. A secret rolls without a second one here: while it rolls
 * Stripe signs with both, each `v1` in the one header. Nothing of the webhook is logged.
 */
export const readStripeNotification = (
  fields: readonly PaymentServiceField[],
  webhook: ProviderWebhook,
  now: Date,
): E.Either<WebhookRefused, ProviderNotification> => {
  const secret = fieldOf({ fields }, 'webhook_secret')?.trim() ?? ''
  if (secret === '') return refused('not-configured')
  const nowS = Math.floor(now.getTime() / 1000)
  const check = checkStripeSignature(Buffer.from(webhook.body, 'utf8'), signatureHeader(webhook.headers), secret, nowS)
  if (check._tag !== 'Valid') return refused('signature')
  const event = parseEvent(webhook.body)
  if (event === null) return refused('malformed')
  return E.right({ events: eventsOf(event.id, event.type, event.object), reply: REPLY })
}

/**
 * What Stripe says now, as events: the refunds Orka awaits (from the intent's refund list), and
 * the intent itself once cancelled or captured. Ids name the object and its status, so the same
 * state read twice is the same event. Any answer but a 200 list and intent leaves it unknown.
 */
export const lookupEvents = (
  refunds: StripeAnswer,
  intent: StripeAnswer,
  awaited: readonly string[],
): readonly ProviderEvent[] | CardConnectorError => {
  const list = refunds.status === 200 ? obj(refunds.body)?.data : undefined
  if (!Array.isArray(list)) return unknown(refunds)
  const pi = intent.status === 200 ? obj(intent.body) : null
  if (pi === null) return unknown(intent)
  const lookupId = (o: Obj) => `lookup:${text(o.id) ?? ''}:${text(o.status) ?? ''}`
  const events = list
    .map(obj)
    .filter((r): r is Obj => r !== null && awaited.includes(referenceOf(r) ?? ''))
    .map((r) => refundEvent(lookupId(r), 'refund', r))
  const kind = pi.status === 'canceled' ? 'void' : pi.status === 'succeeded' ? 'capture' : null
  if (kind !== null) events.push(intentEvent(lookupId(pi), 'payment_intent', pi, kind, 'succeeded'))
  return events.filter((e): e is ProviderEvent => e !== null)
}
