import { StoragePorts } from '@orka/domain'
import { MemoryApiKeyPairRepository } from './memory-api-key-pair-repository'
import { MemoryAuditLog } from './memory-audit-log'
import { MemoryBuyerRepository } from './memory-buyer-repository'
import { MemoryCheckoutSessionStore } from './memory-checkout-session-store'
import { MemoryGiftCardLedger } from './memory-gift-card-ledger'
import { MemoryGiftCardServiceRepository } from './memory-gift-card-service-repository'
import { MemoryGiftCardVault } from './memory-gift-card-vault'
import { MemoryIdempotencyStore, MemoryIdempotencyStoreOptions } from './memory-idempotency-store'
import { MemoryMerchantAccountRepository } from './memory-merchant-account-repository'
import { MemoryPaymentMethodVault } from './memory-payment-method-vault'
import { MemoryPaymentServiceRepository } from './memory-payment-service-repository'
import { MemoryRateLimitStore, MemoryRateLimitStoreOptions } from './memory-rate-limit-store'
import { MemoryRoleRepository } from './memory-role-repository'
import { MemoryWebhookDeliveryStore } from './memory-webhook-delivery-store'
import { MemoryWebhookOutbox } from './memory-webhook-outbox'
import { MemoryWebhookSubscriptionRepository } from './memory-webhook-subscription-repository'
import { MemoryTransactionStore } from './memory-transaction-store'
import { MemoryShippingDetailsRepository } from './memory-shipping-details-repository'

export interface MemoryAdapterOptions {
  readonly idempotency?: MemoryIdempotencyStoreOptions
  readonly rateLimits?: MemoryRateLimitStoreOptions
}

/** The embedded store: one adapter per storage port, sharing nothing with another call's. */
export const makeMemoryAdapters = (options: MemoryAdapterOptions = {}) =>
  ({
    merchantAccounts: new MemoryMerchantAccountRepository(),
    keys: new MemoryApiKeyPairRepository(),
    roles: new MemoryRoleRepository(),
    buyers: new MemoryBuyerRepository(),
    shippingDetails: new MemoryShippingDetailsRepository(),
    webhooks: new MemoryWebhookSubscriptionRepository(),
    giftCardServices: new MemoryGiftCardServiceRepository(),
    giftCardVault: new MemoryGiftCardVault(),
    idempotency: new MemoryIdempotencyStore(options.idempotency),
    rateLimits: new MemoryRateLimitStore(options.rateLimits),
    outbox: new MemoryWebhookOutbox(),
    deliveries: new MemoryWebhookDeliveryStore(),
    transactions: new MemoryTransactionStore(),
    cardServices: new MemoryPaymentServiceRepository(),
    checkoutSessions: new MemoryCheckoutSessionStore(),
    giftCardLedger: new MemoryGiftCardLedger(),
    paymentMethods: new MemoryPaymentMethodVault(),
    audit: new MemoryAuditLog(),
  }) satisfies StoragePorts

export type MemoryAdapters = ReturnType<typeof makeMemoryAdapters>
