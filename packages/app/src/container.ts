/** Composes the per-feature wiring of `wiring/` into one container, and names the background jobs every instance runs. */
import 'reflect-metadata'
import { container as root, DependencyContainer, instanceCachingFactory } from 'tsyringe'
import { Clock, token, Token } from '@orka/domain'
import { HttpDeps } from '@orka/adapters-http'
import { Config } from './config'
import { Storage } from './storage'
import { Metrics } from './metrics'
import { DispatcherLog } from './webhook-dispatcher'
import { get, Wiring } from './wiring/context'
import { wireRuntime } from './wiring/runtime'
import { wireStorage } from './wiring/storage'
import { wireConnectors } from './wiring/connectors'
import { Dispatcher, webhookUseCases, wireWebhooks } from './wiring/webhooks'
import { AuditSettler, AuditSweeper, auditUseCases, wireAudit } from './wiring/audit'
import { authUseCases } from './wiring/auth'
import { giftCardUseCases, wireGiftCards } from './wiring/gift-cards'
import { paymentMethodUseCases } from './wiring/payment-methods'
import { paymentServiceUseCases, wirePaymentServices } from './wiring/payment-services'
import { buyerUseCases } from './wiring/buyers'
import { merchantAccountUseCases } from './wiring/merchant-accounts'
import { apiKeyPairUseCases, KeyUsageFlusher, KeyUsageRecorder, wireApiKeyPairs } from './wiring/api-key-pairs'
import { checkoutSessionUseCases, SessionSweeper, wireCheckoutSessions } from './wiring/checkout-sessions'
import { TransactionRecovery, transactionUseCases, VersionFolder, VersionRelay, wireTransactions } from './wiring/transactions'

export { get } from './wiring/context'
export { AuditSettler, AuditSweeper, Dispatcher, KeyUsageFlusher, KeyUsageRecorder, SessionSweeper, TransactionRecovery }

export type UseCases = HttpDeps['useCases']
export const UseCases = token<UseCases>('UseCases')

export interface Overrides {
  readonly clock?: Clock
}

export interface BuildOptions extends Overrides {
  /** Set: storage, connectors, webhook attempts and transactions are measured (METRICS_PORT not 0). */
  readonly metrics?: Metrics | undefined
}

export interface BackgroundJob {
  start(): void
  /** Starts nothing more and waits for the work under way. */
  stop(): Promise<void>
}

/** The background jobs every instance runs: started once the server listens, stopped in this order before storage closes. */
export const BACKGROUND_JOBS: readonly Token<BackgroundJob>[] = [
  Dispatcher,
  SessionSweeper,
  TransactionRecovery,
  VersionFolder,
  VersionRelay,
  AuditSettler,
  AuditSweeper,
  KeyUsageFlusher,
]

/**
 * Only this and the modules it composes name concrete classes. Adapters are values; use cases
 * are factories over the ports, built when first resolved (after `StartOptions.configure`), so
 * nothing here needs decorator metadata.
 */
export const buildContainer = (
  config: Config,
  storage: Storage,
  rootKey: Buffer,
  log: DispatcherLog,
  o: BuildOptions = {},
): DependencyContainer => {
  const w: Wiring = { config, log, metrics: o.metrics }
  const c = root.createChildContainer()
  wireRuntime(c, rootKey, o.clock)
  wireStorage(c, storage, w)
  wireConnectors(c, w)
  wirePaymentServices(c)
  wireWebhooks(c, w)
  wireAudit(c, w)
  wireApiKeyPairs(c, w)
  wireGiftCards(c, w)
  wireCheckoutSessions(c, w)
  wireTransactions(c, w)
  c.register(UseCases, {
    useFactory: instanceCachingFactory((c): UseCases => ({
      ...authUseCases(c, w),
      ...giftCardUseCases(c),
      ...paymentMethodUseCases(c),
      ...buyerUseCases(c),
      ...webhookUseCases(c, w),
      ...transactionUseCases(c),
      ...checkoutSessionUseCases(c),
      ...auditUseCases(c),
      ...paymentServiceUseCases(c, w.config),
      ...merchantAccountUseCases(c),
      ...apiKeyPairUseCases(c),
    })),
  })
  return c
}

/** The background jobs of a built container, in `BACKGROUND_JOBS` order. */
export const backgroundJobs = (c: DependencyContainer): readonly BackgroundJob[] => BACKGROUND_JOBS.map((job) => get(c, job))
