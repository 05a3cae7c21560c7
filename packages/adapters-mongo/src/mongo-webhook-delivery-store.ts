import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { UpdateFilter } from 'mongodb'
import {
  DeliveryClaim,
  DeliveryFilter,
  DeliveryTransition,
  Seek,
  Unavailable,
  WebhookDeliveryAttempt,
  WebhookDeliveryRecord,
  WebhookDeliveryStatus,
  WebhookDeliveryStore,
} from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey, onlyDuplicateKeys } from './duplicate-key'
import { keysetRead } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'
import {
  DeliveryClaimDocument,
  deliveryClaimId,
  fromDeliveryClaimDocument,
  fromWebhookDeliveryDocument,
  toWebhookDeliveryDocument,
  WebhookDeliveryDocument,
} from './webhook-delivery.document'

const MAX_CLAIM_ATTEMPTS = 10
const FINISHED: WebhookDeliveryStatus[] = ['delivered', 'failed', 'cancelled']
const REDELIVERABLE: WebhookDeliveryStatus[] = ['delivered', 'failed']

/** Whether attempt `n` of `d` may run at `now`: still pending and due, with exactly n - 1 attempts made. */
const runnable = (d: WebhookDeliveryRecord, n: number, now: string): boolean =>
  d.status === 'pending' && d.attempts.length === n - 1 && d.next_attempt_at !== null && d.next_attempt_at <= now

/**
 * Deliveries, and claims on their attempts, without transactions. A claim is a document of its
 * own whose `_id` is (delivery, attempt number): inserting it is the one step that decides
 * between racing dispatchers, and an insert into `_id` is atomic on FerretDB as on MongoDB
 * (conditional updates are not atomic on FerretDB 1.24, so they decide nothing here).
 */
