import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Collection } from 'mongodb'
import { Buyer, BuyerFilter, BuyerRepository, Duplicate, duplicate, Seek, Unavailable } from '@orka/domain'
import {
  BuyerDocument,
  ExternalIdentifierClaimDocument,
  externalIdentifierClaimId,
  fromBuyerDocument,
  fromExternalIdentifierClaimDocument,
  toBuyerDocument,
} from './buyer.document'
import { dbOf, MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey, keysetRead, ReadPlan, storageCalls, StorageCalls } from './mongo-support'

export interface MongoBuyerRepositoryOptions {
  /**
   * A claim on an external identifier whose buyer still does not exist after this long was left
   * by a process that died between the two inserts; it is then taken over. Default 60 s.
   */
  readonly abandonedClaimMs?: number
}

/** The query behind `list` (exported for the depth test's `explain`, not by the package index). */
export const buyerListRead = (merchantAccountId: string, filter: BuyerFilter, seek: Seek): ReadPlan => {
  const k = keysetRead('created_at', 'descending', seek)
  const scope: Record<string, unknown> = { merchant_account_id: merchantAccountId }
  if (filter.external_identifier !== undefined) scope.external_identifier = filter.external_identifier
  return { ...k, filter: { ...scope, ...k.filter } }
}

export class MongoBuyerRepository implements BuyerRepository {
  readonly #buyers: Collection<BuyerDocument>
  readonly #claims: Collection<ExternalIdentifierClaimDocument>
  readonly #abandonedClaimMs: number
  readonly #calls: StorageCalls

  constructor(store: MongoStore, options: MongoBuyerRepositoryOptions = {}) {
    this.#calls = storageCalls(store)
    const db = dbOf(store)
    this.#buyers = db.collection(COLLECTIONS.buyers)
    this.#claims = db.collection(COLLECTIONS.buyerExternalIdentifiers)
    this.#abandonedClaimMs = options.abandonedClaimMs ?? 60_000
  }

  /**
   * Unique `external_identifier` per account without transactions: first insert a claim whose
   * `_id` is (account, external_identifier), which exactly one racing creation wins, then the
   * buyer. A loser reads the claim to name the holder. The claim is rolled back when the buyer
   * insert fails.
   */
  create(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, void> {
    return this.#calls.attemptEither(async (): Promise<E.Either<Duplicate, void>> => {
      const ext = buyer.external_identifier
      if (ext == null) return this.insertBuyer(buyer)
      const claimId = externalIdentifierClaimId(buyer.merchant_account_id, ext)
      for (let i = 0; i < 5; i++) {
        try {
          await this.#claims.insertOne({ _id: claimId, buyer_id: buyer.id, claimed_at: new Date() })
        } catch (e) {
          if (!isDuplicateKey(e)) throw e
          const raw = await this.#claims.findOne({ _id: claimId })
          if (raw === null) continue
          const claim = fromExternalIdentifierClaimDocument(raw)
          if (await this.abandoned(claim.buyer_id, claim.claimed_at)) {
            await this.#claims.deleteOne({ _id: claimId, buyer_id: claim.buyer_id })
            continue
          }
          return E.left(duplicate('Buyer', claim.buyer_id))
        }
        try {
          const created = await this.insertBuyer(buyer)
          if (E.isLeft(created)) await this.#claims.deleteOne({ _id: claimId, buyer_id: buyer.id })
          return created
        } catch (e) {
          await this.#claims.deleteOne({ _id: claimId, buyer_id: buyer.id }).catch(() => undefined)
          throw e
        }
      }
      throw new Error(`claiming external identifier for buyer ${buyer.id} did not settle after 5 attempts`)
    })
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<Buyer>> {
    return this.#calls.attempt(async () =>
      O.map(fromBuyerDocument)(O.fromNullable(await this.#buyers.findOne({ _id: id, merchant_account_id: merchantAccountId }))),
    )
  }

  findByExternalIdentifier(merchantAccountId: string, externalIdentifier: string): TE.TaskEither<Unavailable, O.Option<Buyer>> {
    return this.#calls.attempt(async () =>
      O.map(fromBuyerDocument)(
        O.fromNullable(await this.#buyers.findOne({ merchant_account_id: merchantAccountId, external_identifier: externalIdentifier })),
      ),
    )
  }

  list(merchantAccountId: string, filter: BuyerFilter, seek: Seek): TE.TaskEither<Unavailable, readonly Buyer[]> {
    return this.#calls.attempt(async () => {
      if (seek.limit < 1) return []
      const { filter: f, sort, limit } = buyerListRead(merchantAccountId, filter, seek)
      return (await this.#buyers.find(f).sort(sort).limit(limit).toArray()).map(fromBuyerDocument)
    })
  }

  private async insertBuyer(buyer: Buyer): Promise<E.Either<Duplicate, void>> {
    try {
      await this.#buyers.insertOne(toBuyerDocument(buyer))
      return E.right(undefined)
    } catch (e) {
      if (isDuplicateKey(e)) return E.left(duplicate('Buyer', buyer.id))
      throw e
    }
  }

  /** A claim whose buyer was never written: old enough that its creation cannot still be in flight. */
  private async abandoned(buyerId: string, claimedAt: Date): Promise<boolean> {
    if (Date.now() - claimedAt.getTime() < this.#abandonedClaimMs) return false
    return (await this.#buyers.countDocuments({ _id: buyerId }, { limit: 1 })) === 0
  }
}
