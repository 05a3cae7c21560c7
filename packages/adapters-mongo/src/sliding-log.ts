import { Admission } from '@orka/domain'

/** A counted admission of one key: its number in the key's log, and when it was made (ms). */
export interface Entry {
  readonly n: number
  readonly atMs: number
}

/** One admission request, at its own clock reading. */
export interface Ask {
  readonly nowMs: number
}

export interface Decided {
  /** One per ask, in order. */
  readonly admissions: readonly Admission[]
  /** The new entries to write, in number order: the admitted asks', at their own time. */
  readonly grants: readonly (Entry & { readonly ask: number })[]
}

/**
 * Decides asks one after the other as if each had read the log itself: ask i is admitted
 * exactly when fewer than `limit` of the last `limit` entries (the read ones, then those
 * admitted before it here) lie in its window (nowMs - windowMs, nowMs]. Entry n is thus only
 * ever granted after seeing entries n-limit..n-1, which keeps every span of `windowMs` at
 * `limit` admissions or fewer, however many asks a read serves.
 *
 * `log` holds the key's newest entries (at least its last `limit`), oldest first.
 */
export const decide = (log: readonly Entry[], asks: readonly Ask[], limit: number, windowMs: number): Decided => {
  const entries = log.slice(-limit)
  let next = (log.at(-1)?.n ?? -1) + 1
  const admissions: Admission[] = []
  const grants: (Entry & { ask: number })[] = []
  asks.forEach(({ nowMs }, i) => {
    const counted = entries.slice(-limit).filter((e) => e.atMs > nowMs - windowMs)
    const admitted = counted.length < limit
    if (admitted) {
      const entry = { n: next++, atMs: nowMs }
      entries.push(entry)
      counted.push(entry)
      grants.push({ ...entry, ask: i })
    }
    const oldest = Math.min(...counted.map((e) => e.atMs))
    admissions.push({
      admitted,
      remaining: admitted ? limit - counted.length : 0,
      resetMs: counted.length === 0 ? 0 : oldest + windowMs - nowMs,
    })
  })
  return { admissions, grants }
}

/**
 * Until when (ms) the key stays full for every ask, whatever it reads: its last `limit` entries
 * all stay in the window until the oldest of them leaves it, entries are never removed before
 * they leave their window, and no process admits while they are there. Null: not full.
 */
export const fullUntil = (log: readonly Entry[], limit: number, windowMs: number): number | null => {
  const last = log.slice(-limit)
  return last.length < limit ? null : Math.min(...last.map((e) => e.atMs)) + windowMs
}
