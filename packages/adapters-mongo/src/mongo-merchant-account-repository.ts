import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Collection } from 'mongodb'
import { MerchantAccount, MerchantAccountRepository, Unavailable } from '@orka/domain'
import { fromMerchantAccountDocument, MerchantAccountDocument, toMerchantAccountDocument } from './merchant-account.document'
import { dbOf, MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { replaceById, storageCalls, StorageCalls } from './mongo-support'

export class MongoMerchantAccountRepository implements MerchantAccountRepository {
  readonly #col: Collection<MerchantAccountDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = dbOf(store).collection(COLLECTIONS.merchantAccounts)
  }

  find(id: string): TE.TaskEither<Unavailable, O.Option<MerchantAccount>> {
    return this.#calls.attempt(async () => O.map(fromMerchantAccountDocument)(O.fromNullable(await this.#col.findOne({ _id: id }))))
  }

  upsert(account: MerchantAccount): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(() => replaceById(this.#col, toMerchantAccountDocument(account)))
  }
}
