import * as TE from 'fp-ts/TaskEither'
import { OutboxEntry, Unavailable, WebhookOutbox } from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { storageCalls, StorageCalls } from './storage-calls'
import { fromOutboxEntryDocument, OutboxEntryDocument, toOutboxEntryDocument } from './outbox-entry.document'

export class MongoWebhookOutbox implements WebhookOutbox {
  readonly #col: StoredCollection<OutboxEntryDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.webhookOutbox)
  }

  /** An insert under the event id: a second add of the same entry is a duplicate key, and changes nothing. */
  add(entry: OutboxEntry): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      try {
        await this.#col.within(signal).insertOne(toOutboxEntryDocument(entry))
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
    })
  }

  remove(eventId: string): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      await this.#col.within(signal).deleteOne({ _id: eventId })
    })
  }

  olderThan(before: Date, limit: number): TE.TaskEither<Unavailable, readonly OutboxEntry[]> {
    return this.#calls.attempt(async (signal) => {
      // A limit of 0 means "no limit" to the server.
      if (limit < 1) return []
      const docs = await this.#col
        .within(signal)
        .find({ created_at: { $lt: before.toISOString() } })
        .sort({ created_at: 1, _id: 1 })
        .limit(limit)
        .toArray()
      return docs.map(fromOutboxEntryDocument)
    })
  }
}
