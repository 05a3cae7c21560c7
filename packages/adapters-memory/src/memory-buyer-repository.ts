import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Buyer, BuyerFilter, BuyerRepository, buyerSortKey, Duplicate, duplicate, Seek, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'
import { SortedIndex } from './sorted-index'

/** JavaScript's syntax characters, the only ones a Unicode-mode pattern may escape. */
const searchPattern = (search: string) => new RegExp(search.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'), 'iu')

const externalKey = (merchantAccountId: string, externalIdentifier: string) => `${merchantAccountId}\u0000${externalIdentifier}`

export class MemoryBuyerRepository implements BuyerRepository {
  private readonly buyers = new Map<string, Buyer>()
  /** (account, external_identifier) to buyer id: the uniqueness the port promises. */
  private readonly byExternal = new Map<string, string>()
  /** Each account's buyers in list order: a page seeks instead of sorting them all. */
  private readonly listed = new Map<string, SortedIndex<Buyer>>()

  create(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, void> {
    return atomically((): E.Either<Duplicate | Unavailable, void> => {
      if (this.buyers.has(buyer.id)) return E.left(duplicate('Buyer', buyer.id))
      const ext = buyer.external_identifier
      if (ext != null) {
        const existing = this.byExternal.get(externalKey(buyer.merchant_account_id, ext))
        if (existing !== undefined) return E.left(duplicate('Buyer', existing))
        this.byExternal.set(externalKey(buyer.merchant_account_id, ext), buyer.id)
      }
      this.put(buyer)
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

  update(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, boolean> {
    return atomically((): E.Either<Duplicate | Unavailable, boolean> => {
      const current = this.buyers.get(buyer.id)
      if (current?.merchant_account_id !== buyer.merchant_account_id) return E.right(false)
      const [before, after] = [current.external_identifier, buyer.external_identifier]
      if (before !== after) {
        if (after != null) {
          const holder = this.byExternal.get(externalKey(buyer.merchant_account_id, after))
          if (holder !== undefined) return E.left(duplicate('Buyer', holder))
          this.byExternal.set(externalKey(buyer.merchant_account_id, after), buyer.id)
        }
        if (before != null) this.byExternal.delete(externalKey(buyer.merchant_account_id, before))
      }
      this.put(buyer)
      return E.right(true)
    })
  }

  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const current = this.buyers.get(id)
      if (current?.merchant_account_id !== merchantAccountId) return E.right(false)
      if (current.external_identifier != null) this.byExternal.delete(externalKey(merchantAccountId, current.external_identifier))
      this.buyers.delete(id)
      this.listed.get(merchantAccountId)?.remove(buyerSortKey(current))
      return E.right(true)
    })
  }

  list(merchantAccountId: string, filter: BuyerFilter, seek: Seek): TE.TaskEither<Unavailable, readonly Buyer[]> {
    return atomically(() => {
      const pattern = filter.search === undefined ? undefined : searchPattern(filter.search)
      const wanted = (b: Buyer) =>
        (filter.external_identifier === undefined || b.external_identifier === filter.external_identifier) &&
        (pattern === undefined || pattern.test(b.display_name ?? '') || pattern.test(b.external_identifier ?? ''))
      return E.right(this.listed.get(merchantAccountId)?.seek('descending', seek, wanted) ?? [])
    })
  }

  private find(merchantAccountId: string, id: string): O.Option<Buyer> {
    const b = this.buyers.get(id)
    return b?.merchant_account_id === merchantAccountId ? O.some(b) : O.none
  }

  private put(buyer: Buyer): void {
    const kept = keep(buyer)
    this.buyers.set(buyer.id, kept)
    const account = this.listed.get(buyer.merchant_account_id) ?? new SortedIndex<Buyer>(buyerSortKey)
    this.listed.set(buyer.merchant_account_id, account)
    account.put(kept)
  }
}
