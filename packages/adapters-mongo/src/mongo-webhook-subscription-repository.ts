import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek, Unavailable, WebhookScope, WebhookSubscriptionRecord, WebhookSubscriptionRepository } from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { keysetRead } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'
import {
  fromWebhookSubscriptionDocument,
  toWebhookSubscriptionDocument,
  WebhookSubscriptionDocument,
} from './webhook-subscription.document'

const inScope = (scope: WebhookScope): Record<string, unknown> => ({
  merchant_account_id: scope.includeInstanceWide ? { $in: [scope.merchantAccountId, null] } : scope.merchantAccountId,
})

export class MongoWebhookSubscriptionRepository implements WebhookSubscriptionRepository {
  readonly #col: StoredCollection<WebhookSubscriptionDocument>
  /** Ids deleted for good (`_id` only): `ensure` never recreates them. */
  readonly #deleted: StoredCollection<{ _id: string; deleted_at: Date }>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.webhookSubscriptions)
    this.#deleted = storedCollection(store, COLLECTIONS.deletedWebhookSubscriptions)
  }

  /** Ids come from the id generator: a clash is a bug, reported as the driver's duplicate-key error. */
  create(sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      await this.#col.within(signal).insertOne(toWebhookSubscriptionDocument(sub))
    })
  }

  ensure(sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      if ((await this.#deleted.within(signal).findOne({ _id: sub.id })) !== null) return
      try {
        await this.#col.within(signal).insertOne(toWebhookSubscriptionDocument(sub))
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
    })
  }

  findById(scope: WebhookScope, id: string): TE.TaskEither<Unavailable, O.Option<WebhookSubscriptionRecord>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromWebhookSubscriptionDocument)(O.fromNullable(await this.#col.within(signal).findOne({ _id: id, ...inScope(scope) }))),
    )
  }

  list(scope: WebhookScope, seek: Seek): TE.TaskEither<Unavailable, readonly WebhookSubscriptionRecord[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter, sort, limit } = keysetRead('created_at', 'descending', seek)
      return (
        await this.#col
          .within(signal)
          .find({ ...inScope(scope), ...filter })
          .sort(sort)
          .limit(limit)
          .toArray()
      ).map(fromWebhookSubscriptionDocument)
    })
  }

  delete(scope: WebhookScope, id: string): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      if ((await this.#col.within(signal).findOne({ _id: id, ...inScope(scope) }, { projection: { _id: 1 } })) === null) return false
      // The tombstone goes first: a crash between the two writes must not let a restart's seed revive it.
      try {
        await this.#deleted.within(signal).insertOne({ _id: id, deleted_at: new Date() })
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
      return (await this.#col.within(signal).deleteOne({ _id: id, ...inScope(scope) })).deletedCount > 0
    })
  }

  /** No upsert: a deleted subscription has no document to replace, so it stays deleted. */
  update(scope: WebhookScope, sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      const { _id, ...fields } = toWebhookSubscriptionDocument(sub)
      return (await this.#col.within(signal).replaceOne({ _id, ...inScope(scope) }, fields)).matchedCount > 0
    })
  }

  findForDelivery(id: string): TE.TaskEither<Unavailable, O.Option<WebhookSubscriptionRecord>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromWebhookSubscriptionDocument)(O.fromNullable(await this.#col.within(signal).findOne({ _id: id }))),
    )
  }

  recipients(merchantAccountId: string): TE.TaskEither<Unavailable, readonly WebhookSubscriptionRecord[]> {
    return this.#calls.attempt(async (signal) =>
      (
        await this.#col
          .within(signal)
          .find({ merchant_account_id: { $in: [merchantAccountId, null] }, active: true })
          .toArray()
      ).map(fromWebhookSubscriptionDocument),
    )
  }
}
