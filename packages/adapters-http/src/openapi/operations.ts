import * as t from 'io-ts'
import {
  Buyer,
  BuyerCreate,
  DEFAULT_LIMIT,
  GiftCard,
  GiftCardActivationCreate,
  pageOf,
  Role,
  uuid,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookSecretRotation,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionUpdate,
} from '@orka/domain'
import { pageQueryProps } from '../routes/page'
import type { OperationId } from '../routes/table'

export interface ParameterDoc {
  readonly codec: t.Mixed
  readonly description: string
  readonly default?: unknown
}

/** What the route table does not say about an operation: its words and its codecs. */
export interface OperationDoc {
  readonly tag: string
  readonly summary: string
  readonly description: string
  readonly path?: Readonly<Record<string, ParameterDoc>>
  readonly query?: Readonly<Record<string, ParameterDoc>>
  /** Takes the `idempotency-key` header. */
  readonly idempotent?: boolean
  readonly body?: t.Mixed
  /** The body may be left out. */
  readonly optionalBody?: boolean
  readonly success: { readonly status: 200 | 201 | 202 | 204; readonly codec?: t.Mixed; readonly description: string }
}

const page = {
  limit: { codec: pageQueryProps.limit, description: 'The maximum number of items to return.', default: DEFAULT_LIMIT },
  cursor: {
    codec: pageQueryProps.cursor,
    description: 'The page to return: a `next_cursor` or `previous_cursor` of an earlier page of the same list, filter and merchant account.',
  },
}
const subscriptionId = { subscription_id: { codec: uuid, description: 'The ID of the webhook subscription.' } }
const deliveryId = { delivery_id: { codec: uuid, description: 'The ID of the delivery.' } }

/** The codec routes/gift-cards.ts decodes the header with: documented from the same value. */
export { IDEMPOTENCY_KEY } from '../routes/gift-cards'

