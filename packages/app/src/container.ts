import 'reflect-metadata'
import { container as root, DependencyContainer, instanceCachingFactory } from 'tsyringe'
import { hkdfSync } from 'node:crypto'
import {
  ApiKeyPairRepository,
  BuyerRepository,
  Clock,
  GiftCardConnectors,
  GiftCardServiceRepository,
  GiftCardVault,
  IdempotencyStore,
  IdGenerator,
  Mac,
  makeActivateGiftCard,
  makeAuthorize,
  makeCheckRateLimit,
  makeCreateBuyer,
  makeCreateWebhookSubscription,
  makeDeleteWebhookSubscription,
  makeGetWebhookSubscription,
  makeListBuyers,
  makeListRoles,
  makeListWebhookSubscriptions,
  MerchantAccountRepository,
  RateLimitStore,
  RoleRepository,
  SecretBox,
  token,
  Token,
  WebhookSubscriptionRepository,
} from '@orka/domain'
import { AesGcmSecretBox, HmacMac, MockGiftCardConnectors, RandomIds, SystemClock } from '@orka/adapters-memory'
import type { HttpDeps } from '@orka/adapters-http'
import { Config } from './config'
import { Storage } from './storage'

export type UseCases = HttpDeps['useCases']
export const UseCases = token<UseCases>('UseCases')

/** Resolves a port by its typed token. */
export const get = <T>(c: DependencyContainer, t: Token<T>): T => c.resolve<T>(t)

export interface Overrides {
  readonly clock?: Clock
}

/** Separate keys per use, all derived from VAULT_KEY, so instances sharing it agree on every MAC. */
export const deriveKey = (root: Buffer, info: string) => Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `orka/${info}`, 32))

/**
 * The one place that names concrete classes. Adapters are values; use cases are factories
 * over the ports, so nothing here needs decorator metadata.
 */
export const buildContainer = (config: Config, storage: Storage, rootKey: Buffer, o: Overrides = {}): DependencyContainer => {
  const c = root.createChildContainer()
  const clock = o.clock ?? new SystemClock()
  const p = storage.ports
  c.register(Clock, { useValue: clock })
  c.register(IdGenerator, { useValue: new RandomIds() })
  c.register(Mac, { useValue: new HmacMac(deriveKey(rootKey, 'mac')) })
  c.register(SecretBox, { useValue: new AesGcmSecretBox(deriveKey(rootKey, 'vault')) })
  c.register(MerchantAccountRepository, { useValue: p.merchantAccounts })
  c.register(ApiKeyPairRepository, { useValue: p.keys })
  c.register(RoleRepository, { useValue: p.roles })
  c.register(BuyerRepository, { useValue: p.buyers })
  c.register(WebhookSubscriptionRepository, { useValue: p.webhooks })
  c.register(GiftCardServiceRepository, { useValue: p.services })
  c.register(GiftCardVault, { useValue: p.vault })
  c.register(IdempotencyStore, { useValue: p.idempotency })
  c.register(RateLimitStore, { useValue: p.rateLimits })
  c.register(GiftCardConnectors, { useValue: new MockGiftCardConnectors({ clock, timeoutMs: config.connectorTimeoutMs }) })
  c.register(UseCases, { useFactory: instanceCachingFactory((c) => makeUseCases(c, config)) })
  return c
}

const makeUseCases = (c: DependencyContainer, config: Config): UseCases => {
  const clock = get(c, Clock)
  const ids = get(c, IdGenerator)
  const mac = get(c, Mac)
  const box = get(c, SecretBox)
  const buyers = get(c, BuyerRepository)
  const webhooks = get(c, WebhookSubscriptionRepository)
  const roles = get(c, RoleRepository)
  return {
    authorize: makeAuthorize({ merchantAccounts: get(c, MerchantAccountRepository), roles }),
    checkRateLimit: makeCheckRateLimit({
      store: get(c, RateLimitStore),
      clock,
      config: { limit: config.embedRateLimit, windowS: config.rateLimitWindowS },
    }),
    activateGiftCard: makeActivateGiftCard({
      services: get(c, GiftCardServiceRepository),
      connectors: get(c, GiftCardConnectors),
      vault: get(c, GiftCardVault),
      buyers,
      idempotency: get(c, IdempotencyStore),
      box,
      mac,
      clock,
      ids,
      config: { replayS: config.idempotencyReplayS, leaseS: config.idempotencyLeaseS, retryAfterS: 1 },
    }),
    listRoles: makeListRoles({ roles, mac }),
    createBuyer: makeCreateBuyer({ buyers, clock, ids }),
    listBuyers: makeListBuyers({ buyers, mac }),
    createWebhookSubscription: makeCreateWebhookSubscription({ webhooks, box, clock, ids }),
    getWebhookSubscription: makeGetWebhookSubscription({ webhooks, box }),
    listWebhookSubscriptions: makeListWebhookSubscriptions({ webhooks, box, mac }),
    deleteWebhookSubscription: makeDeleteWebhookSubscription({ webhooks }),
  }
}
