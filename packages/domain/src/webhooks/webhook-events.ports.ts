import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { OutboxEntry, WebhookEventName, WebhookEventTarget } from './webhook-event'

/** The event a write will raise, fanned out to its recipients; none when nobody listens. */
export type RaiseEvent = <N extends WebhookEventName>(
  name: N,
  merchantAccountId: string,
  target: WebhookEventTarget<N> & { readonly id: string },
) => TE.TaskEither<Unavailable, O.Option<OutboxEntry>>

/** Runs a write with its event in the outbox first (see `makeRecordWithEvent`). */
export type RecordWithEvent = <Err, A>(event: O.Option<OutboxEntry>, write: TE.TaskEither<Err, A>) => TE.TaskEither<Err | Unavailable, A>

/**
 * The event a write will raise, with no recipients yet: for a write that stores its events with
 * itself (a transaction's version), to be fanned out once it is stored (`FanOut`).
 */
export type PrepareEvent = <N extends WebhookEventName>(
  name: N,
  merchantAccountId: string,
  target: WebhookEventTarget<N> & { readonly id: string },
) => OutboxEntry

/**
 * Stores the deliveries of events whose writes are stored, to the recipients each event's account
 * has now, and wakes the dispatcher. Idempotent: a delivery's id derives from its event and
 * subscription, so fanning an event out twice stores its deliveries once.
 */
export type FanOut = (events: readonly OutboxEntry[]) => TE.TaskEither<Unavailable, void>
export const FanOut = token<FanOut>('FanOut')

/** What a use case whose writes raise events needs: `raise` the event, then `record` the write with it (or `prepare` it, for a write that stores it). */
export interface WebhookEvents {
  readonly raise: RaiseEvent
  readonly record: RecordWithEvent
  readonly prepare: PrepareEvent
}
export const WebhookEvents = token<WebhookEvents>('WebhookEvents')
