import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Admission, RateLimitStore, Unavailable } from '@orka/domain'
import { atomically } from './memory-support'

interface Log {
  readonly windowMs: number
  /** Admission times (ms), ascending; never more than the limit. */
  readonly times: number[]
}

export interface MemoryRateLimitStoreOptions {
  /** Keys are swept every this many admissions, so idle keys do not pile up. */
  readonly sweepEvery?: number
  /** ... and at least this often (ms of the clock admissions are made at), so a burst of one-off keys is let go soon after its window. */
  readonly sweepEveryMs?: number
}

/** An exact sliding log per key: each admission is remembered until it is `windowMs` old. */
export class MemoryRateLimitStore implements RateLimitStore {
  private readonly logs = new Map<string, Log>()
  private readonly sweepEvery: number
  private readonly sweepEveryMs: number
  private admits = 0
  private sweptAt = -Infinity

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.sweepEvery = options.sweepEvery ?? 1000
    this.sweepEveryMs = options.sweepEveryMs ?? 10_000
  }

  /** Keys with at least one admission still in their window (or not yet swept). */
  get size(): number {
    return this.logs.size
  }

  admit(key: string, limit: number, windowMs: number, now: Date): TE.TaskEither<Unavailable, Admission> {
    return atomically(() => {
      const nowMs = now.getTime()
      if (++this.admits % this.sweepEvery === 0 || nowMs - this.sweptAt >= this.sweepEveryMs) this.sweep(nowMs)
      const times = (this.logs.get(key)?.times ?? []).filter((t) => t > nowMs - windowMs)
      const admitted = times.length < limit
      if (admitted) {
        times.push(nowMs)
        times.sort((a, b) => a - b)
      }
      if (times.length === 0) this.logs.delete(key)
      else this.logs.set(key, { windowMs, times })
      const oldest = times[0]
      return E.right({
        admitted,
        remaining: admitted ? limit - times.length : 0,
        resetMs: oldest === undefined ? 0 : oldest + windowMs - nowMs,
      })
    })
  }

  private sweep(nowMs: number) {
    this.sweptAt = nowMs
    for (const [key, log] of this.logs) {
      const times = log.times.filter((t) => t > nowMs - log.windowMs)
      if (times.length === 0) this.logs.delete(key)
      else this.logs.set(key, { windowMs: log.windowMs, times })
    }
  }
}
