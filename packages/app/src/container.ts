import 'reflect-metadata'
import * as TE from 'fp-ts/TaskEither'
import { container as root, DependencyContainer, instanceCachingFactory } from 'tsyringe'
import { hkdfSync, randomUUID } from 'node:crypto'
import { hostname } from 'node:os'
import {
  ActivateDeps,
  ApiKeyPairRepository,
  AuditLog,
  makeListAuditLogs,
  makeRecordAudited,
  makeSettleAudit,
  RecordAudited,
  deleteBuyersGiftCards,
  deleteBuyersPaymentMethods,
  makeDeletePaymentMethod,
  makeGetPaymentMethod,
  makeListBuyerPaymentMethods,
  makeListPaymentMethods,
  makeStorePaymentMethod,
  makeUpdatePaymentMethod,
  PaymentMethodVault,
  BuyerRepository,
  CardConnectors,
  CheckoutSessionStore,
  Clock,
  GiftCardConnectors,
  GiftCardServiceRepository,
  GiftCardVault,
  TransactionStore,
  IdempotencyStore,
  IdGenerator,
  Mac,
  makeActivateGiftCard,
  makeDeleteGiftCard,
  makeGetGiftCard,
  makeListGiftCards,
  makeCheckBalances,
  makeListBuyerGiftCards,
  makeStoreGiftCard,
  makeAuthorize,
  makeCheckRateLimit,
  makeCreateCheckoutSession,
  makeDeleteCheckoutSession,
  makeGetCheckoutSession,
  makePutCheckoutSessionFields,
  makeSweepCheckoutSessions,
  makeUpdateCheckoutSession,
  makeCreateBuyer,
  makeDeleteBuyer,
  makeGetBuyer,
  makeCreateWebhookSubscription,
  makeDeleteWebhookSubscription,
  makeGetWebhookSubscription,
  makeListBuyers,
  makeUpdateBuyer,
  makeListRoles,
  makeListWebhookSubscriptions,
  makeAttemptDelivery,
  makeHandOver,
  makeListWebhookDeliveries,
  makeRedeliverWebhookDelivery,
  makeRelayOutbox,
  makeRotateWebhookSecret,
  makeUpdateWebhookSubscription,
  makeWebhookEvents,
  makeCaptureTransaction,
  makeCreateTransaction,
  makeGetCapture,
  makeGetRefund,
  makeGetTransaction,
  makeListCaptures,
  makeListRefunds,
  makeListTransactionEvents,
  makeListTransactions,
  makeRecoverTransactions,
  makeRefundAllTransaction,
  makeRefundTransaction,
  makeUnsupportedOperation,
  makeUpdateTransaction,
  makeVoidTransaction,
  PaymentServiceRepository,
  TransactionDeps,
  MerchantAccountRepository,
  Random,
  RetrySchedule,
  RateLimitStore,
  RoleRepository,
  SecretBox,
  STORAGE_PORT_NAMES,
  STORAGE_PORT_TOKENS,
  token,
  Token,
  WebhookDeliveryStore,
  WebhookDispatch,
  WebhookOutbox,
  WebhookSender,
  WebhookSubscriptionRepository,
  WebhookUrlPolicy,
} from '@orka/domain'
import {
  AesGcmSecretBox,
  cachedLookups,
  HmacMac,
  MathRandom,
  MockCardConnectors,
  MockGiftCardConnectors,
  RandomIds,
  SystemClock,
} from '@orka/adapters-node'
import { HttpDeps, NodeWebhookSender } from '@orka/adapters-http'
import { Config } from './config'
import { Storage } from './storage'
import { PeriodicJob } from './periodic-job'
import { DispatcherLog, WebhookDispatcher } from './webhook-dispatcher'
import { countingTransactions, instrumentConnectors, Metrics, timedStoragePorts } from './metrics'

export type UseCases = HttpDeps['useCases']
export const UseCases = token<UseCases>('UseCases')

