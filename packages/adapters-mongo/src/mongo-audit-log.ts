import * as TE from 'fp-ts/TaskEither'
import { AuditFilter, AuditLog, AuditRecord, Seek, Unavailable } from '@orka/domain'
import { AuditRecordDocument, fromAuditRecordDocument, toAuditRecordDocument } from './audit-record.document'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey, onlyDuplicateKeys } from './duplicate-key'
import { keysetRead } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'

export class MongoAuditLog implements AuditLog {
  readonly #col: StoredCollection<AuditRecordDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.auditLog)
  }

  /** An insert under the record's id: a second add of it is a duplicate key, and changes nothing. */
  add(record: AuditRecord): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      try {
        await this.#col.within(signal).insertOne(toAuditRecordDocument(record))
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
    })
  }

  /** One unordered insert: the ids stored already fail alone as duplicates, the rest are stored. */
  addAll(records: readonly AuditRecord[]): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      if (records.length === 0) return
      try {
        await this.#col.within(signal).insertMany(records.map(toAuditRecordDocument), { ordered: false })
      } catch (e) {
        if (!onlyDuplicateKeys(e)) throw e
      }
    })
  }

  /** The check is cleared: it only serves the relay while the record is pending. */
  commit(id: string): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      await this.#col.within(signal).updateOne({ _id: id, committed: false }, { $set: { committed: true, check: null } })
    })
  }

  /**
   * FerretDB 1.24 deletes by `_id` after its query, so a commit landing in between would be
   * undone. A record is dropped only by the request that wrote it, when its write was refused,
   * or by the relay once it has been pending far longer than any request: neither races a commit.
   */
  drop(id: string): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      await this.#col.within(signal).deleteOne({ _id: id, committed: false })
    })
  }

  pendingBefore(before: Date, limit: number): TE.TaskEither<Unavailable, readonly AuditRecord[]> {
    return this.#calls.attempt(async (signal) => {
      // A limit of 0 means "no limit" to the server.
      if (limit < 1) return []
      const docs = await this.#col
        .within(signal)
        .find({ committed: false, timestamp: { $lt: before.toISOString() } })
        .sort({ timestamp: 1, _id: 1 })
        .limit(limit)
        .toArray()
      return docs.map(fromAuditRecordDocument)
    })
  }

  /** The filters are equalities within the account's committed records: read on that index, they cost a scan of the account's. */
  list(merchantAccountId: string, filter: AuditFilter, seek: Seek): TE.TaskEither<Unavailable, readonly AuditRecord[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const k = keysetRead('timestamp', 'descending', seek)
      const scope: Record<string, unknown> = { merchant_account_id: merchantAccountId, committed: true }
      if (filter.action !== undefined) scope.action = filter.action
      if (filter.user_id !== undefined) scope['user.id'] = filter.user_id
      if (filter.resource_type !== undefined) scope['resource.type'] = filter.resource_type
      const docs = await this.#col
        .within(signal)
        .find({ ...scope, ...k.filter })
        .sort(k.sort)
        .limit(k.limit)
        .toArray()
      return docs.map(fromAuditRecordDocument)
    })
  }

  sweep(before: Date): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(
      async (signal) => (await this.#col.within(signal).deleteMany({ timestamp: { $lt: before.toISOString() } })).deletedCount,
    )
  }
}
