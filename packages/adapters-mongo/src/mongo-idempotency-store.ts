import * as TE from 'fp-ts/TaskEither'
import { Collection } from 'mongodb'
import { Claim, IdempotencyRecord, IdempotencyStore, StoredOutcome, Unavailable } from '@orka/domain'
import {
  expiryDate,
  fromIdempotencyRecordDocument,
  IdempotencyRecordDocument,
  idempotencyRecordId,
  toIdempotencyRecordDocument,
} from './idempotency-record.document'
import { dbOf, MongoStore } from './mongo-database'
import { COLLECTIONS, EXPIRY_GRACE_MS } from './mongo-schema'
import { attempt, isDuplicateKey } from './mongo-support'

export interface MongoIdempotencyStoreOptions {
  /** Expired records are swept every this many claims of this instance (default 1000). */
  readonly sweepEvery?: number
  /** How long after expiry a record may be swept (default `EXPIRY_GRACE_MS`). */
  readonly sweepGraceMs?: number
}

const MAX_CLAIM_ATTEMPTS = 10

export class MongoIdempotencyStore implements IdempotencyStore {
  readonly #col: Collection<IdempotencyRecordDocument>
  readonly #sweepEvery: number
  readonly #sweepGraceMs: number
  #claims = 0

  constructor(store: MongoStore, options: MongoIdempotencyStoreOptions = {}) {
    this.#col = dbOf(store).collection(COLLECTIONS.idempotencyRecords)
    this.#sweepEvery = Math.max(1, options.sweepEvery ?? 1000)
    this.#sweepGraceMs = options.sweepGraceMs ?? EXPIRY_GRACE_MS
  }

  /**
   * The key is taken by inserting its `_id`, which exactly one racing claim wins on any server.
   * A loser reads the holder: live, it is the answer; expired, it is deleted (only if still that
   * very record: same state and `expires_at`) and the insert is tried again. On MongoDB that
   * delete is atomic; FerretDB 1.24 runs it as a query then a delete by `_id`, so two requests
   * taking over the same expired key at the same instant could, in a window of microseconds,
   * both succeed. Fresh keys, the case that matters (a retried request), do not depend on it.
   */
  claim(record: IdempotencyRecord, now: Date): TE.TaskEither<Unavailable, Claim> {
    return attempt(async (): Promise<Claim> => {
      if (++this.#claims % this.#sweepEvery === 0) await this.sweep(now)
      const doc = toIdempotencyRecordDocument(record)
      for (let i = 0; i < MAX_CLAIM_ATTEMPTS; i++) {
        try {
          await this.#col.insertOne(doc)
          return { claimed: true }
        } catch (e) {
          if (!isDuplicateKey(e)) throw e
        }
        const raw = await this.#col.findOne({ _id: doc._id })
        if (raw === null) continue // released or swept meanwhile
        const existing = fromIdempotencyRecordDocument(raw)
        if (Date.parse(existing.expires_at) > now.getTime()) return { claimed: false, existing }
        await this.#col.deleteOne({ _id: doc._id, state: raw.state, expires_at: raw.expires_at })
      }
      throw new Error(`claiming an idempotency key did not settle after ${MAX_CLAIM_ATTEMPTS} attempts`)
    })
  }

  /** Updates the record only if it is still there: a released key must not come back. */
  complete(merchantAccountId: string, key: string, outcome: StoredOutcome, expiresAt: Date): TE.TaskEither<Unavailable, void> {
    return attempt(async () => {
      const iso = expiresAt.toISOString()
      await this.#col.updateOne(
        { _id: idempotencyRecordId(merchantAccountId, key) },
        { $set: { state: 'completed', outcome, expires_at: iso, expiresAt: expiryDate(iso) } },
      )
    })
  }

  release(merchantAccountId: string, key: string): TE.TaskEither<Unavailable, void> {
    return attempt(async () => void (await this.#col.deleteOne({ _id: idempotencyRecordId(merchantAccountId, key) })))
  }

  /**
   * Deletes records expired for longer than the grace period. Expired records are already treated
   * as absent; this only bounds the collection where the server has no TTL index (FerretDB).
   */
  async sweep(now: Date): Promise<number> {
    return (await this.#col.deleteMany({ expiresAt: { $lt: new Date(now.getTime() - this.#sweepGraceMs) } })).deletedCount
  }
}
