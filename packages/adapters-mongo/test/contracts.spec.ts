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
  MongoApiKeyPairRepository,
  MongoBuyerRepository,
  MongoGiftCardServiceRepository,
  MongoGiftCardVault,
  MongoIdempotencyStore,
  MongoMerchantAccountRepository,
  MongoRateLimitStore,
  MongoRoleRepository,
  MongoWebhookDeliveryStore,
  MongoWebhookOutbox,
  MongoWebhookSubscriptionRepository,
} from '../src'
import { mongoHarness as mongo } from './support'

// The Mac and SecretBox suites test crypto, not storage: they run in adapters-node.
merchantAccountRepositoryContract('mongo', mongo((s) => new MongoMerchantAccountRepository(s)))
apiKeyPairRepositoryContract('mongo', mongo((s) => new MongoApiKeyPairRepository(s)))
roleRepositoryContract('mongo', mongo((s) => new MongoRoleRepository(s)))
buyerRepositoryContract('mongo', mongo((s) => new MongoBuyerRepository(s)))
webhookSubscriptionRepositoryContract('mongo', mongo((s) => new MongoWebhookSubscriptionRepository(s)))
giftCardServiceRepositoryContract('mongo', mongo((s) => new MongoGiftCardServiceRepository(s)))
giftCardVaultContract('mongo', mongo((s) => new MongoGiftCardVault(s)))
idempotencyStoreContract('mongo', mongo((s) => new MongoIdempotencyStore(s)))
// Sweeping on every call puts the sweep under the same contract.
idempotencyStoreContract('mongo, sweeping every claim', mongo((s) => new MongoIdempotencyStore(s, { sweepEvery: 1 })))
rateLimitStoreContract('mongo', mongo((s) => new MongoRateLimitStore(s)))
rateLimitStoreContract('mongo, sweeping every admission', mongo((s) => new MongoRateLimitStore(s, { sweepEvery: 1 })))
webhookOutboxContract('mongo', mongo((s) => new MongoWebhookOutbox(s)))
webhookDeliveryStoreContract('mongo', mongo((s) => new MongoWebhookDeliveryStore(s)))
