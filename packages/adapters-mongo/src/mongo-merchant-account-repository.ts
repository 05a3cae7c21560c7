import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Duplicate,
  duplicate,
  MerchantAccount,
  MerchantAccountRepository,
  merchantAccountSortKey,
  Seek,
  seekIn,
  Unavailable,
} from '@orka/domain'
import { fromMerchantAccountDocument, MerchantAccountDocument, toMerchantAccountDocument } from './merchant-account.document'
import { isDuplicateKey } from './duplicate-key'
import { keysetRead, ReadPlan } from './keyset-read'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { storageCalls, StorageCalls } from './storage-calls'

/**
 * The query behind `list`: newest first on `listed_at`, ties by `_id`, over the documents that
 * have it (a key's range excludes the others by itself; with no key, `$exists` does).
 */
export const merchantAccountListRead = (seek: Seek): ReadPlan => {
  const k = keysetRead('listed_at', 'descending', seek)
  return { ...k, filter: { listed_at: { $exists: true }, ...k.filter } }
}

export class MongoMerchantAccountRepository implements MerchantAccountRepository {
  readonly #col: StoredCollection<MerchantAccountDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.merchantAccounts)
  }

  find(id: string): TE.TaskEither<Unavailable, O.Option<MerchantAccount>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromMerchantAccountDocument)(O.fromNullable(await this.#col.within(signal).findOne({ _id: id }))),
    )
  }

  upsert(account: MerchantAccount): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt((signal) => this.#col.within(signal).replaceById(toMerchantAccountDocument(account)))
  }

  /** An insert into `_id`: exactly one of racing creations of an id wins, on every server. */
  create(account: MerchantAccount): TE.TaskEither<Duplicate | Unavailable, void> {
    return this.#calls.attemptEither(async (signal): Promise<E.Either<Duplicate, void>> => {
      try {
        await this.#col.within(signal).insertOne(toMerchantAccountDocument(account))
        return E.right(undefined)
      } catch (e) {
        if (isDuplicateKey(e)) return E.left(duplicate('MerchantAccount', account.id))
        throw e
      }
    })
  }

  /**
   * A keyset read over `listed_at`. Documents written before it existed (accounts seeded before
   * accounts were made by API: no `created_at` either, so the epoch) are read as well and merged in
   * by their key; an instance has few accounts, and an upsert through this version gives them one.
   */
  list(seek: Seek): TE.TaskEither<Unavailable, readonly MerchantAccount[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter, sort, limit } = merchantAccountListRead(seek)
      const col = this.#col.within(signal)
      const listed = (await col.find(filter).sort(sort).limit(limit).toArray()).map(fromMerchantAccountDocument)
      const unlisted = (await col.find({ listed_at: { $exists: false } }).toArray()).map(fromMerchantAccountDocument)
      return unlisted.length === 0 ? listed : seekIn([...listed, ...unlisted], merchantAccountSortKey, 'descending', seek)
    })
  }
}
