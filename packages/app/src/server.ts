import 'reflect-metadata'
import { once } from 'node:events'
import { AddressInfo } from 'node:net'
import { createServer, Server } from 'node:http'
import { DependencyContainer } from 'tsyringe'
import pino from 'pino'
import {
  ApiKeyPairRepository,
  AuditLog,
  BuyerRepository,
  Clock,
  GiftCardServiceRepository,
  Mac,
  MerchantAccountRepository,
  RoleRepository,
  SecretBox,
  WebhookSubscriptionRepository,
} from '@orka/domain'
import { clientErrorHandler, createHttpApp } from '@orka/adapters-http'
import { Config } from './config'
import { demoCheckout } from './demo-checkout'
import { backgroundJobs, buildContainer, get, KeyUsageRecorder, Overrides, UseCases } from './container'
import { createLogger, logFormatOf } from './logger'
import { announceStart } from './prepare'
import { DEFAULT_MERCHANT_ACCOUNT_ID, provisionAtStart, ProvisioningPorts } from './provision'
import { resolveRootKey } from './root-key'
import { openStorage, Storage } from './storage'
import { listenForMetrics, Metrics, MetricsListener } from './metrics'
import { AggregatorRegistry } from 'prom-client'
import { traceConnectors, tracer } from './spans'
import { tracingOn } from './tracing'
import { FreshPaymentServices } from './wiring/storage'

export interface RunningServer {
  readonly url: string
  readonly container: DependencyContainer
  /** The metrics listener's `/metrics` URL; undefined when off (`METRICS_PORT=0`) or served by a cluster's primary. */
  readonly metricsUrl: string | undefined
  close(): Promise<void>
}

export interface StartOptions extends Overrides {
  readonly logger?: pino.Logger
  /** Last word on the wiring, for tests that need a failing or instrumented adapter. */
  readonly configure?: (c: DependencyContainer) => void
  /** A cluster worker: the primary made the indexes and provisioned storage before forking (`prepareStorage`). */
  readonly prepared?: boolean
  /**
   * A cluster worker's metrics go to the primary, which serves the aggregate of every worker
   * (prom-client's cluster aggregation): the worker opens no metrics listener.
   */
  readonly metricsToPrimary?: boolean
}

const provisioningPorts = (c: DependencyContainer): ProvisioningPorts => ({
  merchantAccounts: get(c, MerchantAccountRepository),
  keys: get(c, ApiKeyPairRepository),
  roles: get(c, RoleRepository),
  giftCardServices: get(c, GiftCardServiceRepository),
  cardServices: get(c, FreshPaymentServices),
  buyers: get(c, BuyerRepository),
  webhooks: get(c, WebhookSubscriptionRepository),
  audit: get(c, AuditLog),
  box: get(c, SecretBox),
  mac: get(c, Mac),
})

export const startServer = async (config: Config, o: StartOptions = {}): Promise<RunningServer> => {
  const log = o.logger ?? createLogger(config.logLevel, undefined, logFormatOf(config.logFormat))
  const metrics = config.metricsPort === 0 ? undefined : new Metrics()
  if (metrics !== undefined && o.metricsToPrimary === true) {
    // The constructor makes this process answer the primary's requests for its metrics.
    new AggregatorRegistry()
    AggregatorRegistry.setRegistries([metrics.registry])
  }
  const storage = await openStorage(config, { indexes: o.prepared !== true, ...(metrics ? { onCommand: metrics.mongoCommand } : {}) })
  try {
    const rootKey = resolveRootKey(config, storage.persistent)
    const c = buildContainer(config, storage, rootKey.key, log, { ...o, metrics })
    if (tracingOn()) traceConnectors(c)
    o.configure?.(c)
    if (o.prepared !== true) {
      announceStart(config, storage.description, rootKey.source, log)
      await provisionAtStart(provisioningPorts(c), get(c, Clock).now(), config, log)
    }
    return await listen(c, config, log, storage, metrics, o.metricsToPrimary === true)
  } catch (e) {
    await storage.close()
    throw e
  }
}

