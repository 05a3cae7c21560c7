import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Clock,
  DeliveryClaim,
  HandOver,
  OutboxEntry,
  Unavailable,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookDeliveryStore,
  WebhookDispatch,
} from '@orka/domain'
import { SpanKind } from '@opentelemetry/api'
import { runInSpan, tracer } from './spans'

export interface DispatcherLog {
  info(o: object, msg?: string): void
  warn(o: object, msg?: string): void
  error(o: object, msg?: string): void
}

export interface DispatcherConfig {
  /** Who this process is, in the claims it takes. */
  readonly owner: string
  readonly concurrency: number
  readonly perSubscription: number
  readonly leaseMs: number
  readonly pollIntervalMs: number
  /** How often left-behind outbox entries are settled and old deliveries swept. */
  readonly relayEveryMs: number
  readonly sweepEveryMs: number
  readonly retentionMs: number
}

/** What the dispatcher reports for metrics (`Metrics` implements it). */
export interface DispatcherMetrics {
  webhookAttempt(outcome: 'delivered' | 'retrying' | 'failed' | 'cancelled' | 'unrecorded' | 'error'): void
  /** At each look for due deliveries: how many it found (at most one batch) and how long the oldest is overdue. */
  webhooksDue(count: number, oldestAgeS: number): void
}

const ATTEMPT_OUTCOME = { delivered: 'delivered', pending: 'retrying', failed: 'failed', cancelled: 'cancelled' } as const

/** An attempt's outcome tag, for its metric and its span: `unrecorded` when storage could not record it. */
const attemptOutcome = (r: E.Either<Unavailable, WebhookDeliveryStatus>) => (E.isLeft(r) ? 'unrecorded' : ATTEMPT_OUTCOME[r.right])

export interface DispatcherDeps {
  readonly metrics?: DispatcherMetrics
  readonly deliveries: WebhookDeliveryStore
  readonly handOver: HandOver
  readonly attempt: (claim: DeliveryClaim) => TE.TaskEither<Unavailable, WebhookDeliveryStatus>
  readonly relay: () => TE.TaskEither<Unavailable, { readonly handedOver: number; readonly dropped: number }>
  readonly clock: Clock
  readonly log: DispatcherLog
  readonly config: DispatcherConfig
}

const causeOf = (e: Unavailable) => (e.cause instanceof Error ? e.cause.message : String(e.cause))

/**
 * The delivery loop of one instance. It looks for due deliveries when told (an event was just
 * stored here, an attempt ended, a redelivery) and every poll interval (work of other instances,
 * retries coming due), claims each before attempting it, and keeps at most `concurrency`
 * attempts in flight, `perSubscription` of them to any one subscription.
 */
export class WebhookDispatcher implements WebhookDispatch {
  private readonly inFlight = new Map<string, { readonly subscriptionId: string; readonly done: Promise<void> }>()
  private readonly timers: NodeJS.Timeout[] = []
  private running = false
  private scanning = false
  private rescan = false

  constructor(private readonly deps: DispatcherDeps) {}

  publish(entry: OutboxEntry) {
    return async () => {
      const r = await this.deps.handOver(entry)()
      // The entry stays in the outbox: the relay hands it over later.
      if (E.isLeft(r)) this.deps.log.warn({ eventId: entry.event_id, err: causeOf(r.left) }, 'webhook event left for the outbox relay')
      this.wake()
    }
  }

  wake(): void {
    if (this.running) setImmediate(() => void this.scan())
  }

  start(): void {
    if (this.running) return
    this.running = true
    const every = (ms: number, f: () => Promise<void>) => {
      const t = setInterval(() => void f(), ms)
      t.unref()
      this.timers.push(t)
    }
    every(this.deps.config.pollIntervalMs, () => this.scan())
    every(this.deps.config.relayEveryMs, () => this.relay())
    every(this.deps.config.sweepEveryMs, () => this.sweep())
    void this.relay()
    this.wake()
  }

  /** Starts nothing more and waits for the attempts in flight (each bounded by the sender's timeout). */
  async stop(): Promise<void> {
    this.running = false
    for (const t of this.timers.splice(0)) clearInterval(t)
    await Promise.allSettled([...this.inFlight.values()].map((a) => a.done))
  }

  private async scan(): Promise<void> {
    if (!this.running) return
    // One scan at a time; a wake during a scan runs one more after it.
    if (this.scanning) {
      this.rescan = true
      return
    }
    this.scanning = true
    try {
      do {
        this.rescan = false
        await this.fill()
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- wake() and stop() change both flags during the await
      } while (this.rescan && this.running)
    } finally {
      this.scanning = false
    }
  }

