import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPair, ApiKeyPairChanges, ApiKeyPairRepository, Duplicate, duplicate, KeyUse, Seek, Unavailable } from '@orka/domain'
import { ApiKeyPairDocument, fromApiKeyPairDocument, toApiKeyPairDocument } from './api-key-pair.document'
import { keysetRead, ReadPlan } from './keyset-read'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { storageCalls, StorageCalls } from './storage-calls'

/** The query behind `listPage`: keys not revoked, newest first on `created_at`, ties by `_id`. */
export const apiKeyPairListRead = (seek: Seek, merchantAccountId?: string): ReadPlan => {
  const k = keysetRead('created_at', 'descending', seek)
  const scope = merchantAccountId === undefined ? {} : { merchant_account_id: merchantAccountId }
  return { ...k, filter: { ...scope, revoked: false, ...k.filter } }
}

/** The `$set` of an update: the changes' present fields only, so an absent one is left as it is. */
const setOf = ({ display_name, active, roles, merchant_account_id, updated_at }: ApiKeyPairChanges): Partial<ApiKeyPairDocument> => ({
  ...(display_name !== undefined && { display_name }),
  ...(active !== undefined && { active }),
  ...(roles !== undefined && { roles: [...roles] }),
  ...(merchant_account_id !== undefined && { merchant_account_id }),
  updated_at,
})

export class MongoApiKeyPairRepository implements ApiKeyPairRepository {
  readonly #col: StoredCollection<ApiKeyPairDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.apiKeyPairs)
  }

  findByThumbprint(thumbprint: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromApiKeyPairDocument)(O.fromNullable(await this.#col.within(signal).findOne({ thumbprint }))),
    )
  }

  findById(id: string): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromApiKeyPairDocument)(O.fromNullable(await this.#col.within(signal).findOne({ _id: id }))),
    )
  }

  upsert(key: ApiKeyPair): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      const doc = toApiKeyPairDocument(key)
      for (let i = 1; ; i++) {
        try {
          await this.#col.within(signal).replaceOne({ _id: doc._id }, doc, { upsert: true })
          return
        } catch (e) {
          if (!isDuplicateKey(e)) throw e
          // The unique thumbprint index refused it, or a racing upsert of this id inserted first.
          const holder = await this.#col.within(signal).findOne({ thumbprint: key.thumbprint }, { projection: { _id: 1 } })
          if (holder !== null && holder._id !== key.id)
            throw new Error(`thumbprint ${key.thumbprint} already belongs to API key pair ${holder._id}`, { cause: e })
          if (i >= 5) throw e
        }
      }
    })
  }

  /** An insert: `_id` and the unique thumbprint index refuse a taken id or thumbprint, racing creations included. */
  create(key: ApiKeyPair): TE.TaskEither<Duplicate | Unavailable, void> {
    return this.#calls.attemptEither(async (signal): Promise<E.Either<Duplicate, void>> => {
      try {
        await this.#col.within(signal).insertOne(toApiKeyPairDocument(key))
        return E.right(undefined)
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
      const holder = await this.#col.within(signal).findOne({ thumbprint: key.thumbprint }, { projection: { _id: 1 } })
      // No holder: the clash was on the id itself.
      return E.left(duplicate('ApiKeyPair', holder?._id ?? key.id))
    })
  }

  list(): TE.TaskEither<Unavailable, readonly ApiKeyPair[]> {
    return this.#calls.attempt(async (signal) =>
      (await this.#col.within(signal).find({}).sort({ _id: 1 }).toArray()).map(fromApiKeyPairDocument),
    )
  }

  listPage(seek: Seek, merchantAccountId?: string): TE.TaskEither<Unavailable, readonly ApiKeyPair[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter, sort, limit } = apiKeyPairListRead(seek, merchantAccountId)
      return (await this.#col.within(signal).find(filter).sort(sort).limit(limit).toArray()).map(fromApiKeyPairDocument)
    })
  }

  /** One command: a revoke racing it lands before (nothing changed) or after (the change kept, revoked). */
  update(id: string, changes: ApiKeyPairChanges): TE.TaskEither<Unavailable, O.Option<ApiKeyPair>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromApiKeyPairDocument)(
        O.fromNullable(
          await this.#col
            .within(signal)
            .findOneAndUpdate({ _id: id, revoked: false }, { $set: setOf(changes) }, { returnDocument: 'after' }),
        ),
      ),
    )
  }

  revoke(id: string): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(
      async (signal) => (await this.#col.within(signal).updateOne({ _id: id }, { $set: { revoked: true } })).matchedCount > 0,
    )
  }

  /**
   * One unordered bulk write for the batch. Each write's filter keeps the later time, whatever
   * order the server applies them in (the same id twice included); ISO-8601 strings of one
   * format order as their times.
   */
  markUsed(uses: readonly KeyUse[]): TE.TaskEither<Unavailable, void> {
    if (uses.length === 0) return TE.right(undefined)
    return this.#calls.attempt(async (signal) => {
      await this.#col.within(signal).bulkWrite(
        uses.map(({ id, at }) => ({
          updateOne: {
            filter: { _id: id, $or: [{ last_used_at: { $exists: false } }, { last_used_at: { $lt: at } }] },
            update: { $set: { last_used_at: at } },
          },
        })),
        { ordered: false },
      )
    })
  }
}
