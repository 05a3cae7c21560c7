import { activateGiftCard } from './gift-cards'
import { createBuyer, listBuyers } from './buyers'
import type { Operation } from './operation'
import { listRoles } from './roles'
import { UNSERVED_OPERATIONS } from './unserved'
import { listWebhookDeliveries, redeliverWebhookDelivery } from './webhook-deliveries'
import {
  createWebhookSubscription,
  deleteWebhookSubscription,
  getWebhookSubscription,
  listWebhookSubscriptions,
  rotateWebhookSecret,
  updateWebhookSubscription,
} from './webhook-subscriptions'

/** Every operation: the router, the OpenAPI document (in this order), the `405`/`Allow` table and the rate limiter read this list. */
export const OPERATIONS: ReadonlyArray<Operation> = [
  activateGiftCard,
  listRoles,
  createBuyer,
  listBuyers,
  createWebhookSubscription,
  listWebhookSubscriptions,
  getWebhookSubscription,
  deleteWebhookSubscription,
  updateWebhookSubscription,
  rotateWebhookSecret,
  listWebhookDeliveries,
  redeliverWebhookDelivery,
  ...UNSERVED_OPERATIONS,
]

export { defineOperation, isServed, Operation, OperationRequest, ServedOperation, UnservedOperation } from './operation'
