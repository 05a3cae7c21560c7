import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { GiftCardServiceRecord, GiftCardServiceRepository, Unavailable } from '@orka/domain'
import { fromGiftCardServiceDocument, GiftCardServiceDocument, toGiftCardServiceDocument } from './gift-card-service.document'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { storageCalls, StorageCalls } from './storage-calls'

let lastSeq = 0
/** Promotion order: wall-clock microseconds, strictly increasing within a process. */
const nextPromotionSeq = (): number => (lastSeq = Math.max(Date.now() * 1000, lastSeq + 1))

/** Promoted before (seq, id), or never given a sequence. */
const promotedBefore = (seq: number, id: string) => ({
  $or: [{ promoted_seq: { $lt: seq } }, { promoted_seq: seq, _id: { $lt: id } }, { promoted_seq: null }],
})
const promotedAfter = (seq: number, id: string) => ({ $or: [{ promoted_seq: { $gt: seq } }, { promoted_seq: seq, _id: { $gt: id } }] })
const demoted = { $set: { primary: false, promoted_seq: null } }

export class MongoGiftCardServiceRepository implements GiftCardServiceRepository {
  readonly #col: StoredCollection<GiftCardServiceDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.giftCardServices)
  }

  /** The latest promotion, should a race have left two services marked primary for a moment. */
  findPrimary(merchantAccountId: string): TE.TaskEither<Unavailable, O.Option<GiftCardServiceRecord>> {
    return this.#calls.attempt(async (signal) => {
      const doc = await this.#col
        .within(signal)
        .findOne({ merchant_account_id: merchantAccountId, primary: true }, { sort: { promoted_seq: -1, _id: -1 } })
      return O.map(fromGiftCardServiceDocument)(O.fromNullable(doc))
    })
  }

  /**
   * One primary per account, without a transaction: write the record, then demote the account's
   * primaries promoted before it, then step down if one promoted after it exists. Of two racing
   * promotions each writes before it looks, so at least one sees the other, and the later
   * promotion is the one left standing.
   */
  upsert(record: GiftCardServiceRecord): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      const id = record.service.id
      const m = record.merchant_account_id
      if (!record.primary) return this.#col.within(signal).replaceById(toGiftCardServiceDocument(record, null))
      const seq = nextPromotionSeq()
      await this.#col.within(signal).replaceById(toGiftCardServiceDocument(record, seq))
      await this.#col
        .within(signal)
        .updateMany({ merchant_account_id: m, primary: true, _id: { $ne: id }, ...promotedBefore(seq, id) }, demoted)
      const newer = await this.#col
        .within(signal)
        .findOne({ merchant_account_id: m, primary: true, _id: { $ne: id }, ...promotedAfter(seq, id) }, { projection: { _id: 1 } })
      if (newer !== null) await this.#col.within(signal).updateOne({ _id: id, promoted_seq: seq }, demoted)
    })
  }
}