/** Resolves a port by its typed token. */
export const get = <T>(c: DependencyContainer, t: Token<T>): T => c.resolve<T>(t)

export interface Overrides {
  readonly clock?: Clock
}

export interface BuildOptions extends Overrides {
  /** Set: storage, connectors, webhook attempts and transactions are measured (METRICS_PORT not 0). */
  readonly metrics?: Metrics | undefined
}

export const Dispatcher = token<WebhookDispatcher>('WebhookDispatcher')
/** Drives transactions left pending (a process stopped mid-flow, a service that did not answer) to an outcome. */
export const TransactionRecovery = token<PeriodicJob>('TransactionRecovery')
/** How often every instance looks for transactions left pending. */
export const RECOVERY_EVERY_MS = 30_000
/** Purges expired checkout sessions (card data and all) in every instance. */
export const SessionSweeper = token<PeriodicJob>('SessionSweeper')

/** How often expired checkout sessions are purged: reads already treat them as gone. */
export const SESSION_SWEEP_EVERY_MS = 60_000

/** Left-behind outbox entries younger than this may belong to a write still under way. */
export const OUTBOX_GRACE_MS = 60_000

/** Settles audit entries left pending by a process that stopped (the same grace as the outbox's), and deletes the expired. */
export const AuditSettler = token<PeriodicJob>('AuditSettler')
export const AuditSweeper = token<PeriodicJob>('AuditSweeper')
export const AUDIT_SETTLE_EVERY_MS = 5_000
const AUDIT_SWEEP_EVERY_MS = 10 * 60_000

const scheduleOf = (config: Config): RetrySchedule => ({ delaysS: config.webhookRetryDelaysS, jitter: 0.1 })
const urlPolicyOf = (config: Config): WebhookUrlPolicy => ({
  requireHttps: config.environment === 'production',
  allowPrivateAddresses: config.webhookAllowPrivateAddresses,
})

/** Separate keys per use, all derived from VAULT_KEY, so instances sharing it agree on every MAC. */
export const deriveKey = (root: Buffer, info: string) => Buffer.from(hkdfSync('sha256', root, Buffer.alloc(0), `orka/${info}`, 32))

/** Seals webhook secrets (and opens them): the seed command needs the servers' box. */
export const vaultBox = (rootKey: Buffer): SecretBox => new AesGcmSecretBox(deriveKey(rootKey, 'vault'))

/**
 * The one place that names concrete classes. Adapters are values; use cases are factories
 * over the ports, so nothing here needs decorator metadata.
 */
