import { canonicalUuid, pageOf, WebhookDelivery, WebhookDeliveryStatus, keyActor } from '@orka/domain'
import { defineOperation } from './operation'
import { PAGE_QUERY } from './page'
import { scopeOf, SUBSCRIPTION_ID, WEBHOOK_SUBSCRIPTIONS } from './webhook-subscriptions'

export const listWebhookDeliveries = defineOperation({
  method: 'GET',
  path: '/webhook-subscriptions/{subscription_id}/deliveries',
  scope: 'webhook-subscriptions.read',
  operationId: 'list_webhook_deliveries',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'List webhook deliveries',
    description:
      "The subscription's delivery log, newest first: one delivery per event sent to it, with every attempt (status received, duration, " +
      'error, and at most the first KiB of the answer). Deliveries are kept for the configured retention (30 days by default).',
  },
  params: SUBSCRIPTION_ID,
  query: { ...PAGE_QUERY, status: { codec: WebhookDeliveryStatus, description: 'Only deliveries with this status.' } },
  success: { status: 200, codec: pageOf('WebhookDeliveries', WebhookDelivery), description: 'A page of deliveries.' },
  handle: (u) => (req) => {
    const { status, ...page } = req.query
    return u.listWebhookDeliveries({
      scope: scopeOf(req.access),
      subscriptionId: req.params.subscription_id,
      filter: status === undefined ? {} : { status },
      ...page,
    })
  },
})

/** The attempt runs in the background. */
export const redeliverWebhookDelivery = defineOperation({
  method: 'POST',
  path: '/webhook-subscriptions/{subscription_id}/deliveries/{delivery_id}/redeliver',
  scope: 'webhook-subscriptions.write',
  operationId: 'redeliver_webhook_delivery',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'Redeliver a webhook delivery',
    description:
      'Sends a `delivered` or `failed` delivery once more, now: the same event id and body, the attempt appended to the same delivery, ' +
      'which is `pending` until it ends (no further retries). A pending or cancelled delivery, or an inactive subscription, is a ' +
      '`409` saying why; a deleted subscription is a `404`.',
  },
  params: { ...SUBSCRIPTION_ID, delivery_id: { codec: canonicalUuid, description: 'The ID of the delivery.' } },
  success: { status: 202, codec: WebhookDelivery, description: 'The delivery, pending again.' },
  handle: (u) => (req) =>
    u.redeliverWebhookDelivery({
      scope: scopeOf(req.access),
      actor: keyActor(req.access.principal.key),
      subscriptionId: req.params.subscription_id,
      deliveryId: req.params.delivery_id,
    }),
})

export const WEBHOOK_DELIVERY_OPERATIONS = [listWebhookDeliveries, redeliverWebhookDelivery]
