import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Collection } from 'mongodb'
import { Duplicate, duplicate, GiftCardVault, Unavailable, VaultedGiftCard } from '@orka/domain'
import { dbOf, MongoStore } from './mongo-database'
import { COLLECTIONS } from './mongo-schema'
import { isDuplicateKey, storageCalls, StorageCalls } from './mongo-support'
import { fromVaultedGiftCardDocument, toVaultedGiftCardDocument, VaultedGiftCardDocument } from './vaulted-gift-card.document'

export class MongoGiftCardVault implements GiftCardVault {
  readonly #col: Collection<VaultedGiftCardDocument>
  readonly #calls: StorageCalls

  constructor(store: MongoStore) {
    this.#calls = storageCalls(store)
    this.#col = dbOf(store).collection(COLLECTIONS.vaultedGiftCards)
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return this.#calls.attempt(async () =>
      O.map(fromVaultedGiftCardDocument)(O.fromNullable(await this.#col.findOne({ _id: id, merchant_account_id: merchantAccountId }))),
    )
  }

  findByFingerprint(merchantAccountId: string, fingerprint: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return this.#calls.attempt(async () =>
      O.map(fromVaultedGiftCardDocument)(O.fromNullable(await this.#col.findOne({ merchant_account_id: merchantAccountId, fingerprint }))),
    )
  }

  /** Atomic through the unique (merchant_account_id, fingerprint) index: of racing inserts one wins. */
  insert(card: VaultedGiftCard): TE.TaskEither<Duplicate | Unavailable, void> {
    return this.#calls.attemptEither(async (): Promise<E.Either<Duplicate, void>> => {
      try {
        await this.#col.insertOne(toVaultedGiftCardDocument(card))
        return E.right(undefined)
      } catch (e) {
        if (!isDuplicateKey(e)) throw e
      }
      const holder = await this.#col.findOne(
        { merchant_account_id: card.card.merchant_account_id, fingerprint: card.fingerprint },
        { projection: { _id: 1 } },
      )
      // No holder: the clash was on the card id itself.
      return E.left(duplicate('GiftCard', holder?._id ?? card.card.id))
    })
  }
}