export class MongoWebhookDeliveryStore implements WebhookDeliveryStore {
  readonly #deliveries: StoredCollection<WebhookDeliveryDocument>
  readonly #claims: StoredCollection<DeliveryClaimDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#deliveries = storedCollection(store, COLLECTIONS.webhookDeliveries)
    this.#claims = storedCollection(store, COLLECTIONS.webhookDeliveryClaims)
  }

  /** Unordered, so that one delivery stored already (an entry handed over twice) does not stop the others. */
  enqueue(deliveries: readonly WebhookDeliveryRecord[]): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      if (deliveries.length === 0) return
      try {
        await this.#deliveries.within(signal).insertMany(deliveries.map(toWebhookDeliveryDocument), { ordered: false })
      } catch (e) {
        if (!onlyDuplicateKeys(e)) throw e
      }
    })
  }

  due(now: Date, limit: number, excluded: readonly string[]): TE.TaskEither<Unavailable, readonly WebhookDeliveryRecord[]> {
    return this.#calls.attempt(async (signal) => {
      // A limit of 0 means "no limit" to the server.
      if (limit < 1) return []
      const filter: Record<string, unknown> = { status: 'pending', next_attempt_at: { $lte: now.toISOString() } }
      if (excluded.length > 0) filter.subscription_id = { $nin: [...excluded] }
      return (await this.#deliveries.within(signal).find(filter).sort({ next_attempt_at: 1, _id: 1 }).limit(limit).toArray()).map(
        fromWebhookDeliveryDocument,
      )
    })
  }

  /**
   * Takes the claim document of the delivery's next attempt, then reads the delivery again: a
   * claim made from a stale read (the attempt ran, or the delivery was cancelled) is given back.
   * The re-read comes after the insert, so whatever settled before the claim was taken is seen.
   */
  claim(delivery: WebhookDeliveryRecord, owner: string, now: Date, leaseUntil: Date): TE.TaskEither<Unavailable, O.Option<DeliveryClaim>> {
    return this.#calls.attempt(async (signal): Promise<O.Option<DeliveryClaim>> => {
      const n = delivery.attempts.length + 1
      const mine: DeliveryClaimDocument = { _id: deliveryClaimId(delivery.id, n), delivery_id: delivery.id, owner, lease_until: leaseUntil }
      if (!(await this.take(signal, mine, now))) return O.none
      const release = () => this.#claims.within(signal).deleteOne({ _id: mine._id, owner, lease_until: leaseUntil })
      try {
        const raw = await this.#deliveries.within(signal).findOne({ _id: delivery.id })
        const current = raw === null ? null : fromWebhookDeliveryDocument(raw)
        if (current !== null && runnable(current, n, now.toISOString())) return O.some({ delivery: current, attempt: n, owner })
        await release()
        return O.none
      } catch (e) {
        await release().catch(() => undefined)
        throw e
      }
    })
  }

  /**
   * Ends a claim. The transition is applied only by an update filtered on `status: 'pending'`,
   * which also appends the attempt; when that matches nothing (cancelled meanwhile) a second
   * update appends the attempt alone. On MongoDB each update is atomic, so a cancellation is
   * never lost. On FerretDB 1.24 an update is a read then a whole-document replace: a
   * `cancelPending` landing between the two halves of the first update can be overwritten (or
   * can overwrite the appended attempt). The window is that of one update; a cancellation lost
   * so is redone by the next attempt, which reads the subscription afresh and cancels instead
   * of sending when it is deleted or inactive.
   */
  settle(claim: DeliveryClaim, made: WebhookDeliveryAttempt | null, next: DeliveryTransition, now: Date): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      const id = claim.delivery.id
      const updatedAt = now.toISOString()
      const withAttempt = (set: Partial<WebhookDeliveryDocument>): UpdateFilter<WebhookDeliveryDocument> =>
        made === null ? { $set: set } : { $set: set, $push: { attempts: made } }
      const applied = await this.#deliveries
        .within(signal)
        .updateOne({ _id: id, status: 'pending' }, withAttempt({ ...next, updated_at: updatedAt }))
      if (applied.matchedCount === 0) await this.#deliveries.within(signal).updateOne({ _id: id }, withAttempt({ updated_at: updatedAt }))
      // Only our own claim: one taken over after our lease ended belongs to its new owner.
      await this.#claims.within(signal).deleteOne({ _id: deliveryClaimId(id, claim.attempt), owner: claim.owner })
    })
  }

  cancelPending(subscriptionId: string, now: Date): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(async (signal) => {
      const set = { status: 'cancelled' as const, next_attempt_at: null, updated_at: now.toISOString() }
      return (await this.#deliveries.within(signal).updateMany({ subscription_id: subscriptionId, status: 'pending' }, { $set: set }))
        .modifiedCount
    })
  }

  findById(subscriptionId: string, deliveryId: string): TE.TaskEither<Unavailable, O.Option<WebhookDeliveryRecord>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromWebhookDeliveryDocument)(
        O.fromNullable(await this.#deliveries.within(signal).findOne({ _id: deliveryId, subscription_id: subscriptionId })),
      ),
    )
  }

  list(subscriptionId: string, filter: DeliveryFilter, seek: Seek): TE.TaskEither<Unavailable, readonly WebhookDeliveryRecord[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const k = keysetRead('created_at', 'descending', seek)
      const scope: Record<string, unknown> = { subscription_id: subscriptionId }
      if (filter.status !== undefined) scope.status = filter.status
      return (
        await this.#deliveries
          .within(signal)
          .find({ ...scope, ...k.filter })
          .sort(k.sort)
          .limit(k.limit)
          .toArray()
      ).map(fromWebhookDeliveryDocument)
    })
  }

  redeliver(subscriptionId: string, deliveryId: string, now: Date, retriesUsed: number): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      const at = now.toISOString()
      const r = await this.#deliveries
        .within(signal)
        .updateOne(
          { _id: deliveryId, subscription_id: subscriptionId, status: { $in: REDELIVERABLE } },
          { $set: { status: 'pending', next_attempt_at: at, retries_used: retriesUsed, updated_at: at } },
        )
      return r.matchedCount > 0
    })
  }

  /**
   * Deletes finished deliveries, and claims whose lease ended before `before`: a claim is freed
   * by `settle`, so only those of processes that died (or of attempts that were never taken
   * over, their delivery cancelled) are left, and nothing else would ever delete them. On
   * FerretDB a delete goes by `_id` after its query, so a sweep could remove a claim taken over
   * at that very instant; `before` lies far in the past, where no takeover is still under way.
   */
  sweep(before: Date): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(async (signal) => {
      const deleted = await this.#deliveries
        .within(signal)
        .deleteMany({ status: { $in: FINISHED }, updated_at: { $lt: before.toISOString() } })
      await this.#claims.within(signal).deleteMany({ lease_until: { $lt: before } })
      return deleted.deletedCount
    })
  }

  /**
   * Inserts the claim document. Over one whose lease ended before `now`, deletes that very
   * claim (same owner and lease, so never one another dispatcher has just taken) and inserts
   * again: of racing takeovers only one insert wins. On MongoDB that delete is atomic; FerretDB
   * 1.24 runs it as a query then a delete by `_id`, so two takeovers of one expired claim at
   * the same instant could, in a window of microseconds, both win. Expired claims are left only
   * by processes that died, and the port already lets such an attempt run twice.
   */
  private async take(signal: AbortSignal, mine: DeliveryClaimDocument, now: Date): Promise<boolean> {
    for (let i = 0; i < MAX_CLAIM_ATTEMPTS; i++) {
      try {
        await this.#claims.within(signal).insertOne(mine)
        return true
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
      const raw = await this.#claims.within(signal).findOne({ _id: mine._id })
      if (raw === null) continue // settled or given back meanwhile
      const held = fromDeliveryClaimDocument(raw)
      if (held.lease_until.getTime() >= now.getTime()) return false
      await this.#claims.within(signal).deleteOne({ _id: mine._id, owner: held.owner, lease_until: held.lease_until })
    }
    throw new Error(`claiming attempt ${mine._id} did not settle after ${MAX_CLAIM_ATTEMPTS} attempts`)
  }
}
