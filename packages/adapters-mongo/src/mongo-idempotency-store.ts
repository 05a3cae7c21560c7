import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Claim,
  IdempotencyRecord,
  IdempotencyStore,
  keptUntil,
  LeaseHolder,
  Settlement,
  StoredOutcome,
  takeOver,
  Unavailable,
} from '@orka/domain'
import {
  expiryDate,
  fromIdempotencyRecordDocument,
  IdempotencyRecordDocument,
  idempotencyRecordId,
  takeoverId,
  toIdempotencyRecordDocument,
} from './idempotency-record.document'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS, EXPIRY_GRACE_MS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { storageCalls, StorageCalls } from './storage-calls'
import { formerKeyOf } from './former-operations'

export interface MongoIdempotencyStoreOptions {
  /** Expired records are swept every this many claims of this instance (default 1000). */
  readonly sweepEvery?: number
  /** How long after expiry a record may be swept (default `EXPIRY_GRACE_MS`). */
  readonly sweepGraceMs?: number
}

const MAX_CLAIM_ATTEMPTS = 10

/** A filter matching `raw` only as it was read: same lease, attempt, state and lease end. */
const sameVersion = (raw: IdempotencyRecordDocument) => ({
  _id: raw._id,
  state: raw.state,
  expires_at: raw.expires_at,
  lease: raw.lease ?? { $exists: false },
  attempt: raw.attempt ?? { $exists: false },
})

export class MongoIdempotencyStore implements IdempotencyStore {
  readonly #col: StoredCollection<IdempotencyRecordDocument>
  readonly #sweepEvery: number
  readonly #sweepGraceMs: number
  #claims = 0
  readonly #calls: StorageCalls

