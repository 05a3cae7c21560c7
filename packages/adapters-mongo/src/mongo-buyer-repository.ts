import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Buyer, BuyerFilter, BuyerRepository, Duplicate, duplicate, Seek, Unavailable } from '@orka/domain'
import {
  BuyerDocument,
  ExternalIdentifierClaimDocument,
  externalIdentifierClaimId,
  fromBuyerDocument,
  fromExternalIdentifierClaimDocument,
  toBuyerDocument,
} from './buyer.document'
import { storedCollection, StoredCollection } from './mongo-collection'
import { MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey } from './duplicate-key'
import { keysetRead, ReadPlan } from './keyset-read'
import { storageCalls, StorageCalls } from './storage-calls'

export interface MongoBuyerRepositoryOptions {
  /**
   * A claim on an external identifier whose buyer still does not exist after this long was left
   * by a process that died between the two inserts; it is then taken over. Default 60 s.
   */
  readonly abandonedClaimMs?: number
}

/**
 * The text as a pattern matching itself: every ASCII punctuation character escaped, which is
 * valid and literal in MongoDB's PCRE and in FerretDB's Go regular expressions alike.
 */
export const literalPattern = (text: string): string => text.replace(/[!-/:-@[-`{-~]/g, '\\$&')

/** The query behind `list` (exported for the depth test's `explain`, not by the package index). */
export const buyerListRead = (merchantAccountId: string, filter: BuyerFilter, seek: Seek): ReadPlan => {
  const k = keysetRead('created_at', 'descending', seek)
  const scope: Record<string, unknown> = { merchant_account_id: merchantAccountId }
  if (filter.external_identifier !== undefined) scope.external_identifier = filter.external_identifier
  // A contains-search cannot use an index: it filters the account's buyers as the index walks them.
  if (filter.search !== undefined) {
    const contains = { $regex: literalPattern(filter.search), $options: 'i' }
    scope.$and = [{ $or: [{ display_name: contains }, { external_identifier: contains }] }]
  }
  return { ...k, filter: { ...scope, ...k.filter } }
}

export class MongoBuyerRepository implements BuyerRepository {
  readonly #buyers: StoredCollection<BuyerDocument>
  readonly #claims: StoredCollection<ExternalIdentifierClaimDocument>
  readonly #abandonedClaimMs: number
  readonly #calls: StorageCalls

  constructor(store: MongoStore, options: MongoBuyerRepositoryOptions = {}) {
    this.#calls = storageCalls(store)
    this.#buyers = storedCollection(store, COLLECTIONS.buyers)
    this.#claims = storedCollection(store, COLLECTIONS.buyerExternalIdentifiers)
    this.#abandonedClaimMs = options.abandonedClaimMs ?? 60_000
  }

  /**
   * Unique `external_identifier` per account without transactions: first insert a claim whose
   * `_id` is (account, external_identifier), which exactly one racing creation wins, then the
   * buyer. A loser reads the claim to name the holder. The claim is rolled back when the buyer
   * insert fails.
   */
  create(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, void> {
    return this.#calls.attemptEither(async (signal): Promise<E.Either<Duplicate, void>> => {
      const ext = buyer.external_identifier
      if (ext == null) return this.insertBuyer(signal, buyer)
      const claimId = externalIdentifierClaimId(buyer.merchant_account_id, ext)
      const claimed = await this.claim(signal, buyer.merchant_account_id, ext, buyer.id)
      if (E.isLeft(claimed)) return claimed
      // Only a claim this call inserted is taken back: a claim it found already held for this buyer id
      // (the same buyer created at once elsewhere, as two instances seeding do) is the winner's.
      const release = () =>
        claimed.right ? this.#claims.within(signal).deleteOne({ _id: claimId, buyer_id: buyer.id }) : Promise.resolve()
      try {
        const created = await this.insertBuyer(signal, buyer)
        // The same buyer inserted by a racing creation that found this claim held: the claim is its own.
        if (E.isLeft(created) && !(await this.holds(signal, buyer.id, buyer.merchant_account_id, ext))) await release()
        return created
      } catch (e) {
        await release().catch(() => undefined)
        throw e
      }
    })
  }

  /**
   * Claims `ext` in the account for `buyerId`: right(true) when this call inserted the claim,
   * right(false) when the buyer held it already (left by an update that died), left naming the
   * holder otherwise. An abandoned claim is taken over.
   */
  private async claim(signal: AbortSignal, merchantAccountId: string, ext: string, buyerId: string): Promise<E.Either<Duplicate, boolean>> {
    const claimId = externalIdentifierClaimId(merchantAccountId, ext)
    for (let i = 0; i < 5; i++) {
      try {
        await this.#claims.within(signal).insertOne({ _id: claimId, buyer_id: buyerId, claimed_at: new Date() })
        return E.right(true)
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
        const raw = await this.#claims.within(signal).findOne({ _id: claimId })
        if (raw === null) continue
        const claim = fromExternalIdentifierClaimDocument(raw)
        if (claim.buyer_id === buyerId) return E.right(false)
        if (await this.abandoned(signal, merchantAccountId, ext, claim.buyer_id, claim.claimed_at)) {
          await this.#claims.within(signal).deleteOne({ _id: claimId, buyer_id: claim.buyer_id })
          continue
        }
        return E.left(duplicate('Buyer', claim.buyer_id))
      }
    }
    throw new Error(`claiming external identifier for buyer ${buyerId} did not settle after 5 attempts`)
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<Buyer>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromBuyerDocument)(
        O.fromNullable(await this.#buyers.within(signal).findOne({ _id: id, merchant_account_id: merchantAccountId })),
      ),
    )
  }

  findByExternalIdentifier(merchantAccountId: string, externalIdentifier: string): TE.TaskEither<Unavailable, O.Option<Buyer>> {
    return this.#calls.attempt(async (signal) =>
      O.map(fromBuyerDocument)(
        O.fromNullable(
          await this.#buyers.within(signal).findOne({ merchant_account_id: merchantAccountId, external_identifier: externalIdentifier }),
        ),
      ),
    )
  }

  /**
   * A changed `external_identifier` is claimed before the buyer shows it and released after the
   * buyer no longer does, so no two buyers ever hold one value. The buyer is replaced only if its
   * stored identifier is still the one read: another update that changed it meanwhile makes
   * this one start again (and give back what it claimed), so claims follow the stored buyers.
   */
  update(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, boolean> {
    return this.#calls.attemptEither(async (signal): Promise<E.Either<Duplicate, boolean>> => {
      const account = buyer.merchant_account_id
      for (let i = 0; i < 5; i++) {
        const raw = await this.#buyers.within(signal).findOne({ _id: buyer.id, merchant_account_id: account })
        if (raw === null) return E.right(false)
        const before = fromBuyerDocument(raw).external_identifier
        const after = buyer.external_identifier
        const claimed = before !== after && after != null ? await this.claim(signal, account, after, buyer.id) : E.right(false)
        if (E.isLeft(claimed)) return claimed
        const release = async () => {
          if (claimed.right && after != null)
            await this.#claims.within(signal).deleteOne({ _id: externalIdentifierClaimId(account, after), buyer_id: buyer.id })
        }
        let replaced: boolean
        try {
          const { _id, ...fields } = toBuyerDocument(buyer)
          const r = await this.#buyers.within(signal).replaceOne({ _id, merchant_account_id: account, external_identifier: before }, fields)
          replaced = r.matchedCount === 1
        } catch (e) {
          await release().catch(() => undefined)
          throw e
        }
        if (!replaced) {
          await release()
          continue
        }
        if (before !== after && before != null)
          await this.#claims.within(signal).deleteOne({ _id: externalIdentifierClaimId(account, before), buyer_id: buyer.id })
        return E.right(true)
      }
      throw new Error(`updating buyer ${buyer.id} did not settle after 5 attempts`)
    })
  }

  /** The buyer first, then its claim: the identifier is never free while a buyer shows it. */
  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return this.#calls.attempt(async (signal) => {
      const raw = await this.#buyers.within(signal).findOne({ _id: id, merchant_account_id: merchantAccountId })
      if (raw === null) return false
      const { deletedCount } = await this.#buyers.within(signal).deleteOne({ _id: id, merchant_account_id: merchantAccountId })
      if (deletedCount !== 1) return false
      const ext = fromBuyerDocument(raw).external_identifier
      if (ext != null) await this.#claims.within(signal).deleteOne({ _id: externalIdentifierClaimId(merchantAccountId, ext), buyer_id: id })
      return true
    })
  }

  list(merchantAccountId: string, filter: BuyerFilter, seek: Seek): TE.TaskEither<Unavailable, readonly Buyer[]> {
    return this.#calls.attempt(async (signal) => {
      if (seek.limit < 1) return []
      const { filter: f, sort, limit } = buyerListRead(merchantAccountId, filter, seek)
      return (await this.#buyers.within(signal).find(f).sort(sort).limit(limit).toArray()).map(fromBuyerDocument)
    })
  }

  private async insertBuyer(signal: AbortSignal, buyer: Buyer): Promise<E.Either<Duplicate, void>> {
    try {
      await this.#buyers.within(signal).insertOne(toBuyerDocument(buyer))
      return E.right(undefined)
    } catch (e) {
      if (isDuplicateKey(e)) return E.left(duplicate('Buyer', buyer.id))
      throw e
    }
  }

  /**
   * A claim whose buyer does not show the identifier (never written, deleted, or changed by a
   * process that died before releasing it): old enough that no creation or update can still be
   * in flight with it.
   */
  private async abandoned(signal: AbortSignal, merchantAccountId: string, ext: string, buyerId: string, claimedAt: Date): Promise<boolean> {
    return Date.now() - claimedAt.getTime() >= this.#abandonedClaimMs && !(await this.holds(signal, buyerId, merchantAccountId, ext))
  }

  /** Whether the buyer exists and shows the identifier. */
  private async holds(signal: AbortSignal, buyerId: string, merchantAccountId: string, ext: string): Promise<boolean> {
    const holds = { _id: buyerId, merchant_account_id: merchantAccountId, external_identifier: ext }
    return (await this.#buyers.within(signal).countDocuments(holds, { limit: 1 })) > 0
  }
}