/** Exhaustive over `OperationId`: a route without documentation fails to compile. */
export const OPERATIONS: Record<OperationId, OperationDoc> = {
  activate_gift_card: {
    tag: 'Gift cards',
    summary: 'Activate a gift card',
    description:
      'Activates a physical gift card through the merchant account\'s primary gift card service. With `store: true` the activated card is also stored in the vault (a card number already stored for the account is a `409` naming it).\n\n' +
      'With an `idempotency-key`, the same key and body replay the first outcome (`Idempotent-Replayed: true`), another body with the key is a `400`, and a request while the first still runs is a `425`.',
    idempotent: true,
    body: GiftCardActivationCreate,
    success: { status: 201, codec: GiftCard, description: 'The activated gift card.' },
  },
  list_roles: {
    tag: 'Roles',
    summary: 'List all roles',
    description: 'Lists the roles available in the instance, by slug.',
    query: page,
    success: { status: 200, codec: pageOf('Roles', Role), description: 'A page of roles.' },
  },
  add_buyer: {
    tag: 'Buyers',
    summary: 'Add a buyer',
    description: 'Creates a buyer in the merchant account. An `external_identifier` already used by another buyer of the account is a `409` naming that buyer.',
    body: BuyerCreate,
    success: { status: 201, codec: Buyer, description: 'The new buyer.' },
  },
  list_buyers: {
    tag: 'Buyers',
    summary: 'List all buyers',
    description: 'Lists the merchant account\'s buyers, newest first.',
    query: {
      ...page,
      external_identifier: {
        codec: BuyerCreate.optional.external_identifier.inner,
        description: 'Only the buyer whose `external_identifier` is this value.',
      },
    },
    success: { status: 200, codec: pageOf('Buyers', Buyer), description: 'A page of buyers.' },
  },
  create_webhook_subscription: {
    tag: 'Webhook subscriptions',
    summary: 'Create webhook subscription',
    description:
      'Creates a subscription: event notifications are delivered to `url`, optionally authenticated with `authentication`. Secrets are stored sealed and never returned (they read `********`).',
    body: WebhookSubscriptionCreate,
    success: { status: 201, codec: WebhookSubscription, description: 'The new subscription.' },
  },
  list_webhook_subscription: {
    tag: 'Webhook subscriptions',
    summary: 'List webhook subscriptions',
    description:
      'Lists the merchant account\'s subscriptions, newest first; an API key bound to no merchant account also sees the instance-wide ones (`merchant_account_id` null).',
    query: page,
    success: { status: 200, codec: pageOf('WebhookSubscriptions', WebhookSubscription), description: 'A page of webhook subscriptions.' },
  },
  read_webhook_subscription: {
    tag: 'Webhook subscriptions',
    summary: 'Get webhook subscription',
    description: 'Reads one subscription. Another merchant account\'s subscription is a `404`.',
    path: subscriptionId,
    success: { status: 200, codec: WebhookSubscription, description: 'The subscription.' },
  },
  delete_webhook_subscription: {
    tag: 'Webhook subscriptions',
    summary: 'Delete webhook subscription',
    description:
      'Permanently removes a subscription: no event notification is delivered to its URL any more. This cannot be undone; delivering to the same URL again takes a new subscription. Unknown, already deleted and another account\'s subscriptions are all `404`.',
    path: subscriptionId,
    success: { status: 204, description: 'Deleted; no body.' },
  },
  update_webhook_subscription: {
    tag: 'Webhook subscriptions',
    summary: 'Update webhook subscription',
    description:
      'Changes what the body names: an absent or null `url` or `active` is left as it is, an absent `authentication` too, and `authentication: null` removes it. With `active: false` nothing more is delivered: queued deliveries become `cancelled` (an attempt already under way may finish), and events raised while it is inactive are never delivered.',
    path: subscriptionId,
    body: WebhookSubscriptionUpdate,
    success: { status: 200, codec: WebhookSubscription, description: 'The updated subscription.' },
  },
  rotate_webhook_subscription_secret: {
    tag: 'Webhook subscriptions',
    summary: 'Rotate webhook subscription secret',
    description:
      'Replaces the signing secret; the answer carries the new `secret`. With `delta` (minutes, at most 10080: 7 days) the previous secret goes on signing for that long, so every delivery carries two signatures, the new one first, and `rotating` is true; without a body, or with `delta` absent, null or 0, the previous secret stops at once.',
    path: subscriptionId,
    body: WebhookSecretRotation,
    optionalBody: true,
    success: { status: 200, codec: WebhookSubscription, description: 'The subscription with its new secret.' },
  },
  list_webhook_deliveries: {
    tag: 'Webhook subscriptions',
    summary: 'List webhook deliveries',
    description:
      'The subscription\'s delivery log, newest first: one delivery per event sent to it, with every attempt (status received, duration, error, and at most the first KiB of the answer). Deliveries are kept for the configured retention (30 days by default).',
    path: subscriptionId,
    query: { ...page, status: { codec: WebhookDeliveryStatus, description: 'Only deliveries with this status.' } },
    success: { status: 200, codec: pageOf('WebhookDeliveries', WebhookDelivery), description: 'A page of deliveries.' },
  },
  redeliver_webhook_delivery: {
    tag: 'Webhook subscriptions',
    summary: 'Redeliver a webhook delivery',
    description:
      'Sends a `delivered` or `failed` delivery once more, now: the same event id and body, the attempt appended to the same delivery, which is `pending` until it ends (no further retries). A pending or cancelled delivery, or an inactive subscription, is a `409` saying why; a deleted subscription is a `404`.',
    path: { ...subscriptionId, ...deliveryId },
    success: { status: 202, codec: WebhookDelivery, description: 'The delivery, pending again.' },
  },
}

export const TAGS: ReadonlyArray<{ readonly name: string; readonly description: string }> = [
  { name: 'Gift cards', description: 'Physical gift cards activated through the merchant account\'s gift card service.' },
  { name: 'Roles', description: 'The role catalogue: what an API key may be allowed to do.' },
  { name: 'Buyers', description: 'The merchant\'s customers.' },
  { name: 'Webhook subscriptions', description: 'Where event notifications are delivered.' },
]
