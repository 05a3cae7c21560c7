import * as t from 'io-ts'
import { DateTime } from '../buyers/buyer'
import { SortKey } from '../pagination/page'
import { closed, intRange, literal, nullable, oneOf, str, uuid } from '../shared/codecs'
import { OutboxEntry, WebhookEventName } from './webhook-event'

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed', 'cancelled'] as const
export const WebhookDeliveryStatus = oneOf('WebhookDeliveryStatus', DELIVERY_STATUSES)
export type WebhookDeliveryStatus = t.TypeOf<typeof WebhookDeliveryStatus>

/** Why an attempt failed, when it did. */
export const ATTEMPT_ERRORS = [
  /** No complete answer within the attempt's time. */
  'timeout',
  /** The connection could not be made or broke (refused, reset, TLS). */
  'connection_failed',
  /** The host resolved to an address deliveries may not go to; nothing was sent. */
  'blocked_address',
  /** The host name did not resolve. */
  'unresolvable_host',
  /** A `3xx`: redirects are never followed. */
  'redirect',
  /** Any other status that is not `2xx`. */
  'unexpected_status',
  /** The OAuth token endpoint refused or failed; the event was not sent. */
  'authentication_failed',
  /** Production sends only to `https` URLs. */
  'https_required',
] as const
export const WebhookAttemptError = oneOf('WebhookAttemptError', ATTEMPT_ERRORS)
export type WebhookAttemptError = t.TypeOf<typeof WebhookAttemptError>

export const WebhookDeliveryAttempt = closed('WebhookDeliveryAttempt', {
  attempted_at: DateTime,
  response_status: nullable(intRange('response_status', 100, 599)),
  duration_ms: intRange('duration_ms', 0),
  error: nullable(WebhookAttemptError),
  /** The first KiB of the subscriber's answer, as text. */
  response_excerpt: nullable(str),
})
export type WebhookDeliveryAttempt = t.TypeOf<typeof WebhookDeliveryAttempt>

/**
 * One event on its way to one subscription. `body` is the exact payload every attempt sends;
 * `retries_used` counts the scheduled retries already spent (a redelivery spends them all, so
 * it is one attempt).
 */
export const WebhookDeliveryRecord = t.type({
  id: uuid,
  subscription_id: uuid,
  /** The event's merchant account (an instance-wide subscription receives every account's). */
  merchant_account_id: str,
  event_id: uuid,
  event_name: WebhookEventName,
  body: str,
  status: WebhookDeliveryStatus,
  attempts: t.array(WebhookDeliveryAttempt),
  next_attempt_at: nullable(str),
  retries_used: intRange('retries_used', 0),
  created_at: str,
  updated_at: str,
})
export type WebhookDeliveryRecord = t.TypeOf<typeof WebhookDeliveryRecord>

/** The delivery log entry as the API returns it. */
export const WebhookDelivery = closed('WebhookDelivery', {
  type: literal('webhook-delivery'),
  id: uuid,
  subscription_id: uuid,
  event_id: uuid,
  event_name: str,
  status: WebhookDeliveryStatus,
  attempts: t.array(WebhookDeliveryAttempt),
  next_attempt_at: nullable(DateTime),
  created_at: DateTime,
})
export type WebhookDelivery = t.TypeOf<typeof WebhookDelivery>

export const presentDelivery = (d: WebhookDeliveryRecord): WebhookDelivery => ({
  type: 'webhook-delivery',
  id: d.id,
  subscription_id: d.subscription_id,
  event_id: d.event_id,
  event_name: d.event_name,
  status: d.status,
  attempts: d.attempts,
  next_attempt_at: d.next_attempt_at,
  created_at: d.created_at,
})

/** Newest first; the id breaks ties between deliveries of one instant. */
export const deliverySortKey = (d: WebhookDeliveryRecord): SortKey => [d.created_at, d.id]

/** The deliveries an outbox entry fans out to, due at once. Deterministic: handing an entry over twice gives the same records. */
export const deliveriesOf = (e: OutboxEntry): WebhookDeliveryRecord[] =>
  e.deliveries.map((d) => ({
    id: d.id,
    subscription_id: d.subscription_id,
    merchant_account_id: e.merchant_account_id,
    event_id: e.event_id,
    event_name: e.event_name,
    body: e.body,
    status: 'pending',
    attempts: [],
    next_attempt_at: e.created_at,
    retries_used: 0,
    created_at: e.created_at,
    updated_at: e.created_at,
  }))

/** What an attempt or a cancellation changes in a delivery. */
export type DeliveryTransition = Pick<WebhookDeliveryRecord, 'status' | 'next_attempt_at' | 'retries_used'>

export interface RetrySchedule {
  /** Delays before each retry, in seconds: retry `i` waits `delaysS[i]`. */
  readonly delaysS: readonly number[]
  /** At most this fraction is added to a delay (0.1: up to 10 % later), spreading retries out. */
  readonly jitter: number
}

/**
 * Where a delivery goes after an attempt: delivered on success; else pending again after the
 * next delay of the schedule (`random` in [0, 1) picks the jitter), or failed once the
 * schedule is spent.
 */
export const afterAttempt = (
  d: Pick<WebhookDeliveryRecord, 'retries_used'>,
  succeeded: boolean,
  now: Date,
  schedule: RetrySchedule,
  random: number,
): DeliveryTransition => {
  if (succeeded) return { status: 'delivered', next_attempt_at: null, retries_used: d.retries_used }
  const delayS = schedule.delaysS[d.retries_used]
  if (delayS === undefined) return { status: 'failed', next_attempt_at: null, retries_used: d.retries_used }
  const ms = Math.round(delayS * 1000 * (1 + schedule.jitter * random))
  return { status: 'pending', next_attempt_at: new Date(now.getTime() + ms).toISOString(), retries_used: d.retries_used + 1 }
}

export const cancelled = (d: Pick<WebhookDeliveryRecord, 'retries_used'>): DeliveryTransition => ({
  status: 'cancelled',
  next_attempt_at: null,
  retries_used: d.retries_used,
})

/** Whether an answer counts as received: any `2xx`, and nothing went wrong on the way. */
export const isSuccess = (a: Pick<WebhookDeliveryAttempt, 'response_status' | 'error'>): boolean =>
  a.error === null && a.response_status !== null && a.response_status >= 200 && a.response_status < 300
