import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock, Random } from '../shared/clock.ports'
import { SecretBox } from '../shared/crypto.ports'
import { Unavailable } from '../shared/errors'
import { afterAttempt, cancelled, isSuccess, RetrySchedule, WebhookDeliveryAttempt, WebhookDeliveryStatus } from './webhook-delivery'
import { DeliveryClaim, WebhookDeliveryStore, WebhookSender } from './webhook-delivery.ports'
import { openAuthentication, signingSecrets, WebhookSubscriptionRecord } from './webhook-subscription'
import { WebhookSubscriptionRepository } from './webhooks.ports'

export interface AttemptDeliveryDeps {
  readonly webhooks: WebhookSubscriptionRepository
  readonly deliveries: WebhookDeliveryStore
  readonly sender: WebhookSender
  readonly box: SecretBox
  readonly clock: Clock
  readonly random: Random
  readonly schedule: RetrySchedule
}

/**
 * Runs one claimed attempt. The subscription is read afresh first: one deleted or deactivated
 * since the delivery was queued gets nothing, and the delivery is cancelled. Otherwise the event
 * is signed with every live secret, sent, logged, and scheduled again or ended. Resolves with
 * the delivery's status afterwards.
 */
export const makeAttemptDelivery =
  (deps: AttemptDeliveryDeps) =>
  (claim: DeliveryClaim): TE.TaskEither<Unavailable, WebhookDeliveryStatus> => {
    const d = claim.delivery
    const open = (s: string) => deps.box.open(s)

    const send = (sub: WebhookSubscriptionRecord) => async (): Promise<WebhookDeliveryAttempt> => {
      const at = deps.clock.now()
      const r = await deps.sender.send({
        url: sub.url,
        body: d.body,
        eventId: d.event_id,
        timestamp: Math.floor(at.getTime() / 1000),
        secrets: signingSecrets(sub, open, at),
        authentication: openAuthentication(sub, open),
        subscriptionId: sub.id,
      })()
      return {
        attempted_at: at.toISOString(),
        response_status: r.status,
        duration_ms: r.durationMs,
        error: r.error,
        response_excerpt: r.excerpt,
      }
    }

    return pipe(
      deps.webhooks.findForDelivery(d.subscription_id),
      TE.flatMap((sub) => {
        if (O.isNone(sub) || !sub.value.active)
          return pipe(
            deps.deliveries.settle(claim, null, cancelled(d), deps.clock.now()),
            TE.map(() => 'cancelled' as const),
          )
        return pipe(
          TE.fromTask(send(sub.value)),
          TE.flatMap((attempt) => {
            const now = deps.clock.now()
            const next = afterAttempt(d, isSuccess(attempt), now, deps.schedule, deps.random.fraction())
            return pipe(
              deps.deliveries.settle(claim, attempt, next, now),
              TE.map(() => next.status),
            )
          }),
        )
      }),
    )
  }
