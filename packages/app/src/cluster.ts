import cluster, { Worker } from 'node:cluster'
import pino from 'pino'
import { Config } from './config'
import { readWorkerMessage, WORKER_ENV } from './cluster-worker'
import { prepareStorage } from './prepare'
import { AggregatorRegistry } from 'prom-client'
import { listenForMetrics } from './metrics'

/** A worker that dies is restarted after this, doubling for each death in a row: a crash loop does not spin. */
const RESTART_BASE_MS = 500
const RESTART_MAX_MS = 30_000
/** A worker that served this long before dying starts a new streak (its next restart is quick again). */
const STABLE_MS = 60_000

export const restartDelayMs = (streak: number): number => Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** streak)

/** One of the n places a worker runs in; its replacement keeps the place and its streak. */
interface Slot {
  readonly index: number
  forks: number
  streak: number
  listenedAt: number | undefined
  failure: string | undefined
}

interface Outcome {
  /** Why start-up failed: a worker died before listening. */
  readonly startFailure: string | undefined
  /** Workers that did not stop cleanly (killed after the grace period, or a failed close). */
  readonly unclean: number
}

/**
 * The primary: forks the workers and keeps n of them running. Start-up fails as a whole when a
 * worker dies before it listens (its reason reported); after that a dead worker is restarted.
 */
class Primary {
  private phase: 'starting' | 'serving' | 'stopping' = 'starting'
  private readonly live = new Map<Worker, Slot>()
  private readonly restarts = new Set<NodeJS.Timeout>()
  private startFailure: string | undefined
  private unclean = 0
  private settle: (o: Outcome) => void = () => undefined
  readonly done = new Promise<Outcome>((resolve) => (this.settle = resolve))

  constructor(
    private readonly n: number,
    private readonly stopGraceMs: number,
    private readonly log: pino.Logger,
  ) {}

  start(): void {
    this.log.info({ workers: this.n }, `starting ${this.n} workers`)
    for (let i = 1; i <= this.n; i++) this.fork({ index: i, forks: 0, streak: 0, listenedAt: undefined, failure: undefined })
  }

  /** Forwards SIGTERM (whatever the signal) to every worker: each finishes its requests in flight, then exits. */
  stop(why: string): void {
    if (this.phase === 'stopping') return
    this.phase = 'stopping'
    for (const t of this.restarts) clearTimeout(t)
    this.restarts.clear()
    this.log.info({ reason: why, workers: this.live.size }, `${why}: stopping ${this.live.size} workers`)
    for (const w of this.live.keys()) w.process.kill('SIGTERM')
    setTimeout(() => {
      for (const w of this.live.keys()) {
        this.log.error({ worker: w.id, workerPid: w.process.pid }, 'worker still running after the shutdown grace period: killed')
        w.process.kill('SIGKILL')
      }
    }, this.stopGraceMs).unref()
    this.settleIfStopped()
  }

  private fork(slot: Slot): void {
    slot.forks++
    slot.listenedAt = undefined
    slot.failure = undefined
    const w = cluster.fork({ [WORKER_ENV]: '1' })
    this.live.set(w, slot)
    w.on('message', (u: unknown) => {
      this.onMessage(w, slot, u)
    })
    w.on('exit', (code: number | null, signal: string | null) => {
      this.onExit(w, slot, code, signal)
    })
  }

  private onMessage(w: Worker, slot: Slot, u: unknown): void {
    const m = readWorkerMessage(u)
    if (m === undefined) return
    if (m.orka === 'start-failed') {
      slot.failure = m.reason
      return
    }
    slot.listenedAt = Date.now()
    this.log.info({ worker: w.id, workerPid: w.process.pid, slot: slot.index, restarted: slot.forks > 1 }, 'worker listening')
    const listening = [...this.live.values()].filter((s) => s.listenedAt !== undefined).length
    if (this.phase === 'starting' && listening === this.n) {
      this.phase = 'serving'
      this.log.info({ url: m.url, workers: this.n }, `Orka listening on ${m.url} with ${this.n} workers`)
    }
  }

  private onExit(w: Worker, slot: Slot, code: number | null, signal: string | null): void {
    this.live.delete(w)
    const how = { worker: w.id, workerPid: w.process.pid, slot: slot.index, code, signal }
    if (this.phase === 'stopping') {
      // A worker still starting has no handler yet: SIGTERM ends it, with nothing in flight.
      if (code !== 0 && signal !== 'SIGTERM') {
        this.unclean++
        this.log.error({ ...how, reason: slot.failure }, 'worker did not stop cleanly')
      }
      this.settleIfStopped()
      return
    }
    if (this.phase === 'starting' && slot.listenedAt === undefined) {
      this.startFailure = slot.failure ?? `worker ${slot.index} exited before listening (${signal ?? `exit code ${String(code)}`})`
      this.stop('a worker failed to start')
      return
    }
    if (slot.listenedAt !== undefined && Date.now() - slot.listenedAt >= STABLE_MS) slot.streak = 0
    const delay = restartDelayMs(slot.streak)
    slot.streak++
    this.log.warn({ ...how, reason: slot.failure, restartInMs: delay }, `worker ${slot.index} died; restarting it in ${delay} ms`)
    const t = setTimeout(() => {
      this.restarts.delete(t)
      this.fork(slot)
    }, delay)
    this.restarts.add(t)
  }

  private settleIfStopped(): void {
    if (this.phase === 'stopping' && this.live.size === 0) this.settle({ startFailure: this.startFailure, unclean: this.unclean })
  }
}

/**
 * `WORKERS` > 1 (MongoDB only: config refuses the embedded store): prepares storage once, then
 * serves with that many workers sharing the port. Resolves never: it exits when stopped, and
 * throws (one line) when start-up fails.
 */
export const runPrimary = async (config: Config, log: pino.Logger): Promise<void> => {
  await prepareStorage(config, log)
  // One scrape sees the whole instance: the aggregate of every worker's metrics (the workers open no listener).
  if (config.metricsPort !== 0) {
    const metrics = await listenForMetrics(new AggregatorRegistry(), config.metricsHost, config.metricsPort, true)
    log.info({ metricsUrl: metrics.url }, `metrics of every worker on ${metrics.url}`)
  }
  // A worker's own stop: connections (SHUTDOWN_TIMEOUT_MS), attempts in flight and their record, storage.
  const grace = config.shutdownTimeoutMs + config.webhookTimeoutMs + config.storageTimeoutMs + 5000
  const primary = new Primary(config.workers, grace, log)
  process.once('SIGTERM', () => {
    primary.stop('SIGTERM')
  })
  process.once('SIGINT', () => {
    primary.stop('SIGINT')
  })
  primary.start()
  const outcome = await primary.done
  if (outcome.startFailure !== undefined) throw new Error(outcome.startFailure)
  if (outcome.unclean > 0) {
    log.error({ unclean: outcome.unclean }, 'could not stop cleanly')
    process.exit(1)
  }
  log.info('stopped')
  process.exit(0)
}