  private async fill(): Promise<void> {
    const { config, deliveries, clock, log } = this.deps
    for (;;) {
      const free = config.concurrency - this.inFlight.size
      if (free <= 0 || !this.running) return
      const now = clock.now()
      // Deliveries in flight (here or in another instance) are still pending, so they come back
      // too: read past them, or a busy peer's claims would hide the work behind them.
      const limit = this.inFlight.size + free * 4
      const due = await deliveries.due(now, limit, this.saturated())()
      if (E.isLeft(due)) {
        log.error({ err: causeOf(due.left) }, 'could not read due webhook deliveries')
        return
      }
      if (this.deps.metrics !== undefined) {
        let oldest = now.getTime()
        for (const d of due.right) if (d.next_attempt_at !== null) oldest = Math.min(oldest, new Date(d.next_attempt_at).getTime())
        this.deps.metrics.webhooksDue(due.right.length, (now.getTime() - oldest) / 1000)
      }
      let started = 0
      for (const d of due.right) if (await this.tryStart(d)) started++
      // A full batch may hide more work; a batch where nothing started (all taken) ends the scan.
      if (due.right.length < limit || started === 0) return
    }
  }

  private saturated(): string[] {
    const counts = new Map<string, number>()
    for (const a of this.inFlight.values()) counts.set(a.subscriptionId, (counts.get(a.subscriptionId) ?? 0) + 1)
    return [...counts].filter(([, n]) => n >= this.deps.config.perSubscription).map(([id]) => id)
  }

  private async tryStart(d: WebhookDeliveryRecord): Promise<boolean> {
    const { config, deliveries, clock, log } = this.deps
    if (!this.running || this.inFlight.has(d.id) || this.inFlight.size >= config.concurrency) return false
    if (this.saturated().includes(d.subscription_id)) return false
    const now = clock.now()
    const claim = await deliveries.claim(d, config.owner, now, new Date(now.getTime() + config.leaseMs))()
    if (E.isLeft(claim)) {
      log.error({ err: causeOf(claim.left), deliveryId: d.id }, 'could not claim a webhook delivery')
      return false
    }
    if (O.isNone(claim.right)) return false
    const c = claim.right.value
    // A trace of its own: the request that raised the event may be long answered (a no-op span without tracing).
    const span = tracer().startSpan('webhook attempt', {
      root: true,
      kind: SpanKind.CLIENT,
      attributes: {
        'orka.webhook.delivery_id': d.id,
        'orka.webhook.event_id': d.event_id,
        'orka.webhook.subscription_id': d.subscription_id,
        'orka.webhook.attempt': c.attempt,
      },
    })
    const done = runInSpan(span, () => this.deps.attempt(c)(), attemptOutcome)
      .then((r) => {
        this.deps.metrics?.webhookAttempt(attemptOutcome(r))
        if (E.isLeft(r))
          log.error(
            { err: causeOf(r.left), deliveryId: d.id },
            'webhook attempt could not be recorded; its lease will run out and it will be retried',
          )
        else
          log.info(
            { deliveryId: d.id, eventId: d.event_id, subscriptionId: d.subscription_id, attempt: c.attempt, status: r.right },
            'webhook attempt',
          )
      })
      .catch((e: unknown) => {
        this.deps.metrics?.webhookAttempt('error')
        log.error({ err: e instanceof Error ? e.message : String(e), deliveryId: d.id }, 'webhook attempt failed unexpectedly')
      })
      .finally(() => {
        this.inFlight.delete(d.id)
        this.wake()
      })
    this.inFlight.set(d.id, { subscriptionId: d.subscription_id, done })
    return true
  }

  private async relay(): Promise<void> {
    if (!this.running) return
    const r = await this.deps.relay()()
    if (E.isLeft(r)) this.deps.log.error({ err: causeOf(r.left) }, 'webhook outbox relay failed')
    else if (r.right.handedOver + r.right.dropped > 0) {
      this.deps.log.info(r.right, 'webhook outbox relay settled left-behind events')
      this.wake()
    }
  }

  private async sweep(): Promise<void> {
    if (!this.running) return
    const r = await this.deps.deliveries.sweep(new Date(this.deps.clock.now().getTime() - this.deps.config.retentionMs))()
    if (E.isLeft(r)) this.deps.log.error({ err: causeOf(r.left) }, 'webhook delivery sweep failed')
  }
}