  constructor(store: MongoStore, options: MongoIdempotencyStoreOptions = {}) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.idempotencyRecords)
    this.#sweepEvery = Math.max(1, options.sweepEvery ?? 1000)
    this.#sweepGraceMs = options.sweepGraceMs ?? EXPIRY_GRACE_MS
  }

  /**
   * The key is taken by inserting its `_id`, which exactly one racing claim wins on any server.
   * A loser reads the holder: live, it is the answer. Expired, it is taken over, by inserts
   * again, so that FerretDB (no atomic conditional update) also lets exactly one claim win:
   *
   * 1. The claim inserts a takeover document (`takeoverId`: the key and the version of the
   *    record it supersedes) holding its next record, `takeOver(existing, record)`: the next
   *    attempt, with the ids of the same request's unfinished attempts. Of racing takeovers of
   *    one version of the record, exactly one inserts it.
   * 2. The winner replaces the record with it, only if the record is still the one it read
   *    (same lease, attempt, state and `expires_at`). A loser makes that same replacement from
   *    the takeover document (so a winner that died between the two steps blocks nobody), then
   *    reads the record again: the winner's claim, live, is its answer. A claim that reads a
   *    record bearing its own lease token (put in place by a loser) has won.
   *
   * The record is replaced, never deleted then re-inserted: there is no instant at which the key
   * looks free and a retry could start afresh without the ids its earlier attempts reserved.
   * Takeover documents expire at once and are swept with the records (after the grace period).
   *
   * On FerretDB 1.24 a replace is a query then a write of the whole document by `_id`: a
   * loser's late replacement (the winner's in-flight record, again) can land just after the
   * winner's own `complete` and undo it, within microseconds. The key then looks in flight
   * until that lease ends; the retry taking it over has the same ids, so it finds the card the
   * winner vaulted and answers with it.
   */
  claim(fresh: IdempotencyRecord, now: Date): TE.TaskEither<Unavailable, Claim> {
    return this.#calls.attempt(async (signal): Promise<Claim> => {
      if (++this.#claims % this.#sweepEvery === 0) await this.#sweep(signal, now)
      const former = await this.#former(signal, fresh, now)
      if (former !== null && 'existing' in former) return { claimed: false, existing: former.existing }
      const record = former === null ? fresh : former.record
      const doc = toIdempotencyRecordDocument(record)
      for (let i = 0; i < MAX_CLAIM_ATTEMPTS; i++) {
        try {
          await this.#col.within(signal).insertOne(doc)
          return { claimed: true, record }
        } catch (e) {
          if (!isDuplicateKey(e)) throw e
        }
        const raw = await this.#col.within(signal).findOne({ _id: doc._id })
        if (raw === null) continue // swept meanwhile
        const existing = fromIdempotencyRecordDocument(raw)
        // Our own takeover, which a loser (step 2) put in place before we did: lease tokens are unique.
        if (record.lease !== undefined && existing.lease === record.lease) return { claimed: true, record: existing }
        if (Date.parse(existing.expires_at) > now.getTime()) return { claimed: false, existing }
        const next = takeOver(existing, record)
        const takeover = { ...toIdempotencyRecordDocument(next), _id: takeoverId(raw), expiresAt: now }
        try {
          await this.#col.within(signal).insertOne(takeover)
        } catch (e) {
          if (!isDuplicateKey(e)) throw e
          // Another claim took this record over: finish its replacement, then read its claim.
          const won = await this.#col.within(signal).findOne({ _id: takeover._id })
          if (won === null) continue // swept meanwhile
          const winner = fromIdempotencyRecordDocument(won)
          await this.#col.within(signal).replaceOne(sameVersion(raw), { ...won, _id: raw._id, expiresAt: expiryDate(keptUntil(winner)) })
          continue
        }
        const replaced = await this.#col.within(signal).replaceOne(sameVersion(raw), toIdempotencyRecordDocument(next))
        if (replaced.matchedCount === 1) return { claimed: true, record: next }
        // The record changed since it was read: a loser put our takeover in place already, or its
        // holder completed it. Read it again.
      }
      throw new Error(`claiming an idempotency key did not settle after ${MAX_CLAIM_ATTEMPTS} attempts`)
    })
  }

  /**
   * Stores the outcome by an update filtered on the holder's lease and attempt: a holder whose
   * lease was taken over changes nothing, and learns the record as it is now. A released or
   * swept key has no record to update, and does not come back. On FerretDB the update is a
   * query then a write: a takeover landing between the two is overwritten by the completion
   * (the new holder's own `complete` is then refused, and it answers from this outcome), or
   * the reverse; either way the record ends up naming one holder, and one outcome.
   */
  complete(holder: LeaseHolder, outcome: StoredOutcome, expiresAt: Date): TE.TaskEither<Unavailable, Settlement> {
    return this.#calls.attempt(async (signal): Promise<Settlement> => {
      const iso = expiresAt.toISOString()
      const id = idempotencyRecordId(holder.merchantAccountId, holder.key)
      const done = await this.#col.within(signal).updateOne(
        { _id: id, lease: holder.lease, attempt: holder.attempt },
        // A completed record is kept until its replay ends (`keptUntil`).
        { $set: { state: 'completed', outcome, expires_at: iso, expiresAt: expiryDate(iso) } },
      )
      return done.matchedCount === 1 ? { settled: true } : { settled: false, current: await this.#current(signal, id) }
    })
  }

  /**
   * Ends the holder's lease now, only while it holds the key in flight. The record stays (its
   * `expiresAt` unchanged) so that a retry of the same request takes it over with its ids.
   */
  release(holder: LeaseHolder, now: Date): TE.TaskEither<Unavailable, Settlement> {
    return this.#calls.attempt(async (signal): Promise<Settlement> => {
      const id = idempotencyRecordId(holder.merchantAccountId, holder.key)
      const done = await this.#col
        .within(signal)
        .updateOne(
          { _id: id, lease: holder.lease, attempt: holder.attempt, state: 'in_flight' },
          { $set: { expires_at: now.toISOString() } },
        )
      return done.matchedCount === 1 ? { settled: true } : { settled: false, current: await this.#current(signal, id) }
    })
  }

  /**
   * What a record an earlier version stored under the operation's former name (`formerKeyOf`)
   * says of this claim: live, it answers (a replay, a `425`, or a `400` for another body, as a
   * record under today's name would); expired while unfinished, the ids its attempts reserved are
   * this request's own, handed on as a takeover hands them on. Null: no such record matters.
   */
  async #former(
    signal: AbortSignal,
    record: IdempotencyRecord,
    now: Date,
  ): Promise<{ readonly existing: IdempotencyRecord } | { readonly record: IdempotencyRecord } | null> {
    const formerKey = formerKeyOf(record.key)
    if (formerKey === undefined) return null
    const old = await this.#current(signal, idempotencyRecordId(record.merchant_account_id, formerKey))
    if (old === null) return null
    if (Date.parse(old.expires_at) > now.getTime()) return { existing: old }
    if (old.state !== 'in_flight' || old.fingerprint !== record.fingerprint) return null
    const ids = [...(old.reserved_id === undefined ? [] : [old.reserved_id]), ...(old.earlier_ids ?? [])]
    return { record: { ...record, earlier_ids: [...(record.earlier_ids ?? []), ...ids] } }
  }

  find(merchantAccountId: string, key: string): TE.TaskEither<Unavailable, O.Option<IdempotencyRecord>> {
    return this.#calls.attempt(async (signal) => O.fromNullable(await this.#current(signal, idempotencyRecordId(merchantAccountId, key))))
  }

  async #current(signal: AbortSignal, id: string): Promise<IdempotencyRecord | null> {
    const raw = await this.#col.within(signal).findOne({ _id: id })
    return raw === null ? null : fromIdempotencyRecordDocument(raw)
  }

  /**
   * Deletes records expired for longer than the grace period. Expired records are already treated
   * as absent; this only bounds the collection where the server has no TTL index (FerretDB).
   */
  sweep(now: Date): Promise<number> {
    return this.#calls.run((signal) => this.#sweep(signal, now))
  }

  async #sweep(signal: AbortSignal, now: Date): Promise<number> {
    return (await this.#col.within(signal).deleteMany({ expiresAt: { $lt: new Date(now.getTime() - this.#sweepGraceMs) } })).deletedCount
  }
}
