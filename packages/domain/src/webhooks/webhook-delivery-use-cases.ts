import { AuditActor } from '../audit/audit-entry'
import { auditedWhen, RecordAudited } from '../audit/record-audited'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { paginate, PageQuery } from '../pagination/paginate'
import { Page } from '../pagination/page'
import { Clock } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import { Conflict, conflict, InvalidRequest, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import { deliverySortKey, presentDelivery, RetrySchedule, WebhookDelivery, WebhookDeliveryRecord } from './webhook-delivery'
import { DeliveryFilter, WebhookDeliveryStore, WebhookDispatch } from './webhook-delivery.ports'
import { WebhookSubscriptionRecord } from './webhook-subscription'
import { WebhookScope, WebhookSubscriptionRepository } from './webhooks.ports'

/** The subscription, when the caller may see it: its deliveries are as visible as it is. */
const visible = (webhooks: WebhookSubscriptionRepository, scope: WebhookScope, id: string) =>
  pipe(
    webhooks.findById(scope, id),
    TE.flatMap(
      O.match(
        () => TE.left<NotFound | Unavailable, WebhookSubscriptionRecord>(notFound('WebhookSubscription', id)),
        (s) => TE.right(s),
      ),
    ),
  )

export const makeListWebhookDeliveries =
  (deps: { webhooks: WebhookSubscriptionRepository; deliveries: WebhookDeliveryStore; mac: Mac }) =>
  (
    q: PageQuery & { scope: WebhookScope; subscriptionId: string; filter: DeliveryFilter },
  ): TE.TaskEither<NotFound | InvalidRequest | Unavailable, Page<WebhookDelivery>> =>
    pipe(
      visible(deps.webhooks, q.scope, q.subscriptionId),
      TE.flatMap(() =>
        paginate<WebhookDeliveryRecord, Unavailable>(
          deps,
          `webhook-deliveries\u0000${q.subscriptionId}\u0000${q.filter.status ?? ''}`,
          deliverySortKey,
          (seek) => deps.deliveries.list(q.subscriptionId, q.filter, seek),
        )(q),
      ),
      TE.map((page) => ({ ...page, items: page.items.map(presentDelivery) })),
    )

const refused = (d: WebhookDeliveryRecord, sub: WebhookSubscriptionRecord): Conflict | undefined => {
  if (d.status === 'pending')
    return conflict(
      d.id,
      problem('deliveryId', [], 'This delivery is still pending: its next attempt is already scheduled', 'delivery_pending'),
    )
  if (d.status === 'cancelled')
    return conflict(
      d.id,
      problem(
        'deliveryId',
        [],
        'This delivery was cancelled when its subscription was deactivated; it cannot be sent again',
        'delivery_cancelled',
      ),
    )
  if (!sub.active)
    return conflict(
      sub.id,
      problem('subscriptionId', [], 'The subscription is inactive: activate it before redelivering', 'subscription_inactive'),
    )
  return undefined
}

/**
 * Sends a delivered or failed delivery once more, now: the same event id and body, its attempt
 * appended to the same delivery, which is pending until that attempt ends (no further retries).
 */
export const makeRedeliverWebhookDelivery =
  (deps: {
    webhooks: WebhookSubscriptionRepository
    deliveries: WebhookDeliveryStore
    dispatch: WebhookDispatch
    clock: Clock
    schedule: RetrySchedule
    audited: RecordAudited
  }) =>
  (q: {
    scope: WebhookScope
    actor: AuditActor
    subscriptionId: string
    deliveryId: string
  }): TE.TaskEither<NotFound | Conflict | Unavailable, WebhookDelivery> => {
    const read = () =>
      pipe(
        deps.deliveries.findById(q.subscriptionId, q.deliveryId),
        TE.flatMap(
          O.match(
            () => TE.left<NotFound | Conflict | Unavailable, WebhookDeliveryRecord>(notFound('WebhookDelivery', q.deliveryId)),
            (d) => TE.right(d),
          ),
        ),
      )
    // A redelivery changes the delivery (pending again): audited, found after a crash by its time.
    const redeliver = (id: string) => {
      const now = deps.clock.now()
      return auditedWhen(
        deps.audited,
        {
          merchantAccountId: q.scope.merchantAccountId,
          actor: q.actor,
          resource: { type: 'webhook-delivery', id, name: 'Webhook delivery' },
          action: 'updated',
          check: { probe: 'webhook-delivery-redelivered', id, witness: `${q.subscriptionId} ${now.toISOString()}` },
        },
        deps.deliveries.redeliver(q.subscriptionId, id, now, deps.schedule.delaysS.length),
        (rescheduled) => rescheduled,
      )
    }
    return pipe(
      visible(deps.webhooks, q.scope, q.subscriptionId),
      TE.flatMap((sub) =>
        pipe(
          read(),
          TE.flatMap((d) => {
            const why = refused(d, sub)
            return why ? TE.left<NotFound | Conflict | Unavailable, boolean>(why) : redeliver(d.id)
          }),
          // Not rescheduled: another request changed it meanwhile (a redelivery of its own), so say what it is now.
          TE.flatMap((rescheduled) =>
            pipe(
              read(),
              TE.flatMap((d): TE.TaskEither<NotFound | Conflict | Unavailable, WebhookDeliveryRecord> => {
                const why = rescheduled ? undefined : refused(d, sub)
                return why ? TE.left(why) : TE.right(d)
              }),
            ),
          ),
        ),
      ),
      TE.tap(() =>
        TE.fromIO(() => {
          deps.dispatch.wake()
        }),
      ),
      TE.map(presentDelivery),
    )
  }
