import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { MerchantAccount, MerchantAccountRepository, Unavailable } from '@orka/domain'
import { fromMerchantAccountDocument, MerchantAccountDocument, toMerchantAccountDocument } from './merchant-account.document'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { storageCalls, StorageCalls } from './storage-calls'

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
}
