/** Wires webhooks: the sender, this instance's dispatcher (a background job), the events writes raise, the subscription use cases. */
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import { DependencyContainer, instanceCachingFactory } from 'tsyringe'
import {
  BuyerRepository,
  Clock,
  GiftCardVault,
  IdGenerator,
  Mac,
  makeAttemptDelivery,
  makeCreateWebhookSubscription,
  makeDeleteWebhookSubscription,
  makeGetWebhookSubscription,
  makeHandOver,
  makeListWebhookDeliveries,
  makeListWebhookSubscriptions,
  makeRedeliverWebhookDelivery,
  makeRelayOutbox,
  makeRotateWebhookSecret,
  makeUpdateWebhookSubscription,
  makeFanOut,
  makeWebhookEvents,
  PaymentMethodVault,
  Random,
  RecordAudited,
  RetrySchedule,
  SecretBox,
  token,
  TransactionStore,
  WebhookDeliveryStore,
  FanOut,
  WebhookDispatch,
  WebhookEvents,
  WebhookOutbox,
  WebhookSender,
  WebhookSubscriptionRepository,
  WebhookUrlPolicy,
} from '@orka/domain'
import { NodeWebhookSender } from '@orka/adapters-http'
import { Config } from '../config'
import { WebhookDispatcher } from '../webhook-dispatcher'
import { get, Wiring } from './context'

export const Dispatcher = token<WebhookDispatcher>('WebhookDispatcher')

/** Left-behind outbox entries younger than this may belong to a write still under way. */
export const OUTBOX_GRACE_MS = 60_000

const scheduleOf = (config: Config): RetrySchedule => ({ delaysS: config.webhookRetryDelaysS, jitter: 0.1 })
const urlPolicyOf = (config: Config): WebhookUrlPolicy => ({
  requireHttps: config.environment === 'production',
  allowPrivateAddresses: config.webhookAllowPrivateAddresses,
})

export const wireWebhooks = (c: DependencyContainer, w: Wiring): void => {
  const { config } = w
  c.register(WebhookSender, {
    useValue: new NodeWebhookSender({
      headerPrefix: config.webhookHeaderPrefix,
      timeoutMs: config.webhookTimeoutMs,
      allowPrivateAddresses: config.webhookAllowPrivateAddresses,
      requireHttps: config.environment === 'production',
    }),
  })
  c.register(Dispatcher, { useFactory: instanceCachingFactory((c) => makeDispatcher(c, w)) })
  c.register(WebhookDispatch, { useFactory: (c) => get(c, Dispatcher) })
  // One for every feature whose writes raise events.
  c.register(FanOut, {
    useFactory: instanceCachingFactory((c) =>
      makeFanOut({
        webhooks: get(c, WebhookSubscriptionRepository),
        deliveries: get(c, WebhookDeliveryStore),
        dispatch: get(c, WebhookDispatch),
        mac: get(c, Mac),
      }),
    ),
  })
  c.register(WebhookEvents, {
    useFactory: instanceCachingFactory((c) =>
      makeWebhookEvents({
        webhooks: get(c, WebhookSubscriptionRepository),
        outbox: get(c, WebhookOutbox),
        dispatch: get(c, WebhookDispatch),
        ids: get(c, IdGenerator),
        clock: get(c, Clock),
        environment: config.environment,
      }),
    ),
  })
}

const makeDispatcher = (c: DependencyContainer, { config, log, metrics }: Wiring): WebhookDispatcher => {
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
      giftCardVault: get(c, GiftCardVault),
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

export const webhookUseCases = (c: DependencyContainer, { config }: Wiring) => {
  const clock = get(c, Clock)
  const ids = get(c, IdGenerator)
  const mac = get(c, Mac)
  const box = get(c, SecretBox)
  const webhooks = get(c, WebhookSubscriptionRepository)
  const deliveries = get(c, WebhookDeliveryStore)
  const audited = get(c, RecordAudited)
  const policy = urlPolicyOf(config)
  return {
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
      dispatch: get(c, WebhookDispatch),
      clock,
      schedule: scheduleOf(config),
      audited,
    }),
  }
}
