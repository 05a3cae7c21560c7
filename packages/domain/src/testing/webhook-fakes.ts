import * as O from 'fp-ts/Option'
import * as T from 'fp-ts/Task'
import * as TE from 'fp-ts/TaskEither'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import { WebhookDispatch } from '../webhooks/webhook-delivery.ports'
import { OutboxEntry, outboxEntryOf } from '../webhooks/webhook-event'

/** Events for use cases whose events a test does not look at: nobody listens, writes run alone. */
export const noWebhookEvents: WebhookEvents = {
  raise: () => TE.right(O.none),
  record: (_event, write) => write,
  prepare: (name, merchantAccountId, target) =>
    outboxEntryOf({
      name,
      merchantAccountId,
      target,
      environment: 'sandbox',
      eventId: '00000000-0000-4000-8000-000000000000',
      at: new Date(0),
      deliveries: [],
    }),
}

/** A dispatch that only remembers what it was told. */
export class RecordingDispatch implements WebhookDispatch {
  readonly published: OutboxEntry[] = []
  wakes = 0
  publish(entry: OutboxEntry): T.Task<void> {
    return () => {
      this.published.push(entry)
      return Promise.resolve()
    }
  }
  wake() {
    this.wakes++
  }
}
