import { STORAGE_PORT_NAMES, StoragePorts } from '../storage.ports'
import { apiKeyPairRepositoryContract } from './api-key-pair-repository.contract'
import { auditLogContract } from './audit-log.contract'
import { buyerRepositoryContract } from './buyer-repository.contract'
import { checkoutSessionStoreContract } from './checkout-session-store.contract'
import { giftCardLedgerContract } from './gift-card-ledger.contract'
import { giftCardServiceRepositoryContract } from './gift-card-service-repository.contract'
import { giftCardVaultContract } from './gift-card-vault.contract'
import { Harness } from './harness'
import { idempotencyStoreContract } from './idempotency-store.contract'
import { merchantAccountRepositoryContract } from './merchant-account-repository.contract'
import { paymentMethodVaultContract } from './payment-method-vault.contract'
import { paymentServiceRepositoryContract } from './payment-service-repository.contract'
import { rateLimitStoreContract } from './rate-limit-store.contract'
import { roleRepositoryContract } from './role-repository.contract'
import { webhookDeliveryStoreContract } from './webhook-delivery-store.contract'
import { webhookOutboxContract } from './webhook-outbox.contract'
import { webhookSubscriptionRepositoryContract } from './webhook-subscription-repository.contract'
import { transactionStoreContract } from './transaction-store.contract'
import { shippingDetailsRepositoryContract } from './shipping-details-repository.contract'

export interface StorageOptions {
  /** For the stores that sweep expired data as they go: sweep on every `sweepEvery`-th call. */
  readonly sweepEvery?: number
}

/** A fresh set of storage ports for one test (a fresh database for a persistent set). */
export type StorageSetup = (options: StorageOptions) => Promise<Harness<StoragePorts>>

type Contract<P> = (name: string, setup: () => Promise<Harness<P>>) => void

const CONTRACTS: { readonly [K in keyof StoragePorts]: Contract<StoragePorts[K]> } = {
  merchantAccounts: merchantAccountRepositoryContract,
  keys: apiKeyPairRepositoryContract,
  roles: roleRepositoryContract,
  buyers: buyerRepositoryContract,
  shippingDetails: shippingDetailsRepositoryContract,
  webhooks: webhookSubscriptionRepositoryContract,
  giftCardServices: giftCardServiceRepositoryContract,
  giftCardVault: giftCardVaultContract,
  idempotency: idempotencyStoreContract,
  rateLimits: rateLimitStoreContract,
  outbox: webhookOutboxContract,
  deliveries: webhookDeliveryStoreContract,
  transactions: transactionStoreContract,
  cardServices: paymentServiceRepositoryContract,
  checkoutSessions: checkoutSessionStoreContract,
  giftCardLedger: giftCardLedgerContract,
  paymentMethods: paymentMethodVaultContract,
  audit: auditLogContract,
}

/** Runs every storage port's contract suite against one adapter set. */
export const storageContracts = (name: string, setup: StorageSetup): void => {
  const portOf =
    <K extends keyof StoragePorts>(key: K, options: StorageOptions = {}) =>
    async (): Promise<Harness<StoragePorts[K]>> => {
      const h = await setup(options)
      return { port: h.port[key], teardown: () => h.teardown() }
    }
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- K ties CONTRACTS[key] to portOf(key) for each key
  const run = <K extends keyof StoragePorts>(key: K) => {
    CONTRACTS[key](name, portOf(key))
  }
  for (const key of STORAGE_PORT_NAMES) run(key)
  // Sweeping on every call puts the sweep under the same contract.
  idempotencyStoreContract(`${name}, sweeping every claim`, portOf('idempotency', { sweepEvery: 1 }))
  rateLimitStoreContract(`${name}, sweeping every admission`, portOf('rateLimits', { sweepEvery: 1 }))
}
