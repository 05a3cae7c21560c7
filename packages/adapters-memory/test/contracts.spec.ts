import {
  apiKeyPairRepositoryContract,
  buyerRepositoryContract,
  giftCardServiceRepositoryContract,
  giftCardVaultContract,
  idempotencyStoreContract,
  merchantAccountRepositoryContract,
  rateLimitStoreContract,
  roleRepositoryContract,
  webhookDeliveryStoreContract,
  webhookOutboxContract,
  webhookSubscriptionRepositoryContract,
} from '@orka/domain/testing'
import {
  MemoryApiKeyPairRepository,
  MemoryBuyerRepository,
  MemoryGiftCardServiceRepository,
  MemoryGiftCardVault,
  MemoryIdempotencyStore,
  MemoryMerchantAccountRepository,
  MemoryRateLimitStore,
  MemoryRoleRepository,
  MemoryWebhookDeliveryStore,
  MemoryWebhookOutbox,
  MemoryWebhookSubscriptionRepository,
} from '../src'

const memory = <P>(make: () => P) => async () => ({ port: make(), teardown: async () => {} })

merchantAccountRepositoryContract('memory', memory(() => new MemoryMerchantAccountRepository()))
apiKeyPairRepositoryContract('memory', memory(() => new MemoryApiKeyPairRepository()))
roleRepositoryContract('memory', memory(() => new MemoryRoleRepository()))
buyerRepositoryContract('memory', memory(() => new MemoryBuyerRepository()))
webhookSubscriptionRepositoryContract('memory', memory(() => new MemoryWebhookSubscriptionRepository()))
webhookOutboxContract('memory', memory(() => new MemoryWebhookOutbox()))
webhookDeliveryStoreContract('memory', memory(() => new MemoryWebhookDeliveryStore()))
giftCardServiceRepositoryContract('memory', memory(() => new MemoryGiftCardServiceRepository()))
giftCardVaultContract('memory', memory(() => new MemoryGiftCardVault()))
idempotencyStoreContract('memory', memory(() => new MemoryIdempotencyStore()))
// Sweeping on every call puts the sweep under the same contract.
idempotencyStoreContract('memory, sweeping every claim', memory(() => new MemoryIdempotencyStore({ sweepEvery: 1 })))
rateLimitStoreContract('memory', memory(() => new MemoryRateLimitStore()))
rateLimitStoreContract('memory, sweeping every admission', memory(() => new MemoryRateLimitStore({ sweepEvery: 1 })))
