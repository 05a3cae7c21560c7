import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { UpdateFilter } from 'mongodb'
import { Duplicate, duplicate, GiftCard, GiftCardFilter, GiftCardVault, Seek, Unavailable, VaultedGiftCard } from '@orka/domain'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { keysetRead, ReadPlan } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'
import { Turns } from './turns'
import { fromVaultedGiftCardDocument, toVaultedGiftCardDocument, VaultedGiftCardDocument } from './vaulted-gift-card.document'

/** The query behind `list` (exported for the depth test's `explain`, not by the package index). */
export const giftCardListRead = (merchantAccountId: string, filter: GiftCardFilter, seek: Seek): ReadPlan => {
  const k = keysetRead('card.created_at', 'descending', seek)
  const scope: Record<string, unknown> = { merchant_account_id: merchantAccountId }
  if (filter.buyer_id !== undefined) scope['card.buyer.id'] = filter.buyer_id
  return { ...k, filter: { ...scope, ...k.filter } }
}

export class MongoGiftCardVault implements GiftCardVault {
  readonly #col: StoredCollection<VaultedGiftCardDocument>
  readonly #calls: StorageCalls
  readonly #uses = new Turns()

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = storedCollection(store, COLLECTIONS.vaultedGiftCards)
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromVaultedGiftCardDocument)(
        O.fromNullable(await this.#col.within(signal).findOne({ _id: id, merchant_account_id: merchantAccountId })),
      ),
    )
  }

  findByFingerprint(merchantAccountId: string, fingerprint: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromVaultedGiftCardDocument)(
        O.fromNullable(await this.#col.within(signal).findOne({ merchant_account_id: merchantAccountId, fingerprint })),
      ),
    )
  }

  /** Atomic through the unique (merchant_account_id, fingerprint) index: of racing inserts one wins. */
  insert(card: VaultedGiftCard): TE.TaskEither<Duplicate | Unavailable, void> {
    return this.#calls.attemptEither(async (signal): Promise<E.Either<Duplicate, void>> => {
      try {
        await this.#col.within(signal).insertOne(toVaultedGiftCardDocument(card))
        return E.right(undefined)
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
      const holder = await this.#col
        .within(signal)
        .findOne({ merchant_account_id: card.card.merchant_account_id, fingerprint: card.fingerprint }, { projection: { _id: 1 } })
      // No holder: the clash was on the card id itself.
      return E.left(duplicate('GiftCard', holder?._id ?? card.card.id))
    })
  }

  list(merchantAccountId: string, filter: GiftCardFilter, seek: Seek): TE.TaskEither<Unavailable, readonly GiftCard[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter: f, sort, limit } = giftCardListRead(merchantAccountId, filter, seek)
      return (await this.#col.within(signal).find(f).sort(sort).limit(limit).toArray()).map((d) => fromVaultedGiftCardDocument(d).card)
    })
  }

  /** Served by the `merchant_buyer_created` index, as a buyer-filtered list is. */
  forBuyer(merchantAccountId: string, buyerId: string, limit: number): TE.TaskEither<Unavailable, readonly VaultedGiftCard[]> {
    return this.#calls.attempt(async (signal) =>
      (
        await this.#col
          .within(signal)
          .find({ merchant_account_id: merchantAccountId, 'card.buyer.id': buyerId })
          .sort({ 'card.created_at': -1, _id: -1 })
          .limit(limit)
          .toArray()
      ).map(fromVaultedGiftCardDocument),
    )
  }

  /** Removes the document itself: the sealed number and PIN go with it. */
  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(
      async (signal) => (await this.#col.within(signal).deleteOne({ _id: id, merchant_account_id: merchantAccountId })).deletedCount === 1,
    )
  }

  /**
   * One `$inc` and `$set` on the card's document. MongoDB applies `$inc` atomically; FerretDB
   * 1.24 runs it as a read then a write, so uses of one card take turns within this process,
   * and only two instances recording a use of the same card at the same moment may count one
   * (a usage count, never a balance).
   */
  recordUse(merchantAccountId: string, id: string, at: string): TE.TaskEither<Unavailable, boolean> {
    // The driver's types accept no `$inc` of a field nested in `card` (its NotAcceptedFields): the shape is checked here instead.
    const used = { $inc: { 'card.usage_count': 1 }, $set: { 'card.last_used_at': at } } as unknown as UpdateFilter<VaultedGiftCardDocument>
    return this.#calls.attempt((signal) =>
      this.#uses.run(
        id,
        async () =>
          (await this.#col.within(signal).updateOne({ _id: id, merchant_account_id: merchantAccountId }, used)).matchedCount === 1,
      ),
    )
  }

  deleteByBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, number> {
    return this.#calls.attempt(
      async (signal) =>
        (await this.#col.within(signal).deleteMany({ merchant_account_id: merchantAccountId, 'card.buyer.id': buyerId })).deletedCount,
    )
  }
}
