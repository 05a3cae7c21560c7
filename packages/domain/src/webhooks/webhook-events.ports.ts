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

/** What a use case whose writes raise events needs: `raise` the event, then `record` the write with it. */
export interface WebhookEvents {
  readonly raise: RaiseEvent
  readonly record: RecordWithEvent
}
export const WebhookEvents = token<WebhookEvents>('WebhookEvents')
