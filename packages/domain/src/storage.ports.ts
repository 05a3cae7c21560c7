import { ApiKeyPairRepository } from './auth/api-key-pair.ports'
import { BuyerRepository } from './buyers/buyers.ports'
import { GiftCardServiceRepository, GiftCardVault } from './gift-cards/gift-card.ports'
import { IdempotencyStore } from './idempotency/idempotency.ports'
import { MerchantAccountRepository } from './merchant-accounts/merchant-account.ports'
import { RateLimitStore } from './rate-limit/rate-limit.ports'
import { RoleRepository } from './roles/roles.ports'
import { WebhookDeliveryStore, WebhookOutbox } from './webhooks/webhook-delivery.ports'
import { WebhookSubscriptionRepository } from './webhooks/webhooks.ports'
import { TransactionStore } from './transactions/transaction.ports'
import { Token } from './shared/token'
import { PaymentServiceRepository } from './payments/payment-service.ports'
import { CheckoutSessionStore } from './checkout-sessions/checkout-session.ports'
import { GiftCardLedger } from './gift-cards/gift-card-ledger.ports'
import { PaymentMethodVault } from './payment-methods/payment-method.ports'
import { AuditLog } from './audit/audit.ports'
import { ShippingDetailsRepository } from './shipping-details/shipping-details.ports'

/**
 * The ports whose state matters: the ones a storage technology implements, all of them, as one
 * set (`makeMemoryAdapters()`, `makeMongoAdapters(store)`). The app registers them from this
 * record and `storageContracts` in `./testing` runs every one's suite, so a new storage port
 * fails to compile until each adapter set provides it and it has a contract suite.
 */
export interface StoragePorts {
  readonly merchantAccounts: MerchantAccountRepository
  readonly keys: ApiKeyPairRepository
  readonly roles: RoleRepository
  readonly buyers: BuyerRepository
  readonly shippingDetails: ShippingDetailsRepository
  readonly webhooks: WebhookSubscriptionRepository
  readonly giftCardServices: GiftCardServiceRepository
  readonly giftCardVault: GiftCardVault
  readonly idempotency: IdempotencyStore
  readonly rateLimits: RateLimitStore
  readonly outbox: WebhookOutbox
  readonly deliveries: WebhookDeliveryStore
  readonly transactions: TransactionStore
  readonly cardServices: PaymentServiceRepository
  readonly checkoutSessions: CheckoutSessionStore
  readonly giftCardLedger: GiftCardLedger
  readonly paymentMethods: PaymentMethodVault
  readonly audit: AuditLog
}

/** Each storage port's token. */
export const STORAGE_PORT_TOKENS: { readonly [K in keyof StoragePorts]: Token<StoragePorts[K]> } = {
  merchantAccounts: MerchantAccountRepository,
  keys: ApiKeyPairRepository,
  roles: RoleRepository,
  buyers: BuyerRepository,
  shippingDetails: ShippingDetailsRepository,
  webhooks: WebhookSubscriptionRepository,
  giftCardServices: GiftCardServiceRepository,
  giftCardVault: GiftCardVault,
  idempotency: IdempotencyStore,
  rateLimits: RateLimitStore,
  outbox: WebhookOutbox,
  deliveries: WebhookDeliveryStore,
  transactions: TransactionStore,
  cardServices: PaymentServiceRepository,
  checkoutSessions: CheckoutSessionStore,
  giftCardLedger: GiftCardLedger,
  paymentMethods: PaymentMethodVault,
  audit: AuditLog,
}

export const STORAGE_PORT_NAMES = Object.keys(STORAGE_PORT_TOKENS) as readonly (keyof StoragePorts)[]
