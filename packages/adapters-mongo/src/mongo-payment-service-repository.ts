import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { PaymentServiceRecord, PaymentServiceRepository, Unavailable } from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { fromPaymentServiceDocument, PaymentServiceDocument, toPaymentServiceDocument } from './payment-service.document'
import { COLLECTIONS } from './mongo-schema'
import { storageCalls, StorageCalls } from './storage-calls'

const ROUTING_ORDER = { position: 1, created_at: 1, _id: 1 } as const

/** Each record is one document written whole, so no write needs a transaction or a conditional update. */
export class MongoPaymentServiceRepository implements PaymentServiceRepository {
  readonly #col: StoredCollection<PaymentServiceDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.paymentServices)
  }

  listForAccount(merchantAccountId: string): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]> {
    return this.#calls.attempt(async (signal) => {
      const docs = await this.#col.within(signal).find({ merchant_account_id: merchantAccountId }, { sort: ROUTING_ORDER }).toArray()
      return docs.map(fromPaymentServiceDocument)
    })
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<PaymentServiceRecord>> {
    return this.#calls.attempt(async (signal) => {
      const doc = await this.#col.within(signal).findOne({ _id: id, merchant_account_id: merchantAccountId })
      return O.map(fromPaymentServiceDocument)(O.fromNullable(doc))
    })
  }

  listAll(): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]> {
    return this.#calls.attempt(async (signal) => {
      const docs = await this.#col
        .within(signal)
        .find({}, { sort: { merchant_account_id: 1, ...ROUTING_ORDER } })
        .toArray()
      return docs.map(fromPaymentServiceDocument)
    })
  }

  upsert(record: PaymentServiceRecord): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt((signal) => this.#col.within(signal).replaceById(toPaymentServiceDocument(record)))
  }
}
