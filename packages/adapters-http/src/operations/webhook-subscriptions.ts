import {
  Access,
  canonicalUuid,
  pageOf,
  WebhookScope,
  WebhookSecretRotation,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionUpdate,
  keyActor,
} from '@orka/domain'
import { defineOperation, Tag } from './operation'
import { PAGE_QUERY } from './page'

export const WEBHOOK_SUBSCRIPTIONS: Tag = { name: 'Webhook subscriptions', description: 'Where event notifications are delivered.' }

/** Path ids are UUIDs compared case-insensitively: decoded to lower case, the form stored ids have. */
export const SUBSCRIPTION_ID = { subscription_id: { codec: canonicalUuid, description: 'The ID of the webhook subscription.' } }

/** The account's subscriptions, plus the instance-wide ones for a key bound to no account. */
export const scopeOf = (access: Access): WebhookScope => ({
  merchantAccountId: access.merchantAccount.id,
  includeInstanceWide: access.principal.key.merchant_account_id === null,
})

export const createWebhookSubscription = defineOperation({
  method: 'POST',
  path: '/webhook-subscriptions',
  scope: 'webhook-subscriptions.write',
  operationId: 'create_webhook_subscription',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'Create webhook subscription',
    description:
      'Creates a subscription: event notifications are delivered to `url`, optionally authenticated with `authentication`. Secrets are ' +
      'stored sealed and never returned (they read `********`).',
  },
  body: WebhookSubscriptionCreate,
  success: { status: 201, codec: WebhookSubscription, description: 'The new subscription.' },
  handle: (u) => (req) =>
    u.createWebhookSubscription({
      merchantAccountId: req.access.merchantAccount.id,
      actor: keyActor(req.access.principal.key),
      input: req.body,
    }),
})

export const listWebhookSubscriptions = defineOperation({
  method: 'GET',
  path: '/webhook-subscriptions',
  scope: 'webhook-subscriptions.read',
  operationId: 'list_webhook_subscription',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'List webhook subscriptions',
    description:
      "Lists the merchant account's subscriptions, newest first; an API key bound to no merchant account also sees the instance-wide " +
      'ones (`merchant_account_id` null).',
  },
  query: PAGE_QUERY,
  success: { status: 200, codec: pageOf('WebhookSubscriptions', WebhookSubscription), description: 'A page of webhook subscriptions.' },
  handle: (u) => (req) => u.listWebhookSubscriptions({ scope: scopeOf(req.access), ...req.query }),
})

export const getWebhookSubscription = defineOperation({
  method: 'GET',
  path: '/webhook-subscriptions/{subscription_id}',
  scope: 'webhook-subscriptions.read',
  operationId: 'read_webhook_subscription',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'Get webhook subscription',
    description: "Reads one subscription. Another merchant account's subscription is a `404`.",
  },
  params: SUBSCRIPTION_ID,
  success: { status: 200, codec: WebhookSubscription, description: 'The subscription.' },
  handle: (u) => (req) => u.getWebhookSubscription({ scope: scopeOf(req.access), id: req.params.subscription_id }),
})

export const deleteWebhookSubscription = defineOperation({
  method: 'DELETE',
  path: '/webhook-subscriptions/{subscription_id}',
  scope: 'webhook-subscriptions.write',
  operationId: 'delete_webhook_subscription',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'Delete webhook subscription',
    description:
      'Permanently removes a subscription: no event notification is delivered to its URL any more. This cannot be undone; delivering to ' +
      "the same URL again takes a new subscription. Unknown, already deleted and another account's subscriptions are all `404`.",
  },
  params: SUBSCRIPTION_ID,
  success: { status: 204, description: 'Deleted; no body.' },
  handle: (u) => (req) =>
    u.deleteWebhookSubscription({ scope: scopeOf(req.access), actor: keyActor(req.access.principal.key), id: req.params.subscription_id }),
})

/** The original API's update; `active: false` also cancels what was queued for it. */
export const updateWebhookSubscription = defineOperation({
  method: 'PUT',
  path: '/webhook-subscriptions/{subscription_id}',
  scope: 'webhook-subscriptions.write',
  operationId: 'update_webhook_subscription',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'Update webhook subscription',
    description:
      'Changes what the body names: an absent or null `url` or `active` is left as it is, an absent `authentication` too, and ' +
      '`authentication: null` removes it. With `active: false` nothing more is delivered: queued deliveries become `cancelled` ' +
      '(an attempt already under way may finish), and events raised while it is inactive are never delivered.',
  },
  params: SUBSCRIPTION_ID,
  body: WebhookSubscriptionUpdate,
  success: { status: 200, codec: WebhookSubscription, description: 'The updated subscription.' },
  handle: (u) => (req) =>
    u.updateWebhookSubscription({
      scope: scopeOf(req.access),
      actor: keyActor(req.access.principal.key),
      id: req.params.subscription_id,
      input: req.body,
    }),
})

export const rotateWebhookSecret = defineOperation({
  method: 'POST',
  path: '/webhook-subscriptions/{subscription_id}/rotate-secret',
  scope: 'webhook-subscriptions.write',
  operationId: 'rotate_webhook_subscription_secret',
  doc: {
    tag: WEBHOOK_SUBSCRIPTIONS,
    summary: 'Rotate webhook subscription secret',
    description:
      'Replaces the signing secret; the answer carries the new `secret`. With `delta` (minutes, at most 10080: 7 days) the previous ' +
      'secret goes on signing for that long, so every delivery carries two signatures, the new one first, and `rotating` is ' +
      'true; without a body, or with `delta` absent, null or 0, the previous secret stops at once.',
  },
  params: SUBSCRIPTION_ID,
  body: WebhookSecretRotation,
  optionalBody: true,
  success: { status: 200, codec: WebhookSubscription, description: 'The subscription with its new secret.' },
  handle: (u) => (req) =>
    u.rotateWebhookSecret({
      scope: scopeOf(req.access),
      actor: keyActor(req.access.principal.key),
      id: req.params.subscription_id,
      input: req.body,
    }),
})

export const WEBHOOK_SUBSCRIPTION_OPERATIONS = [
  createWebhookSubscription,
  listWebhookSubscriptions,
  getWebhookSubscription,
  deleteWebhookSubscription,
  updateWebhookSubscription,
  rotateWebhookSecret,
]
