import { API_KEY_PAIR_OPERATIONS } from './api-key-pairs'
import { AUDIT_LOG_OPERATIONS } from './audit-logs'
import { BUYER_OPERATIONS } from './buyers'
import { CHECKOUT_SESSION_OPERATIONS } from './checkout-sessions'
import { GIFT_CARD_OPERATIONS } from './gift-cards'
import type { Operation } from './operation'
import { PAYMENT_METHOD_OPERATIONS } from './payment-methods'
import { PAYMENT_SERVICE_OPERATIONS } from './payment-services'
import { ROLE_OPERATIONS } from './roles'
import { MERCHANT_ACCOUNT_OPERATIONS } from './merchant-accounts'
import { SHIPPING_DETAILS_OPERATIONS } from './shipping-details'
import { TRANSACTION_EXTRA_OPERATIONS } from './transaction-extras'
import { TRANSACTION_READ_OPERATIONS } from './transaction-reads'
import { TRANSACTION_OPERATIONS } from './transactions'
import { UNSERVED_OPERATIONS } from './unserved'
import { WEBHOOK_DELIVERY_OPERATIONS } from './webhook-deliveries'
import { WEBHOOK_SUBSCRIPTION_OPERATIONS } from './webhook-subscriptions'

/**
 * Every operation, by resource group: the router, the OpenAPI document (in this order), the
 * `405`/`Allow` table and the rate limiter read this list.
 */
export const OPERATIONS: readonly Operation[] = [
  ...GIFT_CARD_OPERATIONS,
  // Before the buyers': a router tries routes in this order, and `/buyers/payment-methods` must not be read as `/buyers/{buyer_id}`.
  ...PAYMENT_METHOD_OPERATIONS,
  ...ROLE_OPERATIONS,
  ...BUYER_OPERATIONS,
  ...SHIPPING_DETAILS_OPERATIONS,
  ...WEBHOOK_SUBSCRIPTION_OPERATIONS,
  ...WEBHOOK_DELIVERY_OPERATIONS,
  ...TRANSACTION_OPERATIONS,
  ...TRANSACTION_READ_OPERATIONS,
  ...TRANSACTION_EXTRA_OPERATIONS,
  ...CHECKOUT_SESSION_OPERATIONS,
  ...AUDIT_LOG_OPERATIONS,
  ...PAYMENT_SERVICE_OPERATIONS,
  ...MERCHANT_ACCOUNT_OPERATIONS,
  ...API_KEY_PAIR_OPERATIONS,
  ...UNSERVED_OPERATIONS,
]

export { defineOperation, isBrowserOperation, isServed, Operation, OperationRequest, ServedOperation, UnservedOperation } from './operation'
