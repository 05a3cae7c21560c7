/** What every wiring module works with: the typed `get`, and what the process was started with. */
import { DependencyContainer } from 'tsyringe'
import { IdempotencyConfig, Token } from '@orka/domain'
import { Config } from '../config'
import { Metrics } from '../metrics'
import { DispatcherLog } from '../webhook-dispatcher'

/** Resolves a port by its typed token. */
export const get = <T>(c: DependencyContainer, t: Token<T>): T => c.resolve<T>(t)

export interface Wiring {
  readonly config: Config
  /** The background jobs' log. */
  readonly log: DispatcherLog
  /** Set: storage, connectors, webhook attempts and transactions are measured (METRICS_PORT not 0). */
  readonly metrics: Metrics | undefined
}

/** Every write that takes an idempotency key replays and leases alike; a retry is invited after a second. */
export const idempotencyOf = (config: Config): IdempotencyConfig => ({
  replayS: config.idempotencyReplayS,
  leaseS: config.idempotencyLeaseS,
  retryAfterS: 1,
})