export const buildContainer = (
  config: Config,
  storage: Storage,
  rootKey: Buffer,
  log: DispatcherLog,
  o: BuildOptions = {},
): DependencyContainer => {
  const metrics = o.metrics
  const c = root.createChildContainer()
  const clock = o.clock ?? new SystemClock()
  c.register(Clock, { useValue: clock })
  c.register(IdGenerator, { useValue: new RandomIds() })
  const mac = new HmacMac(deriveKey(rootKey, 'mac'))
  c.register(Mac, { useValue: mac })
  c.register(SecretBox, { useValue: vaultBox(rootKey) })
  // In memory a lookup is already a map read; in MongoDB it is a round trip, three per request.
  const cached =
    storage.persistent && config.lookupCacheMs > 0 ? cachedLookups(storage.ports, { clock, ttlMs: config.lookupCacheMs }) : storage.ports
  // MongoDB's commands are measured by the driver's command monitoring (storage.ts); the embedded store's calls here.
  const timed = metrics === undefined || storage.persistent ? cached : timedStoragePorts(cached, metrics)
  const ports = metrics === undefined ? timed : { ...timed, transactions: countingTransactions(timed.transactions, metrics) }
  for (const name of STORAGE_PORT_NAMES) c.register(STORAGE_PORT_TOKENS[name], { useValue: ports[name] })
  c.register(Random, { useValue: new MathRandom() })
  const giftCardConnectors = new MockGiftCardConnectors({ clock, ledger: ports.giftCardLedger, mac, timeoutMs: config.connectorTimeoutMs })
  const cardConnectors = new MockCardConnectors({ timeoutMs: config.connectorTimeoutMs })
  c.register(GiftCardConnectors, {
    useValue: metrics === undefined ? giftCardConnectors : instrumentConnectors(giftCardConnectors, metrics),
  })
  c.register(CardConnectors, { useValue: metrics === undefined ? cardConnectors : instrumentConnectors(cardConnectors, metrics) })
  c.register(WebhookSender, {
    useValue: new NodeWebhookSender({
      headerPrefix: config.webhookHeaderPrefix,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivateAddresses: config.webhookAllowPrivateAddresses,
      requireHttps: config.environment === 'production',
    }),
  })
  c.register(Dispatcher, { useFactory: instanceCachingFactory((c) => makeDispatcher(c, config, log, metrics)) })
  c.register(WebhookDispatch, { useFactory: (c) => get(c, Dispatcher) })
  c.register(UseCases, { useFactory: instanceCachingFactory((c) => makeUseCases(c, config)) })
  c.register(SessionSweeper, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'checkout session sweep',
          makeSweepCheckoutSessions({ sessions: get(c, CheckoutSessionStore), clock: get(c, Clock) }),
          SESSION_SWEEP_EVERY_MS,
          log,
        ),
    ),
  })
  c.register(RecordAudited, {
    useFactory: instanceCachingFactory((c) =>
      makeRecordAudited({ audit: get(c, AuditLog), ids: get(c, IdGenerator), clock: get(c, Clock) }),
    ),
  })
  c.register(AuditSettler, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'audit log settling',
          () =>
            TE.map((r: { committed: number; dropped: number }) => r.committed + r.dropped)(
              makeSettleAudit({
                audit: get(c, AuditLog),
                buyers: get(c, BuyerRepository),
                vault: get(c, GiftCardVault),
                paymentMethods: get(c, PaymentMethodVault),
                webhooks: get(c, WebhookSubscriptionRepository),
                deliveries: get(c, WebhookDeliveryStore),
                checkoutSessions: get(c, CheckoutSessionStore),
                transactions: get(c, TransactionStore),
                keys: get(c, ApiKeyPairRepository),
                mac: get(c, Mac),
                clock: get(c, Clock),
                config: { graceMs: OUTBOX_GRACE_MS, batch: 100 },
              })(),
            ),
          AUDIT_SETTLE_EVERY_MS,
          log,
        ),
    ),
  })
  c.register(AuditSweeper, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'audit log retention',
          () => get(c, AuditLog).sweep(new Date(get(c, Clock).now().getTime() - config.auditRetentionDays * 86_400_000)),
          AUDIT_SWEEP_EVERY_MS,
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
              makeRecoverTransactions({ ...transactionDeps(c, config), recovery: recoveryOf(config) })(),
            ),
          RECOVERY_EVERY_MS,
          log,
        ),
    ),
  })
  return c
}

/**
 * A transaction is taken over once nothing was written for it this long: longer than a live
 * flow ever goes without writing (a call and the void of its unknown outcome, each bounded by
 * CONNECTOR_TIMEOUT_MS, and the writes around them, each bounded by STORAGE_TIMEOUT_MS).
 */
export const recoveryOf = (config: Config) => ({
  staleAfterMs: Math.max(60_000, 3 * config.connectorTimeoutMs + 2 * config.storageTimeoutMs),
  batch: 50,
})

