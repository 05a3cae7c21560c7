import { once } from 'node:events'
import { createServer, Server } from 'node:http'
import { AddressInfo } from 'node:net'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import { CardConnectors, GiftCardConnectors, StoragePorts, TRANSACTION_STATUSES, TransactionStore } from '@orka/domain'
import type { RequestDone } from '@orka/adapters-http'
import type { MongoCommandDone } from '@orka/adapters-mongo'
import { LeanHistogram, LeanSeries } from './lean-histogram'

/**
 * Prometheus metrics of one process (prom-client). Every label value comes from a bounded set
 * the code defines: route templates, methods, statuses, connector definition ids, port and
 * command names, outcome tags. Never an id, a raw path, card data or a merchant's string.
 */

/** Seconds: from a fast in-memory call to the longest connector or webhook timeout. */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** Outcome tags connectors answer with; anything else (a connector answering garbage) is `other`. */
const CONNECTOR_OUTCOMES: Readonly<Record<string, string>> = {
  Authorized: 'authorized',
  Declined: 'declined',
  Failed: 'failed',
  Succeeded: 'succeeded',
  Received: 'received',
  Redeemed: 'redeemed',
  Balance: 'balance',
  Refused: 'refused',
  ServiceFailed: 'service_failed',
  ServiceTimeout: 'timeout',
  CardDeclined: 'card_declined',
}

const LINT_FAILING_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']

const FINAL_STATUSES: ReadonlySet<string> = new Set(TRANSACTION_STATUSES.filter((s) => s !== 'processing'))

export class Metrics {
  readonly registry = new Registry()
  private readonly httpDuration = new LeanHistogram(
    'http_server_request_duration_seconds',
    'Duration of HTTP server requests, by method, route template and status sent',
    ['http_request_method', 'http_route', 'http_response_status_code'],
    DURATION_BUCKETS,
    this.registry,
  )
  private readonly rateLimitRefusals = new Counter({
    name: 'orka_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by limit',
    labelNames: ['limit'] as const,
    registers: [this.registry],
  })
  private readonly replays = new Counter({
    name: 'orka_idempotent_replays_total',
    help: 'Responses replayed from an idempotency key (Idempotent-Replayed: true)',
    registers: [this.registry],
  })
  private readonly conflicts = new Counter({
    name: 'orka_idempotency_conflicts_total',
    help: 'Requests refused for their idempotency key: in_flight (425) or key_reused (400, another body)',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  })
  private readonly connectorDuration = new Histogram({
    name: 'orka_connector_call_duration_seconds',
    help: 'Calls to card and gift card services, by connector (definition id), operation and outcome',
    labelNames: ['connector', 'operation', 'outcome'] as const,
    buckets: DURATION_BUCKETS,
    registers: [this.registry],
  })
  private readonly webhookAttempts = new Counter({
    name: 'orka_webhook_attempts_total',
    help: 'Webhook delivery attempts, by outcome: delivered, retrying (failed, a retry is scheduled), failed (no retry left), cancelled, unrecorded (storage could not record it)',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })
  private readonly webhookDue = new Gauge({
    name: 'orka_webhook_deliveries_due',
    help: "Webhook deliveries due (pending, retry time reached) at this instance's last look, at most one batch",
    registers: [this.registry],
    aggregator: 'max',
  })
  private readonly webhookOldestDue = new Gauge({
    name: 'orka_webhook_oldest_due_age_seconds',
    help: "How long the oldest due webhook delivery has been waiting past its attempt time, at this instance's last look (0: none due)",
    registers: [this.registry],
    aggregator: 'max',
  })
  private readonly storageDuration = new LeanHistogram(
    'orka_storage_operation_duration_seconds',
    'Storage operations, by store (mongodb: driver commands; memory: port methods) and command',
    ['store', 'command'],
    DURATION_BUCKETS,
    this.registry,
  )
  private readonly transactions = new Counter({
    name: 'orka_transactions_total',
    help: 'Transactions reaching a status other than processing, by that status',
    labelNames: ['status'] as const,
    registers: [this.registry],
  })

