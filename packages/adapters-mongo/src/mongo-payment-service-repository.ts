import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { UpdateResult } from 'mongodb'
import { PaymentServiceRecord, PaymentServiceRepository, revisionOf, Unavailable } from '@orka/domain'
import { isDuplicateKey } from './duplicate-key'
import { BoundedCollection, storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { fromPaymentServiceDocument, PaymentServiceDocument, toPaymentServiceDocument } from './payment-service.document'
import { COLLECTIONS } from './mongo-schema'
import { storageCalls, StorageCalls } from './storage-calls'
import { Turns } from './turns'

const ROUTING_ORDER = { position: 1, created_at: 1, _id: 1 } as const

/**
 * Each record is one document written whole. A revision is written by an insert (revision 0,
 * atomic on the unique `_id`) or by a replace conditional on the revision before it: atomic on
 * MongoDB; FerretDB 1.24 runs it as a read, then a write, so there writes take turns in this
 * process and only two instances changing one service in the same instant can still race.
 */
export class MongoPaymentServiceRepository implements PaymentServiceRepository {
  readonly #col: StoredCollection<PaymentServiceDocument>
  readonly #calls: StorageCalls
  readonly #turns = new Turns()

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

  write(record: PaymentServiceRecord): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt((signal) => this.#turns.run(record.id, () => this.#write(this.#col.within(signal), record)))
  }

  async #write(col: BoundedCollection<PaymentServiceDocument>, record: PaymentServiceRecord): Promise<boolean> {
    const { _id, ...doc } = toPaymentServiceDocument(record)
    const revision = revisionOf(record)
    if (revision === 0)
      try {
        await col.insertOne({ _id, ...doc })
        return true
      } catch (e) {
        if (isDuplicateKey(e)) return false
        throw e
      }
    // A service stored before revisions were kept has none: it is revision 0.
    const before = revision === 1 ? { $or: [{ revision: 0 }, { revision: { $exists: false } }] } : { revision: revision - 1 }
    const r = await col.replaceOne({ _id, ...before }, doc)
    return (r as UpdateResult).matchedCount === 1
  }
}