const transactionDeps = (c: DependencyContainer, config: Config): TransactionDeps => {
  const clock = get(c, Clock)
  const ids = get(c, IdGenerator)
  return {
    transactions: get(c, TransactionStore),
    sessions: get(c, CheckoutSessionStore),
    services: get(c, PaymentServiceRepository),
    connectors: get(c, CardConnectors),
    buyers: get(c, BuyerRepository),
    idempotency: get(c, IdempotencyStore),
    box: get(c, SecretBox),
    mac: get(c, Mac),
    clock,
    ids,
    events: makeWebhookEvents({
      webhooks: get(c, WebhookSubscriptionRepository),
      outbox: get(c, WebhookOutbox),
      dispatch: get(c, WebhookDispatch),
      ids,
      clock,
      environment: config.environment,
    }),
    audited: get(c, RecordAudited),
    config: { replayS: config.idempotencyReplayS, leaseS: config.idempotencyLeaseS, retryAfterS: 1 },
    paymentMethods: get(c, PaymentMethodVault),
    giftCards: { services: get(c, GiftCardServiceRepository), connectors: get(c, GiftCardConnectors), vault: get(c, GiftCardVault) },
  }
}

const makeDispatcher = (c: DependencyContainer, config: Config, log: DispatcherLog, metrics: Metrics | undefined): WebhookDispatcher => {
  const clock = get(c, Clock)
  const outbox = get(c, WebhookOutbox)
  const deliveries = get(c, WebhookDeliveryStore)
  return new WebhookDispatcher({
    deliveries,
    clock,
    log,
    ...(metrics === undefined ? {} : { metrics }),
    handOver: makeHandOver({ outbox, deliveries }),
    relay: makeRelayOutbox({
      buyers: get(c, BuyerRepository),
      vault: get(c, GiftCardVault),
      paymentMethods: get(c, PaymentMethodVault),
      transactions: get(c, TransactionStore),
      outbox,
      deliveries,
      clock,
      config: { graceMs: OUTBOX_GRACE_MS, batch: 100 },
    }),
    attempt: makeAttemptDelivery({
      webhooks: get(c, WebhookSubscriptionRepository),
      deliveries,
      sender: get(c, WebhookSender),
      box: get(c, SecretBox),
      clock,
      random: get(c, Random),
      schedule: scheduleOf(config),
    }),
    config: {
      owner: `${hostname()}:${process.pid}:${randomUUID()}`,
      concurrency: config.webhookConcurrency,
      perSubscription: config.webhookConcurrencyPerSubscription,
      leaseMs: config.webhookLeaseS * 1000,
      pollIntervalMs: config.webhookPollIntervalMs,
      relayEveryMs: 5_000,
      sweepEveryMs: 10 * 60_000,
      retentionMs: config.webhookLogRetentionS * 1000,
    },
  })
}

