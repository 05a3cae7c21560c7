import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Buyer, BuyerFilter, BuyerRepository, buyerSortKey, Duplicate, duplicate, Seek, seekIn, Unavailable } from '@orka/domain'
import { atomically, copy } from './memory-support'

const externalKey = (merchantAccountId: string, externalIdentifier: string) => `${merchantAccountId}\u0000${externalIdentifier}`

export class MemoryBuyerRepository implements BuyerRepository {
  private readonly buyers = new Map<string, Buyer>()
  /** (account, external_identifier) to buyer id: the uniqueness the port promises. */
  private readonly byExternal = new Map<string, string>()

  create(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, void> {
    return atomically((): E.Either<Duplicate | Unavailable, void> => {
      if (this.buyers.has(buyer.id)) return E.left(duplicate('Buyer', buyer.id))
      const ext = buyer.external_identifier
      if (ext != null) {
        const existing = this.byExternal.get(externalKey(buyer.merchant_account_id, ext))
        if (existing !== undefined) return E.left(duplicate('Buyer', existing))
        this.byExternal.set(externalKey(buyer.merchant_account_id, ext), buyer.id)
      }
      this.buyers.set(buyer.id, copy(buyer))
      return E.right(undefined)
    })
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<Buyer>> {
    return atomically(() => E.right(this.find(merchantAccountId, id)))
  }

  findByExternalIdentifier(merchantAccountId: string, externalIdentifier: string): TE.TaskEither<Unavailable, O.Option<Buyer>> {
    return atomically(() => {
      const id = this.byExternal.get(externalKey(merchantAccountId, externalIdentifier))
      return E.right(id === undefined ? O.none : this.find(merchantAccountId, id))
    })
  }

  list(merchantAccountId: string, filter: BuyerFilter, seek: Seek): TE.TaskEither<Unavailable, readonly Buyer[]> {
    return atomically(() => {
      const wanted = [...this.buyers.values()].filter(
        (b) =>
          b.merchant_account_id === merchantAccountId &&
          (filter.external_identifier === undefined || b.external_identifier === filter.external_identifier),
      )
      return E.right(seekIn(wanted, buyerSortKey, 'descending', seek).map(copy))
    })
  }

  private find(merchantAccountId: string, id: string): O.Option<Buyer> {
    const b = this.buyers.get(id)
    return b?.merchant_account_id === merchantAccountId ? O.some(copy(b)) : O.none
  }
}
