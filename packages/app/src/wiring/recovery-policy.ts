/** The recovery policy: when a pending transaction is taken over, and how often every instance looks. */
import { Config } from '../config'

/** How often every instance looks for transactions left pending. */
export const RECOVERY_EVERY_MS = 30_000

/**
 * A transaction is taken over once nothing was written for it this long: longer than a live
 * flow ever goes without writing (a call and the void of its unknown outcome, each bounded by
 * CONNECTOR_TIMEOUT_MS, and the writes around them, each bounded by STORAGE_TIMEOUT_MS).
 */
export const recoveryOf = (config: Config) => ({
  staleAfterMs: Math.max(60_000, 3 * config.connectorTimeoutMs + 2 * config.storageTimeoutMs),
  batch: 50,
})
