import { StoragePorts } from '@orka/domain'
import { MongoStore } from './mongo-database'
import { MongoApiKeyPairRepository } from './mongo-api-key-pair-repository'
import { MongoAuditLog } from './mongo-audit-log'
import { MongoBuyerRepository, MongoBuyerRepositoryOptions } from './mongo-buyer-repository'
import { MongoCheckoutSessionStore } from './mongo-checkout-session-store'
import { MongoGiftCardLedger } from './mongo-gift-card-ledger'
import { MongoGiftCardServiceRepository } from './mongo-gift-card-service-repository'
import { MongoGiftCardVault } from './mongo-gift-card-vault'
import { MongoIdempotencyStore, MongoIdempotencyStoreOptions } from './mongo-idempotency-store'
import { MongoMerchantAccountRepository } from './mongo-merchant-account-repository'
import { MongoPaymentMethodVault } from './mongo-payment-method-vault'
import { MongoPaymentServiceRepository } from './mongo-payment-service-repository'
import { MongoRateLimitStore, MongoRateLimitStoreOptions } from './mongo-rate-limit-store'
import { MongoRoleRepository } from './mongo-role-repository'
import { MongoShippingDetailsRepository } from './mongo-shipping-details-repository'
import { MongoWebhookDeliveryStore } from './mongo-webhook-delivery-store'
import { MongoWebhookOutbox } from './mongo-webhook-outbox'
import { MongoWebhookSubscriptionRepository } from './mongo-webhook-subscription-repository'
import { MongoTransactionStore } from './mongo-transaction-store'

export interface MongoAdapterOptions {
  readonly buyers?: MongoBuyerRepositoryOptions
  readonly idempotency?: MongoIdempotencyStoreOptions
  readonly rateLimits?: MongoRateLimitStoreOptions
}

/** One adapter per storage port, all on `store`. */
export const makeMongoAdapters = (store: MongoStore, options: MongoAdapterOptions = {}) =>
  ({
    merchantAccounts: new MongoMerchantAccountRepository(store),
    keys: new MongoApiKeyPairRepository(store),
    roles: new MongoRoleRepository(store),
    buyers: new MongoBuyerRepository(store, options.buyers),
    shippingDetails: new MongoShippingDetailsRepository(store),
    webhooks: new MongoWebhookSubscriptionRepository(store),
    giftCardServices: new MongoGiftCardServiceRepository(store),
    giftCardVault: new MongoGiftCardVault(store),
    idempotency: new MongoIdempotencyStore(store, options.idempotency),
    rateLimits: new MongoRateLimitStore(store, options.rateLimits),
    outbox: new MongoWebhookOutbox(store),
    deliveries: new MongoWebhookDeliveryStore(store),
    transactions: new MongoTransactionStore(store),
    cardServices: new MongoPaymentServiceRepository(store),
    checkoutSessions: new MongoCheckoutSessionStore(store),
    giftCardLedger: new MongoGiftCardLedger(store),
    paymentMethods: new MongoPaymentMethodVault(store),
    audit: new MongoAuditLog(store),
  }) satisfies StoragePorts

export type MongoAdapters = ReturnType<typeof makeMongoAdapters>
