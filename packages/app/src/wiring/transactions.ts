import * as E from 'fp-ts/Either'
/** Wires transactions: what every transaction use case needs, the use cases, and the recovery of pending ones. */
import * as TE from 'fp-ts/TaskEither'
import { DependencyContainer, instanceCachingFactory } from 'tsyringe'
import {
  AuditLog,
  CardConnectors,
  Clock,
  FanOut,
  FOLD_BATCH,
  foldWrittenVersions,
  makeVersionFolds,
  CheckoutSessionStore,
  makeCaptureTransaction,
  makeCreateTransaction,
  makeGetCapture,
  makeGetRefund,
  makeGetTransaction,
  makeListCaptures,
  makeListRefunds,
  makeListTransactionEvents,
  makeListTransactions,
  makeReceiveProviderWebhook,
  makeRecoverTransactions,
  makeRefundAllTransaction,
  makeRefundTransaction,
  makeSyncTransaction,
  makeUnsupportedOperation,
  makeUpdateTransaction,
  makeVoidTransaction,
  PaymentMethodVault,
  PaymentServiceRepository,
  token,
  ShippingDetailsRepository,
  TransactionDeps,
  TransactionStore,
  Unavailable,
  VersionFolds,
} from '@orka/domain'
import { UseCases } from '@orka/adapters-http'
import { PeriodicJob } from '../periodic-job'
import { RECOVERY_EVERY_MS, recoveryOf } from './recovery-policy'
import { get, Wiring } from './context'
import { CardWrites } from './gift-cards'
import { OUTBOX_GRACE_MS } from './webhooks'

/** Drives transactions left pending (a process stopped mid-flow, a service that did not answer) to an outcome. */
export const TransactionRecovery = token<PeriodicJob>('TransactionRecovery')

/** Folds what this instance's transaction versions were written with (`VersionFolds`), every `VERSION_FOLD_EVERY_MS`. */
export const VersionFolder = token<PeriodicJob>('VersionFolder')
/** Folds what a stopped process's versions were written with, once older than the outbox's grace. */
export const VersionRelay = token<PeriodicJob>('VersionRelay')
/** How late a payment's audit entry is listed on another instance, and its webhook event handed to delivery. */
export const VERSION_FOLD_EVERY_MS = 250
const VERSION_RELAY_EVERY_MS = 5_000

/**
 * A run writes the queue in batches, a few at most (the rest waits for the next run). It never
 * counts in the log: a run every quarter second would fill it.
 */
const flushQueue =
  (folds: VersionFolds): TE.TaskEither<Unavailable, number> =>
  async () => {
    for (let batch = 0; batch < 8; batch++) {
      const r = await folds.flush()()
      if (E.isLeft(r) || r.right < FOLD_BATCH) return E.map(() => 0)(r)
    }
    return E.right(0)
  }

/** Its last run comes after it stops, so what a stopping instance queued is folded by it, not left to the relay. */
class FlushingJob extends PeriodicJob {
  override async stop(): Promise<void> {
    await super.stop()
    await this.tick()
  }
}

export const wireTransactions = (c: DependencyContainer, { config, log }: Wiring): void => {
  const foldDeps = (c: DependencyContainer) => ({ audit: get(c, AuditLog), transactions: get(c, TransactionStore), fanOut: get(c, FanOut) })
  c.register(VersionFolds, { useFactory: instanceCachingFactory((c) => makeVersionFolds(foldDeps(c))) })
  c.register(VersionFolder, {
    useFactory: instanceCachingFactory(
      (c) => new FlushingJob('transaction version folding', () => flushQueue(get(c, VersionFolds)), VERSION_FOLD_EVERY_MS, log),
    ),
  })
  c.register(VersionRelay, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'transaction version relay',
          () => foldWrittenVersions(foldDeps(c))(new Date(get(c, Clock).now().getTime() - OUTBOX_GRACE_MS), 100),
          VERSION_RELAY_EVERY_MS,
          log,
        ),
    ),
  })
  c.register(TransactionRecovery, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'transaction recovery',
          () =>
            TE.map((r: { settled: number }) => r.settled)(
              makeRecoverTransactions({ ...transactionDeps(c), recovery: recoveryOf(config) })(),
            ),
          RECOVERY_EVERY_MS,
          log,
        ),
    ),
  })
}

/** Live flows and recovery get the same dependencies: recovery finishes a flow with the code that runs it. */
const transactionDeps = (c: DependencyContainer): TransactionDeps => {
  // A payment writes what a gift card write does (idempotency, events, audit, ...) and more.
  const writes = get(c, CardWrites)
  return {
    ...writes,
    transactions: get(c, TransactionStore),
    folds: get(c, VersionFolds),
    sessions: get(c, CheckoutSessionStore),
    cardServices: get(c, PaymentServiceRepository),
    cardConnectors: get(c, CardConnectors),
    paymentMethods: get(c, PaymentMethodVault),
    shippingDetails: get(c, ShippingDetailsRepository),
    giftCards: { services: writes.giftCardServices, connectors: writes.giftCardConnectors, vault: writes.giftCardVault },
  }
}

/** Named in full: some of their types are the domain's own, which a declaration cannot name. */
type TransactionUseCases = Pick<
  UseCases,
  | 'createTransaction'
  | 'listTransactions'
  | 'getTransaction'
  | 'updateTransaction'
  | 'captureTransaction'
  | 'voidTransaction'
  | 'refundTransaction'
  | 'refundAllTransaction'
  | 'listRefunds'
  | 'getRefund'
  | 'listCaptures'
  | 'getCapture'
  | 'listTransactionEvents'
  | 'unsupportedTransactionOperation'
  | 'syncTransaction'
  | 'receiveProviderWebhook'
>

export const transactionUseCases = (c: DependencyContainer): TransactionUseCases => {
  const deps = transactionDeps(c)
  return {
    createTransaction: makeCreateTransaction(deps),
    listTransactions: makeListTransactions(deps),
    getTransaction: makeGetTransaction(deps),
    updateTransaction: makeUpdateTransaction(deps),
    captureTransaction: makeCaptureTransaction(deps),
    voidTransaction: makeVoidTransaction(deps),
    refundTransaction: makeRefundTransaction(deps),
    refundAllTransaction: makeRefundAllTransaction(deps),
    listRefunds: makeListRefunds(deps),
    getRefund: makeGetRefund(deps),
    listCaptures: makeListCaptures(deps),
    getCapture: makeGetCapture(deps),
    listTransactionEvents: makeListTransactionEvents(deps),
    unsupportedTransactionOperation: makeUnsupportedOperation(deps),
    syncTransaction: makeSyncTransaction(deps),
    receiveProviderWebhook: makeReceiveProviderWebhook(deps),
  }
}