const listen = async (
  c: DependencyContainer,
  config: Config,
  log: pino.Logger,
  storage: Storage,
  metrics: Metrics | undefined,
  metricsToPrimary: boolean,
): Promise<RunningServer> => {
  const demo = demoCheckout(config, get(c, UseCases), get(c, Clock))
  const hasDemo = demo !== undefined
  const app = createHttpApp({
    ...(metrics === undefined ? {} : { onRequestDone: metrics.requestDone }),
    ...(tracingOn() ? { tracer: tracer() } : {}),
    keys: get(c, ApiKeyPairRepository),
    onKeyUsed: get(c, KeyUsageRecorder).used,
    clock: get(c, Clock),
    mac: get(c, Mac),
    log,
    ready: () => storage.ready(),
    config: {
      merchantAccountHeader: config.merchantAccountHeader.toLowerCase(),
      defaultMerchantAccountId: DEFAULT_MERCHANT_ACCOUNT_ID,
      maxBodyBytes: config.maxBodyBytes,
      tokenCacheSize: config.tokenCacheSize,
      maxTokenLifetimeS: config.maxTokenLifetimeS,
      webhookHeaderPrefix: config.webhookHeaderPrefix,
      rateLimitHoldMs: config.rateLimitHoldMs,
      corsAllowedOrigins: config.corsAllowedOrigins,
    },
    useCases: get(c, UseCases),
    demoCheckout: demo,
  })
  // Background jobs: started once listening, stopped in this order before storage closes.
  const jobs = backgroundJobs(c)
  const handle = app.callback()
  // Node checks the two request timeouts on this interval (30 s by default): often enough here
  // that a client cut at HEADERS_TIMEOUT_MS is cut within a second of it.
  const server: Server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      keepAliveTimeout: config.keepAliveTimeoutMs,
      connectionsCheckingInterval: 1000,
      // Node would answer a request without `Host` with a bare 400 outside the contract; no route depends on it.
      requireHostHeader: false,
    },
    // Koa answers and reports its own errors; the promise only says when it is done.
    (req, res) => {
      void handle(req, res)
    },
  )
  server.maxConnections = config.maxConnections
  // Requests the HTTP parser refuses, and the two timeouts, get the spec's envelope too.
  server.on('clientError', clientErrorHandler(log))
  // Before the API: a taken metrics port stops start-up before anything is served.
  const metricsListener: MetricsListener | undefined =
    metrics === undefined || metricsToPrimary ? undefined : await listenForMetrics(metrics.registry, config.metricsHost, config.metricsPort)
  try {
    server.listen(config.port, config.host)
    await once(server, 'listening')
  } catch (e) {
    await metricsListener?.close()
    throw e
  }
  if (metricsListener !== undefined) log.info({ metricsUrl: metricsListener.url }, `metrics on ${metricsListener.url}`)
  const { port } = server.address() as AddressInfo
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host
  const url = `http://${host}:${port}`
  log.info({ url }, `Orka listening on ${url}`)
  // Where a newcomer goes next; the dev key's line (provisioning) says how to mint a token.
  const demoPage = hasDemo ? { demo: `${url}/demo/checkout` } : {}
  log.info({ docs: `${url}/docs`, ...demoPage }, `API reference: ${url}/docs${hasDemo ? `; demo checkout: ${url}/demo/checkout` : ''}`)
  for (const job of jobs) job.start()
  return {
    url,
    container: c,
    metricsUrl: metricsListener?.url,
    close: async () => {
      // Stop accepting; requests in flight finish (keep-alive connections close after their
      // response); whatever still runs after the timeout is cut. Storage closes last.
      server.close()
      server.closeIdleConnections()
      const cut = setTimeout(() => {
        server.closeAllConnections()
      }, config.shutdownTimeoutMs)
      await once(server, 'close')
      clearTimeout(cut)
      // Attempts in flight end (each within WEBHOOK_TIMEOUT_MS) and are recorded before storage closes.
      for (const job of jobs) await job.stop()
      await storage.close()
      await metricsListener?.close()
    },
  }
}
