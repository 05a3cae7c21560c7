import * as TE from 'fp-ts/TaskEither'
import { Collection } from 'mongodb'
import { Admission, RateLimitStore, Unavailable } from '@orka/domain'
import { dbOf, MongoStore } from './mongo-database'
import { COLLECTIONS, EXPIRY_GRACE_MS } from './mongo-schema'
import { escapeText, isDuplicateKey, storageCalls, StorageCalls } from './mongo-support'
import { admissionId, fromRateLimitAdmissionDocument, RateLimitAdmissionDocument } from './rate-limit-admission.document'

export interface MongoRateLimitStoreOptions {
  /** Admissions out of their window are swept every this many calls of this instance (default 1000). */
  readonly sweepEvery?: number
  /** How long after leaving its window an admission may be swept (default `EXPIRY_GRACE_MS`). */
  readonly sweepGraceMs?: number
  /** Lost races for an admission number before giving up with `Unavailable` (default 100). */
  readonly maxAttempts?: number
}

/**
 * An exact sliding log built on inserts only, since neither `$inc` nor upserts are atomic on
 * FerretDB. A key's admissions are numbered 0, 1, 2, ...; the number is part of `_id`, so each
 * is taken by exactly one insert across every process. To admit, read the key's last `limit`
 * admissions; if fewer than `limit` of them are in the window (now - windowMs, now], insert the
 * next number. Losing that insert means another request took the number: read again. So
 * admission n is only ever granted after seeing admissions n-limit..n-1, which is what keeps
 * any span of `windowMs` at `limit` admissions or fewer. Denied requests write nothing.
 */
export class MongoRateLimitStore implements RateLimitStore {
  readonly #col: Collection<RateLimitAdmissionDocument>
  readonly #sweepEvery: number
  readonly #sweepGraceMs: number
  readonly #maxAttempts: number
  #admits = 0
  readonly #calls: StorageCalls

  constructor(store: MongoStore, options: MongoRateLimitStoreOptions = {}) {
    this.#calls = storageCalls(store)
    this.#col = dbOf(store).collection(COLLECTIONS.rateLimitAdmissions)
    this.#sweepEvery = Math.max(1, options.sweepEvery ?? 1000)
    this.#sweepGraceMs = options.sweepGraceMs ?? EXPIRY_GRACE_MS
    this.#maxAttempts = options.maxAttempts ?? 100
  }

  admit(key: string, limit: number, windowMs: number, now: Date): TE.TaskEither<Unavailable, Admission> {
    return this.#calls.attempt(async (): Promise<Admission> => {
      const nowMs = now.getTime()
      if (++this.#admits % this.#sweepEvery === 0) await this.sweep(now)
      if (limit < 1) return { admitted: false, remaining: 0, resetMs: 0 }
      const storedKey = escapeText(key)
      for (let i = 0; i < this.#maxAttempts; i++) {
        const latest = (await this.#col.find({ key: storedKey }).sort({ n: -1 }).limit(limit).toArray()).map(fromRateLimitAdmissionDocument)
        const counted = latest.map((a) => a.at.getTime()).filter((at) => at > nowMs - windowMs)
        if (counted.length >= limit) return { admitted: false, remaining: 0, resetMs: Math.min(...counted) + windowMs - nowMs }
        const newest = latest[0]
        const n = newest === undefined ? 0 : newest.n + 1
        try {
          await this.#col.insertOne({ _id: admissionId(key, n), key: storedKey, n, at: now, expiresAt: new Date(nowMs + windowMs) })
        } catch (e) {
          if (isDuplicateKey(e)) continue
          throw e
        }
        counted.push(nowMs)
        return { admitted: true, remaining: limit - counted.length, resetMs: Math.min(...counted) + windowMs - nowMs }
      }
      throw new Error(`rate-limit admission lost ${this.#maxAttempts} races in a row`)
    })
  }

  /**
   * Deletes admissions that left their window more than the grace period ago: they no longer
   * count. Deleting a key's highest number restarts its numbering at 0, so a request that read
   * the old highest just before the sweep and inserts just after it starts a second run of
   * numbers. That needs a key idle for longer than window + grace and a request racing the very
   * sweep; its admission is still among the key's last `limit` and counted by later reads.
   */
  async sweep(now: Date): Promise<number> {
    return (await this.#col.deleteMany({ expiresAt: { $lt: new Date(now.getTime() - this.#sweepGraceMs) } })).deletedCount
  }
}
