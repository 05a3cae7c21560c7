import * as TE from 'fp-ts/TaskEither'
import { MongoBulkWriteError } from 'mongodb'
import { Admission, RateLimitStore, Unavailable, unavailable } from '@orka/domain'
import { BoundedCollection, storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS, EXPIRY_GRACE_MS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { storageCalls, StorageCalls } from './storage-calls'
import { escapeText } from './text-escaping'
import { admissionId, fromRateLimitAdmissionDocument, RateLimitAdmissionDocument } from './rate-limit-admission.document'
import { decide, fullUntil } from './sliding-log'

export interface MongoRateLimitStoreOptions {
  /** Admissions out of their window are swept every this many calls of this instance (default 1000). */
  readonly sweepEvery?: number
  /** How long after leaving its window an admission may be swept (default `EXPIRY_GRACE_MS`). */
  readonly sweepGraceMs?: number
  /** Races an ask may lose to other instances before it is refused for a second (default 5). */
  readonly maxLostRaces?: number
}

/** An admission request waiting for its key's next round. */
interface Waiter {
  readonly limit: number
  readonly windowMs: number
  readonly nowMs: number
  /** Aborts when the request's bound passes: it was answered, and is asked about no more. */
  readonly signal: AbortSignal
  lost: number
  readonly settle: (a: Admission) => void
  readonly fail: (e: unknown) => void
}

/** What this instance knows of a key: who waits, whether a round runs, and until when it is full. */
interface KeyState {
  waiters: Waiter[]
  draining: boolean
  full: { readonly limit: number; readonly windowMs: number; readonly untilMs: number } | null
}

/** Refused without asking: a slot frees in about a second (an ask that kept losing races). */
const CONTENDED: Admission = { admitted: false, remaining: 0, resetMs: 1000 }

/**
 * An exact sliding log built on inserts only, since neither `$inc` nor conditional updates are
 * atomic on FerretDB. A key's admissions are numbered 0, 1, 2, ...; the number is part of
 * `_id`, so each is taken by exactly one insert across every process (`decide` says why that
 * keeps every window at the limit).
 *
 * The cost of an ask is bounded, however many arrive at once:
 * - **Full, known here.** Once a read shows the key full until T, every ask before T is refused
 *   with no storage call: admissions only leave the log by leaving their window.
 * - **Coalesced.** One round at a time per key in this instance: the asks that arrived while a
 *   round ran share the next one, one read of the last `limit` admissions and one ordered
 *   `insertMany` of those it admits. So a flood of N asks costs this instance a few rounds,
 *   not N reads and inserts (let alone N² with retries).
 * - **Races only between instances.** An insert that hits a number another instance took first
 *   admits what it inserted before it; the asks from there on go round again, at most
 *   `maxLostRaces` times each, then are refused for a second (never admitted over the limit,
 *   never a 5xx). Each lost race means another instance admitted, which the limit bounds.
 * - **Bounded.** An ask whose bound passes leaves the queue (the request was answered with a
 *   500); a round runs within a bound of its own.
 */
export class MongoRateLimitStore implements RateLimitStore {
  readonly #col: StoredCollection<RateLimitAdmissionDocument>
  readonly #calls: StorageCalls
  readonly #sweepEvery: number
  readonly #sweepGraceMs: number
  readonly #maxLostRaces: number
  readonly #keys = new Map<string, KeyState>()
  #asks = 0
  #sweeping = false

  constructor(store: MongoStore, options: MongoRateLimitStoreOptions = {}) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.rateLimitAdmissions)
    this.#sweepEvery = Math.max(1, options.sweepEvery ?? 1000)
    this.#sweepGraceMs = options.sweepGraceMs ?? EXPIRY_GRACE_MS
    this.#maxLostRaces = options.maxLostRaces ?? 5
  }

  admit(key: string, limit: number, windowMs: number, now: Date): TE.TaskEither<Unavailable, Admission> {
    return TE.tryCatch(() => this.#calls.run((signal) => this.#ask(key, limit, windowMs, now.getTime(), signal)), unavailable)
  }

  #ask(key: string, limit: number, windowMs: number, nowMs: number, signal: AbortSignal): Promise<Admission> {
    if (++this.#asks % this.#sweepEvery === 0) this.#housekeep(nowMs)
    if (limit < 1) return Promise.resolve({ admitted: false, remaining: 0, resetMs: 0 })
    let state = this.#keys.get(key)
    if (state === undefined) this.#keys.set(key, (state = { waiters: [], draining: false, full: null }))
    const known = knownFull(state, limit, windowMs, nowMs)
    if (known !== null) return Promise.resolve(known)
    const s = state
    return new Promise<Admission>((settle, fail) => {
      s.waiters.push({ limit, windowMs, nowMs, signal, lost: 0, settle, fail })
      if (!s.draining) void this.#drain(key, s)
    })
  }

  /** Runs rounds for the key until nobody waits. Never rejects: a failed round fails its own asks. */
  async #drain(key: string, state: KeyState): Promise<void> {
    state.draining = true
    try {
      for (;;) {
        const waiting = state.waiters.filter((w) => !w.signal.aborted)
        state.waiters = []
        const asks: Waiter[] = []
        for (const w of waiting) {
          const known = knownFull(state, w.limit, w.windowMs, w.nowMs)
          if (known === null) asks.push(w)
          else w.settle(known)
        }
        const first = asks[0]
        if (first === undefined) return
        // Asks with other numbers (a reconfigured instance) wait for a round of their own.
        const round = asks.filter((w) => w.limit === first.limit && w.windowMs === first.windowMs)
        state.waiters = asks.filter((w) => !round.includes(w))
        try {
          await this.#round(key, state, first, round)
        } catch (e) {
          for (const w of round) w.fail(e)
        }
      }
    } finally {
      state.draining = false
    }
  }

  /** One read, one ordered insert: settles the asks it decides, and puts those that lost a race back in front. */
  async #round(key: string, state: KeyState, { limit, windowMs }: Waiter, asks: readonly Waiter[]): Promise<void> {
    const storedKey = escapeText(key)
    const { admissions, grants, inserted } = await this.#calls.run(async (signal) => {
      const col = this.#col.within(signal)
      const newest = await col.find({ key: storedKey }).sort({ n: -1 }).limit(limit).toArray()
      const log = newest.map(fromRateLimitAdmissionDocument).map((a) => ({ n: a.n, atMs: a.at.getTime() }))
      const decided = decide(log.reverse(), asks, limit, windowMs)
      const docs = decided.grants.map((g) => ({
        _id: admissionId(key, g.n),
        key: storedKey,
        n: g.n,
        at: new Date(g.atMs),
        expiresAt: new Date(g.atMs + windowMs),
      }))
      const count = docs.length === 0 ? 0 : await insertPrefix(col, docs)
      if (count === docs.length) {
        const until = fullUntil([...log, ...decided.grants], limit, windowMs)
        state.full = until === null ? null : { limit, windowMs, untilMs: until }
      }
      return { ...decided, inserted: count }
    })
    // Asks decided before the first grant that was not inserted stand; the rest go round again.
    const standUntil = grants.at(inserted)?.ask ?? asks.length
    const again: Waiter[] = []
    admissions.forEach((admission, i) => {
      const w = asks[i]
      if (w === undefined) return
      if (i < standUntil) w.settle(admission)
      else if (++w.lost > this.#maxLostRaces) w.settle(CONTENDED)
      else again.push(w)
    })
    state.waiters = [...again, ...state.waiters]
  }

  /** Forgets idle keys whose fullness has passed, and sweeps the log (in the background, one sweep at a time). */
  #housekeep(nowMs: number): void {
    for (const [key, s] of this.#keys)
      if (!s.draining && s.waiters.length === 0 && (s.full === null || s.full.untilMs <= nowMs)) this.#keys.delete(key)
    if (this.#sweeping) return
    this.#sweeping = true
    this.sweep(new Date(nowMs))
      .catch(() => 0) // the next sweep catches up
      .finally(() => (this.#sweeping = false))
  }

  /**
   * Deletes admissions that left their window more than the grace period ago: they no longer
   * count. Deleting a key's highest number restarts its numbering at 0, so a request that read
   * the old highest just before the sweep and inserts just after it starts a second run of
   * numbers. That needs a key idle for longer than window + grace and a request racing the very
   * sweep; its admission is still among the key's last `limit` and counted by later reads.
   */
  sweep(now: Date): Promise<number> {
    return this.#calls.run(
      async (signal) =>
        (await this.#col.within(signal).deleteMany({ expiresAt: { $lt: new Date(now.getTime() - this.#sweepGraceMs) } })).deletedCount,
    )
  }
}

/** The refusal an ask gets without a read, when this instance knows the key is full at its time. */
const knownFull = (state: KeyState, limit: number, windowMs: number, nowMs: number): Admission | null => {
  const f = state.full
  return f !== null && f.limit === limit && f.windowMs === windowMs && nowMs < f.untilMs
    ? { admitted: false, remaining: 0, resetMs: f.untilMs - nowMs }
    : null
}

/**
 * Inserts in order and stops at the first number another process took: how many were
 * inserted. Any other failure is thrown (what was inserted before it stays counted).
 */
const insertPrefix = async (col: BoundedCollection<RateLimitAdmissionDocument>, docs: RateLimitAdmissionDocument[]): Promise<number> => {
  try {
    await col.insertMany(docs, { ordered: true })
    return docs.length
  } catch (e) {
    const first =
      e instanceof MongoBulkWriteError && e.result.getWriteConcernError() === undefined ? e.result.getWriteErrors()[0] : undefined
    if (first !== undefined && isDuplicateKey({ code: first.code, message: first.errmsg })) return first.index
    if (docs.length === 1 && isDuplicateKey(e)) return 0
    throw e
  }
}
