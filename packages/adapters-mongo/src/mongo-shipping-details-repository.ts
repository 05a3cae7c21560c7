import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { UpdateResult } from 'mongodb'
import { ShippingDetailsRecord, ShippingDetailsRepository, Unavailable } from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { fromShippingDetailsDocument, ShippingDetailsDocument, toShippingDetailsDocument } from './shipping-details.document'
import { storageCalls, StorageCalls } from './storage-calls'

/** The list order, served by the `merchant_buyer_created` index: ties on the instant go by id. */
const NEWEST_FIRST = { created_at: -1, _id: -1 } as const

/** Each record is one document written whole; every query names the account, so another's is never seen. */
export class MongoShippingDetailsRepository implements ShippingDetailsRepository {
  readonly #col: StoredCollection<ShippingDetailsDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.shippingDetails)
  }

  create(record: ShippingDetailsRecord): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      await this.#col.within(signal).insertOne(toShippingDetailsDocument(record))
    })
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<ShippingDetailsRecord>> {
    return this.#calls.attempt(async (signal) => {
      const doc = await this.#col.within(signal).findOne({ _id: id, merchant_account_id: merchantAccountId })
      return O.map(fromShippingDetailsDocument)(O.fromNullable(doc))
    })
  }

  // Unpaginated: the domain caps a buyer's shipping details (`MAX_SHIPPING_DETAILS`).
  listOfBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, readonly ShippingDetailsRecord[]> {
    return this.#calls.attempt(async (signal) => {
      const filter = { merchant_account_id: merchantAccountId, buyer_id: buyerId }
      return (await this.#col.within(signal).find(filter).sort(NEWEST_FIRST).toArray()).map(fromShippingDetailsDocument)
    })
  }

  update(record: ShippingDetailsRecord): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      const { _id, ...fields } = toShippingDetailsDocument(record)
      const r = await this.#col.within(signal).replaceOne({ _id, merchant_account_id: record.merchant_account_id }, fields)
      return (r as UpdateResult).matchedCount === 1
    })
  }

  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      const { deletedCount } = await this.#col.within(signal).deleteOne({ _id: id, merchant_account_id: merchantAccountId })
      return deletedCount === 1
    })
  }

  deleteOfBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      await this.#col.within(signal).deleteMany({ merchant_account_id: merchantAccountId, buyer_id: buyerId })
    })
  }
}