  constructor() {
    collectDefaultMetrics({ register: this.registry })
    // Gauges named like counters (promtool's lint refuses them); `nodejs_active_handles` and
    // `nodejs_active_requests` (by type) and `nodejs_active_resources` say the same.
    for (const name of LINT_FAILING_DEFAULTS) this.registry.removeSingleMetric(name)
  }

  /** The HTTP layer's observer (`onRequestDone`). */
  readonly requestDone = (r: RequestDone): void => {
    this.httpDuration
      .labels({ http_request_method: r.method, http_route: r.route, http_response_status_code: String(r.status) })
      .observe(r.seconds)
    if (r.rateLimited !== undefined) this.rateLimitRefusals.inc({ limit: r.rateLimited })
    if (r.replayed) this.replays.inc()
    if (r.idempotencyConflict !== undefined) this.conflicts.inc({ reason: r.idempotencyConflict })
  }

  connectorCall(connector: string, operation: string, outcome: string, seconds: number): void {
    this.connectorDuration.observe({ connector, operation, outcome }, seconds)
  }

  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed' | 'cancelled' | 'unrecorded' | 'error'): void {
    this.webhookAttempts.inc({ outcome })
  }

  webhooksDue(count: number, oldestAgeS: number): void {
    this.webhookDue.set(count)
    this.webhookOldestDue.set(Math.max(0, oldestAgeS))
  }

  readonly mongoCommand = (c: MongoCommandDone): void => {
    this.storageDuration.labels({ store: 'mongodb', command: c.commandName }).observe(c.durationMs / 1000)
  }

  /** The series of one embedded-store method, looked up once per method. */
  storageCalls(command: string): LeanSeries {
    return this.storageDuration.labels({ store: 'memory', command })
  }

  transactionStatus(status: string): void {
    if (FINAL_STATUSES.has(status)) this.transactions.inc({ status })
  }
}

const secondsSince = (start: bigint) => Number(process.hrtime.bigint() - start) / 1e9

/** The tag of a connector's answer, from a bounded set (`other` for anything else). */
export const outcomeOf = (r: E.Either<{ readonly _tag: string }, unknown>): string => {
  const tag = E.isLeft(r) ? r.left._tag : typeof r.right === 'object' && r.right !== null && '_tag' in r.right ? r.right._tag : 'ok'
  return typeof tag === 'string' ? (CONNECTOR_OUTCOMES[tag] ?? (tag === 'ok' ? 'ok' : 'other')) : 'other'
}

type TaskEitherFn = (...args: unknown[]) => () => Promise<E.Either<{ readonly _tag: string }, unknown>>

/** What a timed call tells: its method's observer gets the outcome (undefined: it threw) and the seconds. */
type Observer = (r: E.Either<{ readonly _tag: string }, unknown> | undefined, seconds: number) => void

/** The names of the methods of `o`, its class's and their ancestors' included. */
const methodNames = (o: object): string[] => {
  const names = new Set<string>()
  for (let p: object | null = o; p !== null && p !== Object.prototype; p = Object.getPrototypeOf(p) as object | null)
    for (const name of Object.getOwnPropertyNames(p))
      if (name !== 'constructor' && typeof (o as Record<string, unknown>)[name] === 'function') names.add(name)
  return [...names]
}

/**
 * `target` with every method that returns a task timed by the observer `observerOf(method)`
 * gives: an object whose prototype is `target` (its other properties read through), each
 * wrapper made once (a Proxy's trap on every call cost more than the timing itself).
 */
