import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPair, ApiKeyPairRepository, Unavailable } from '@orka/domain'
import { ApiKeyPairDocument, fromApiKeyPairDocument, toApiKeyPairDocument } from './api-key-pair.document'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { storageCalls, StorageCalls } from './storage-calls'

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

  list(): TE.TaskEither<Unavailable, readonly ApiKeyPair[]> {
    return this.#calls.attempt(async (signal) =>
      (await this.#col.within(signal).find({}).sort({ _id: 1 }).toArray()).map(fromApiKeyPairDocument),
    )
  }

  revoke(id: string): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(
      async (signal) => (await this.#col.within(signal).updateOne({ _id: id }, { $set: { revoked: true } })).matchedCount > 0,
    )
  }
}
