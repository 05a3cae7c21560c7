import { randomUUID } from 'node:crypto'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { CheckoutSessionRecord, CheckoutSessionStore, SessionCard, Unavailable } from '@orka/domain'
import {
  CheckoutSessionDocument,
  checkoutSessionUseId,
  CheckoutSessionUseDocument,
  fromCheckoutSessionDocument,
  sessionFieldsOf,
  toCheckoutSessionDocument,
} from './checkout-session.document'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { storageCalls, StorageCalls } from './storage-calls'

/** A live session: expiry is data, filtered on every read and write (the sweep and the TTL index only reclaim space). */
const liveAt = (now: Date) => ({ expiresAt: { $gt: now } })

/**
 * Sessions on MongoDB or FerretDB 1.24. Every write is one single-document command; nothing
 * relies on multi-document transactions or on an atomic conditional update (FerretDB runs an
 * update as a read, then a write by `_id`).
 */
export class MongoCheckoutSessionStore implements CheckoutSessionStore {
  readonly #sessions: StoredCollection<CheckoutSessionDocument>
  readonly #uses: StoredCollection<CheckoutSessionUseDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#sessions = storedCollection(store, COLLECTIONS.checkoutSessions)
    this.#uses = storedCollection(store, COLLECTIONS.checkoutSessionUses)
  }

  create(record: CheckoutSessionRecord): TE.TaskEither<Unavailable, void> {
    return this.#calls.attempt(async (signal) => {
      const doc = toCheckoutSessionDocument(record)
      await this.#sessions.within(signal).insertOne(record.card === null ? doc : { ...doc, card_nonce: randomUUID() })
    })
  }

  find(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromCheckoutSessionDocument)(
        O.fromNullable(await this.#sessions.within(signal).findOne({ _id: id, merchant_account_id: merchantAccountId, ...liveAt(now) })),
      ),
    )
  }

  findById(id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromCheckoutSessionDocument)(O.fromNullable(await this.#sessions.within(signal).findOne({ _id: id, ...liveAt(now) }))),
    )
  }

  /** `$set` of the session's own fields: the card and its nonce are not written. */
  update(record: CheckoutSessionRecord, now: Date): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(
      async (signal) =>
        (
          await this.#sessions
            .within(signal)
            .updateOne(
              { _id: record.id, merchant_account_id: record.merchant_account_id, ...liveAt(now) },
              { $set: sessionFieldsOf(record) },
            )
        ).matchedCount === 1,
    )
  }

  delete(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(
      async (signal) =>
        (await this.#sessions.within(signal).deleteOne({ _id: id, merchant_account_id: merchantAccountId, ...liveAt(now) }))
          .deletedCount === 1,
    )
  }

  putCard(id: string, card: SessionCard, expiresAt: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return this.#calls.attempt(async (signal) => {
      const set = { card, card_nonce: randomUUID(), expires_at: expiresAt, expiresAt: new Date(expiresAt) }
      const put = await this.#sessions.within(signal).updateOne({ _id: id, ...liveAt(now) }, { $set: set })
      if (put.matchedCount !== 1) return O.none
      return O.map(fromCheckoutSessionDocument)(O.fromNullable(await this.#sessions.within(signal).findOne({ _id: id })))
    })
  }

  /**
   * At most one caller gets a card, on MongoDB and on FerretDB alike, through the one write both
   * do atomically: an insert against a unique `_id`. A taker reads the session and clears its
   * card in one command (`findOneAndUpdate`, the document as it was), then inserts the use of the
   * card it read (`_id`: session id and the card's nonce, fresh for every card put); only the
   * taker that inserts it answers the card. On MongoDB the first command alone already hands a
   * card to one taker; FerretDB runs it as a read, then a write, so two takers may both read the
   * card, and the insert decides between them. Two round trips, where a read, the insert and a
   * clear of the card made three.
   *
   * A taker that dies between the two commands has cleared the card and answered nothing: the
   * card is gone unused, and the client sends it again. On FerretDB a card put between the
   * clear's read and write is cleared too (the client sends it again). The payment flow guards
   * on top of this: its transaction id derives from the session id, so two payments from one
   * session can never both be recorded.
   */
  takeCard(merchantAccountId: string, id: string, now: Date): TE.TaskEither<Unavailable, O.Option<CheckoutSessionRecord>> {
    return this.#calls.attempt(async (signal) => {
      const doc = await this.#sessions
        .within(signal)
        .findOneAndUpdate(
          { _id: id, merchant_account_id: merchantAccountId, ...liveAt(now), card: { $ne: null } },
          { $set: { card: null }, $unset: { card_nonce: '' } },
        )
      if (doc?.card == null || doc.card_nonce === undefined) return O.none
      try {
        // Kept as long as the session as it was read: by then its card is gone either way.
        await this.#uses.within(signal).insertOne({ _id: checkoutSessionUseId(id, doc.card_nonce), expiresAt: doc.expiresAt })
      } catch (e) {
        if (isDuplicateKey(e)) return O.none
        throw e
      }
      return O.some(fromCheckoutSessionDocument(doc))
    })
  }

  /** Expired sessions, card data and all, and the uses of their cards. Idempotent. */
  sweep(now: Date): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(async (signal) => {
      const expired = { expiresAt: { $lte: now } }
      const { deletedCount } = await this.#sessions.within(signal).deleteMany(expired)
      await this.#uses.within(signal).deleteMany(expired)
      return deletedCount
    })
  }
}