const makeUseCases = (c: DependencyContainer, config: Config): UseCases => {
  const clock = get(c, Clock)
  const ids = get(c, IdGenerator)
  const mac = get(c, Mac)
  const box = get(c, SecretBox)
  const buyers = get(c, BuyerRepository)
  const webhooks = get(c, WebhookSubscriptionRepository)
  const roles = get(c, RoleRepository)
  const deliveries = get(c, WebhookDeliveryStore)
  const dispatch = get(c, WebhookDispatch)
  const policy = urlPolicyOf(config)
  const sessions = { sessions: get(c, CheckoutSessionStore), clock }
  const events = makeWebhookEvents({ webhooks, outbox: get(c, WebhookOutbox), dispatch, ids, clock, environment: config.environment })
  const audited = get(c, RecordAudited)
  // Activating and storing a card write the same things: one set of dependencies.
  const cardWrites: ActivateDeps = {
    services: get(c, GiftCardServiceRepository),
    connectors: get(c, GiftCardConnectors),
    vault: get(c, GiftCardVault),
    buyers,
    idempotency: get(c, IdempotencyStore),
    box,
    mac,
    clock,
    ids,
    events,
    audited,
    config: { replayS: config.idempotencyReplayS, leaseS: config.idempotencyLeaseS, retryAfterS: 1 },
  }
  const paymentMethods = get(c, PaymentMethodVault)
  const methodWrites = { ...cardWrites, paymentMethods, sessions: sessions.sessions }
  return {
    authorize: makeAuthorize({ merchantAccounts: get(c, MerchantAccountRepository), roles }),
    checkRateLimit: makeCheckRateLimit({
      store: get(c, RateLimitStore),
      clock,
      config: { limit: config.embedRateLimit, windowS: config.rateLimitWindowS },
    }),
    activateGiftCard: makeActivateGiftCard(cardWrites),
    storeGiftCard: makeStoreGiftCard(cardWrites),
    listGiftCards: makeListGiftCards({ vault: cardWrites.vault, buyers, mac }),
    getGiftCard: makeGetGiftCard({ vault: cardWrites.vault, buyers }),
    deleteGiftCard: makeDeleteGiftCard({ vault: cardWrites.vault, buyers, events, audited }),
    checkBalances: makeCheckBalances(cardWrites),
    listBuyerGiftCards: makeListBuyerGiftCards(cardWrites),
    storePaymentMethod: makeStorePaymentMethod(methodWrites),
    listPaymentMethods: makeListPaymentMethods(methodWrites),
    getPaymentMethod: makeGetPaymentMethod(methodWrites),
    updatePaymentMethod: makeUpdatePaymentMethod(methodWrites),
    deletePaymentMethod: makeDeletePaymentMethod(methodWrites),
    listBuyerPaymentMethods: makeListBuyerPaymentMethods(methodWrites),
    listRoles: makeListRoles({ roles, mac }),
    createBuyer: makeCreateBuyer({ buyers, clock, ids, events, audited }),
    listBuyers: makeListBuyers({ buyers, mac }),
    getBuyer: makeGetBuyer({ buyers }),
    updateBuyer: makeUpdateBuyer({ buyers, clock, events, audited, mac }),
    deleteBuyer: makeDeleteBuyer({
      buyers,
      events,
      audited,
      cascade: [deleteBuyersGiftCards(cardWrites.vault), deleteBuyersPaymentMethods(paymentMethods)],
    }),
    createWebhookSubscription: makeCreateWebhookSubscription({ webhooks, box, clock, ids, policy, audited, mac }),
    getWebhookSubscription: makeGetWebhookSubscription({ webhooks, box, clock }),
    listWebhookSubscriptions: makeListWebhookSubscriptions({ webhooks, box, clock, mac }),
    deleteWebhookSubscription: makeDeleteWebhookSubscription({ webhooks, deliveries, clock, audited }),
    updateWebhookSubscription: makeUpdateWebhookSubscription({ webhooks, box, clock, deliveries, policy, audited, mac }),
    rotateWebhookSecret: makeRotateWebhookSecret({ webhooks, box, clock, ids, audited, mac }),
    listWebhookDeliveries: makeListWebhookDeliveries({ webhooks, deliveries, mac }),
    redeliverWebhookDelivery: makeRedeliverWebhookDelivery({
      webhooks,
      deliveries,
      dispatch,
      clock,
      schedule: scheduleOf(config),
      audited,
    }),
    ...transactionUseCases(transactionDeps(c, config)),
    createCheckoutSession: makeCreateCheckoutSession({ ...sessions, ids, audited }),
    getCheckoutSession: makeGetCheckoutSession(sessions),
    updateCheckoutSession: makeUpdateCheckoutSession({ ...sessions, audited, mac }),
    deleteCheckoutSession: makeDeleteCheckoutSession({ ...sessions, audited }),
    listAuditLogs: makeListAuditLogs({ audit: get(c, AuditLog), mac }),
    putCheckoutSessionFields: makePutCheckoutSessionFields({ ...sessions, paymentMethods, box, mac }),
  }
}

const transactionUseCases = (deps: TransactionDeps) => ({
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
})
