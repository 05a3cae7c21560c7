import {
  AnyBulkWriteOperation,
  BulkWriteOptions,
  BulkWriteResult,
  Collection,
  CountDocumentsOptions,
  DeleteOptions,
  DeleteResult,
  Document,
  Filter,
  FindCursor,
  FindOneAndUpdateOptions,
  FindOptions,
  InsertManyResult,
  InsertOneOptions,
  InsertOneResult,
  OptionalUnlessRequiredId,
  ReplaceOptions,
  UpdateFilter,
  UpdateOptions,
  UpdateResult,
  WithId,
  WithoutId,
} from 'mongodb'
import { isDuplicateKey } from './duplicate-key'
import { dbOf, MongoStore } from './mongo-database'

/**
 * A collection as one storage call sees it: every command carries the call's signal, which
 * aborts when the call's bound passes (`withinBound`). From then on no command starts: one
 * about to is refused here, and the driver drops one still waiting for a connection or server,
 * abandons one in flight and does not retry it. So a loop, a retry or queued work of a call
 * that was already answered hands the database nothing more.
 *
 * Only the methods the adapters use are here; the driver passes `signal` on to every
 * operation's options (its `Abortable`; writes included, which a test pins down). `replaceById`
 * is built on `replaceOne`, so each of its attempts is refused once the signal aborts.
 */
export class BoundedCollection<D extends Document> {
  readonly #col: Collection<D>
  readonly #signal: AbortSignal

  constructor(col: Collection<D>, signal: AbortSignal) {
    this.#col = col
    this.#signal = signal
  }

  #options<O extends object>(options: O | undefined): O {
    this.#signal.throwIfAborted()
    return { ...options, signal: this.#signal } as O
  }

  find(filter: Filter<D>, options?: FindOptions): FindCursor<WithId<D>> {
    return this.#col.find(filter, this.#options(options))
  }
  findOne(filter: Filter<D>, options?: FindOptions): Promise<WithId<D> | null> {
    return this.#col.findOne(filter, this.#options(options))
  }
  countDocuments(filter: Filter<D>, options?: CountDocumentsOptions): Promise<number> {
    return this.#col.countDocuments(filter, this.#options(options))
  }
  insertOne(doc: OptionalUnlessRequiredId<D>, options?: InsertOneOptions): Promise<InsertOneResult<D>> {
    return this.#col.insertOne(doc, this.#options(options))
  }
  insertMany(docs: readonly OptionalUnlessRequiredId<D>[], options?: BulkWriteOptions): Promise<InsertManyResult<D>> {
    return this.#col.insertMany(docs, this.#options(options))
  }
  updateOne(filter: Filter<D>, update: UpdateFilter<D>, options?: UpdateOptions): Promise<UpdateResult<D>> {
    return this.#col.updateOne(filter, update, this.#options(options))
  }
  /** The document as it was before the update (`returnDocument: 'before'`), or null. */
  findOneAndUpdate(filter: Filter<D>, update: UpdateFilter<D>, options?: FindOneAndUpdateOptions): Promise<WithId<D> | null> {
    return this.#col.findOneAndUpdate(filter, update, { returnDocument: 'before', ...this.#options(options) })
  }
  updateMany(filter: Filter<D>, update: UpdateFilter<D>, options?: UpdateOptions): Promise<UpdateResult<D>> {
    return this.#col.updateMany(filter, update, this.#options(options))
  }
  replaceOne(filter: Filter<D>, replacement: WithoutId<D>, options?: ReplaceOptions): Promise<UpdateResult<D> | Document> {
    return this.#col.replaceOne(filter, replacement, this.#options(options))
  }
  /** One command per kind of write the operations hold (the driver batches them). */
  bulkWrite(operations: readonly AnyBulkWriteOperation<D>[], options?: BulkWriteOptions): Promise<BulkWriteResult> {
    return this.#col.bulkWrite([...operations], this.#options(options))
  }
  deleteOne(filter: Filter<D>, options?: DeleteOptions): Promise<DeleteResult> {
    return this.#col.deleteOne(filter, this.#options(options))
  }
  deleteMany(filter: Filter<D>, options?: DeleteOptions): Promise<DeleteResult> {
    return this.#col.deleteMany(filter, this.#options(options))
  }
  /**
   * Creates or replaces the document with this `_id`. An upsert is not atomic on FerretDB: two
   * racing ones may both try the insert, and the loser sees a duplicate `_id`; by then the
   * document exists, so replacing again settles it.
   */
  async replaceById(doc: D & { _id: string }, attempts = 5): Promise<void> {
    for (let i = 1; ; i++) {
      try {
        await this.replaceOne({ _id: doc._id } as Filter<D>, doc, { upsert: true })
        return
      } catch (e) {
        if (!isDuplicateKey(e) || i >= attempts) throw e
      }
    }
  }
}

/** A collection an adapter holds: reachable only within a storage call, through its signal. */
export interface StoredCollection<D extends Document> {
  within(signal: AbortSignal): BoundedCollection<D>
}

export const storedCollection = <D extends Document>(store: MongoStore, name: string): StoredCollection<D> => {
  const col = dbOf(store).collection<D>(name)
  return { within: (signal) => new BoundedCollection(col, signal) }
}
