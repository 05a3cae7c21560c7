import * as O from 'fp-ts/Option'
import * as T from 'fp-ts/Task'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { WebhookAuthenticationCreate } from './webhook-subscription'
import {
  DeliveryTransition,
  WebhookAttemptError,
  WebhookDeliveryAttempt,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
} from './webhook-delivery'
import { OutboxEntry } from './webhook-event'

/**
 * Events stored before the write that raises them, until they are handed over to delivery.
 * An entry whose write never happened is dropped by the relay; see `makeRelayOutbox`.
 */
export interface WebhookOutbox {
  /** Stores the entry; storing one with the same `event_id` again changes nothing. */
  add(entry: OutboxEntry): TE.TaskEither<Unavailable, void>
  /** Removes the entry; removing an absent one is not an error. */
  remove(eventId: string): TE.TaskEither<Unavailable, void>
  /** Entries created before `before`, oldest first, at most `limit`. */
  olderThan(before: Date, limit: number): TE.TaskEither<Unavailable, readonly OutboxEntry[]>
}
export const WebhookOutbox = token<WebhookOutbox>('WebhookOutbox')

/** A delivery's next attempt, taken by one dispatcher until `lease_until`. */
export interface DeliveryClaim {
  /** The delivery as it was when claimed. */
  readonly delivery: WebhookDeliveryRecord
  /** 1-based number of the attempt this claim runs: the delivery's attempts so far, plus one. */
  readonly attempt: number
  readonly owner: string
}

export interface DeliveryFilter {
  readonly status?: WebhookDeliveryStatus
}

/**
 * The deliveries of events to subscriptions, shared by every instance. Claims make each attempt
 * run once across instances; a claim whose lease ran out (its process died) may be taken over,
 * so after a crash an attempt may run twice.
 */
export interface WebhookDeliveryStore {
  /** Stores new deliveries; one whose id exists already is left as it is (an entry handed over twice). */
  enqueue(deliveries: readonly WebhookDeliveryRecord[]): TE.TaskEither<Unavailable, void>
  /** Pending deliveries due at `now`, soonest due first, at most `limit`, none to a subscription in `excluded`. */
  due(now: Date, limit: number, excluded: readonly string[]): TE.TaskEither<Unavailable, readonly WebhookDeliveryRecord[]>
  /**
   * Takes the delivery's next attempt for `owner` until `leaseUntil`. None when a live claim of
   * another owner holds it, or when the delivery is no longer pending and due with as many
   * attempts as `delivery` has (another dispatcher ran it, or it was cancelled). Of racing claims
   * exactly one wins; a claim whose lease ended before `now` may be taken over.
   */
  claim(delivery: WebhookDeliveryRecord, owner: string, now: Date, leaseUntil: Date): TE.TaskEither<Unavailable, O.Option<DeliveryClaim>>
  /**
   * Ends a claim: appends `attempt` (when one was made) and applies `next` if the delivery is
   * still pending (a cancellation that came meanwhile stands), sets `updated_at` to `now`, and
   * frees the claim.
   */
  settle(
    claim: DeliveryClaim,
    attempt: WebhookDeliveryAttempt | null,
    next: DeliveryTransition,
    now: Date,
  ): TE.TaskEither<Unavailable, void>
  /** Cancels every pending delivery of the subscription; claimed ones are cancelled too, but their attempt may finish. */
  cancelPending(subscriptionId: string, now: Date): TE.TaskEither<Unavailable, number>
  findById(subscriptionId: string, deliveryId: string): TE.TaskEither<Unavailable, O.Option<WebhookDeliveryRecord>>
  /** Keyset read of one subscription's deliveries in descending (created_at, id) order: newest first. */
  list(subscriptionId: string, filter: DeliveryFilter, seek: Seek): TE.TaskEither<Unavailable, readonly WebhookDeliveryRecord[]>
  /**
   * Makes a delivered or failed delivery pending again, due at `now`, with no scheduled retries
   * left (one attempt). False, changing nothing, when it is not delivered or failed.
   */
  redeliver(subscriptionId: string, deliveryId: string, now: Date, retriesUsed: number): TE.TaskEither<Unavailable, boolean>
  /** Deletes delivered, failed and cancelled deliveries last updated before `before`; how many. */
  sweep(before: Date): TE.TaskEither<Unavailable, number>
}
export const WebhookDeliveryStore = token<WebhookDeliveryStore>('WebhookDeliveryStore')

/** One attempt to send an event, as the dispatcher hands it to the sender. */
export interface WebhookRequest {
  readonly url: string
  /** The exact bytes to send and sign. */
  readonly body: string
  readonly eventId: string
  /** Unix seconds: signed with the body, sent in the timestamp header. */
  readonly timestamp: number
  /** Signing secrets, newest first: one signature each. */
  readonly secrets: readonly string[]
  readonly authentication: WebhookAuthenticationCreate | null
  /** Whose credentials these are: a token fetched for them may be reused for the same subscription. */
  readonly subscriptionId: string
}

export interface WebhookResponse {
  /** The status received, if an answer came. */
  readonly status: number | null
  readonly error: WebhookAttemptError | null
  /** The start of the answer's body, as text, at most 1 KiB. */
  readonly excerpt: string | null
  readonly durationMs: number
}

/**
 * Sends one attempt over the network. Never fails and never hangs: every way an attempt can go
 * wrong (timeout, refused address, redirect, a failing token endpoint) is a `WebhookResponse`.
 */
export interface WebhookSender {
  send(req: WebhookRequest): T.Task<WebhookResponse>
}
export const WebhookSender = token<WebhookSender>('WebhookSender')

/** The running delivery machinery, as the use cases that raise or reschedule deliveries see it. */
export interface WebhookDispatch {
  /**
   * An event's write is stored: hand it over to delivery now. Never fails the request that
   * raised the event: what it cannot hand over stays in the outbox for the relay.
   */
  publish(entry: OutboxEntry): T.Task<void>
  /** Deliveries are due now (a redelivery): look for them without waiting for the next poll. */
  wake(): void
}
export const WebhookDispatch = token<WebhookDispatch>('WebhookDispatch')