const timed = <T extends object>(target: T, observerOf: (method: string) => Observer): T => {
  const timedObject = Object.create(target) as Record<string, unknown>
  for (const method of methodNames(target)) {
    const fn = (target as Record<string, unknown>)[method] as TaskEitherFn
    // Made at the first call: a method never called has no series.
    let observer: Observer | undefined
    const observe: Observer = (r, seconds) => {
      observer ??= observerOf(method)
      observer(r, seconds)
    }
    timedObject[method] = (...args: unknown[]) => {
      const task = fn.apply(target, args)
      if (typeof task !== 'function') return task
      return () => {
        const start = process.hrtime.bigint()
        return task().then(
          (r) => {
            observe(r, secondsSince(start))
            return r
          },
          (e: unknown) => {
            observe(undefined, secondsSince(start))
            throw e
          },
        )
      }
    }
  }
  return timedObject as T
}

/** The card or gift card services' connectors, each call timed by definition id, operation and outcome. */
export const instrumentConnectors = <C extends CardConnectors | GiftCardConnectors>(connectors: C, metrics: Metrics): C =>
  ({
    forDefinition: (id: string) =>
      O.map((c: object) =>
        timed(c, (op) => (r, s) => {
          metrics.connectorCall(id, op, r === undefined ? 'error' : outcomeOf(r), s)
        }),
      )(connectors.forDefinition(id)),
  }) as C

/** The embedded store's ports, each call timed as `<port>.<method>` (MongoDB has the driver's command monitoring instead). */
export const timedStoragePorts = (ports: StoragePorts, metrics: Metrics): StoragePorts =>
  Object.fromEntries(
    Object.entries(ports).map(([name, port]) => [
      name,
      timed(port as object, (m) => {
        const series = metrics.storageCalls(`${name}.${m}`)
        return (_r, s) => {
          series.observe(s)
        }
      }),
    ]),
  ) as unknown as StoragePorts

/** Counts each transaction version written with a status change to a status other than `processing`. */
export const countingTransactions = (store: TransactionStore, metrics: Metrics): TransactionStore =>
  new Proxy(store, {
    get(t, prop, receiver) {
      if (prop !== 'put') {
        const v: unknown = Reflect.get(t, prop, receiver)
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v
      }
      const put: TransactionStore['put'] = (record, written) => () =>
        t
          .put(record, written)()
          .then((r) => {
            if (E.isRight(r) && r.right && record.events.some((e) => e.name === 'transaction-updated-status'))
              metrics.transactionStatus(record.status)
            return r
          })
      return put
    },
  })

export interface MetricsListener {
  readonly url: string
  close(): Promise<void>
}

/**
 * The metrics listener: `GET /metrics` in the Prometheus text format, everything else 404.
 * A port that is taken fails with one line naming `METRICS_PORT`.
 */
export const listenForMetrics = async (
  registry: Registry | AggregatorRegistry<'text/plain; version=0.0.4; charset=utf-8'>,
  host: string,
  port: number,
  cluster = false,
): Promise<MetricsListener> => {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0]
    if (path !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n')
      return
    }
    const text = cluster
      ? (registry as AggregatorRegistry<'text/plain; version=0.0.4; charset=utf-8'>).clusterMetrics()
      : registry.metrics()
    text.then(
      (body) => {
        res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : body)
      },
      (e: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end(`metrics unavailable: ${e instanceof Error ? e.message : String(e)}\n`)
      },
    )
  })
  try {
    server.listen(port, host)
    // Rejects with the listen error (EADDRINUSE, …).
    await once(server, 'listening')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    throw new Error(
      code === 'EADDRINUSE'
        ? `METRICS_PORT: ${host}:${port} is in use (another instance? give each its own METRICS_PORT, or 0 for none)`
        : `METRICS_PORT: cannot listen on ${host}:${port}: ${e instanceof Error ? e.message : String(e)}`,
      { cause: e },
    )
  }
  const a = server.address() as AddressInfo
  const shown = a.family === 'IPv6' ? `[${a.address}]` : a.address
  return {
    url: `http://${shown}:${a.port}/metrics`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      })
    },
  }
}
