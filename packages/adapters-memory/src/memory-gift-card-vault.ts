import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  compareSortKeys,
  Duplicate,
  duplicate,
  GiftCard,
  GiftCardFilter,
  giftCardSortKey,
  GiftCardVault,
  Seek,
  seekIn,
  Unavailable,
  VaultedGiftCard,
} from '@orka/domain'
import { atomically, copy } from './memory-support'

const slot = (merchantAccountId: string, fingerprint: string) => `${merchantAccountId}\u0000${fingerprint}`

export class MemoryGiftCardVault implements GiftCardVault {
  /** By (account, fingerprint): the uniqueness the port promises. */
  private readonly cards = new Map<string, VaultedGiftCard>()
  private readonly slotById = new Map<string, string>()

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return atomically(() => {
      const at = this.slotById.get(id)
      const c = at === undefined ? undefined : this.cards.get(at)
      return E.right(c?.card.merchant_account_id === merchantAccountId ? O.some(copy(c)) : O.none)
    })
  }

  findByFingerprint(merchantAccountId: string, fingerprint: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return atomically(() => E.right(O.map(copy)(O.fromNullable(this.cards.get(slot(merchantAccountId, fingerprint))))))
  }

  insert(card: VaultedGiftCard): TE.TaskEither<Duplicate | Unavailable, void> {
    return atomically((): E.Either<Duplicate | Unavailable, void> => {
      const at = slot(card.card.merchant_account_id, card.fingerprint)
      const existing = this.cards.get(at)
      if (existing !== undefined) return E.left(duplicate('GiftCard', existing.card.id))
      this.cards.set(at, copy(card))
      this.slotById.set(card.card.id, at)
      return E.right(undefined)
    })
  }

  list(merchantAccountId: string, filter: GiftCardFilter, seek: Seek): TE.TaskEither<Unavailable, readonly GiftCard[]> {
    return atomically(() => {
      const wanted = [...this.cards.values()]
        .map((v) => v.card)
        .filter((c) => c.merchant_account_id === merchantAccountId && (filter.buyer_id === undefined || c.buyer?.id === filter.buyer_id))
      return E.right(seekIn(wanted, giftCardSortKey, 'descending', seek).map(copy))
    })
  }

  forBuyer(merchantAccountId: string, buyerId: string, limit: number): TE.TaskEither<Unavailable, readonly VaultedGiftCard[]> {
    return atomically(() => {
      const mine = [...this.cards.values()].filter((v) => v.card.merchant_account_id === merchantAccountId && v.card.buyer?.id === buyerId)
      const newestFirst = (a: VaultedGiftCard, b: VaultedGiftCard) => compareSortKeys(giftCardSortKey(b.card), giftCardSortKey(a.card))
      return E.right(mine.sort(newestFirst).slice(0, limit).map(copy))
    })
  }

  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => E.right(this.remove(merchantAccountId, id)))
  }

  deleteByBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, number> {
    return atomically(() => {
      const ids = [...this.cards.values()]
        .filter((v) => v.card.merchant_account_id === merchantAccountId && v.card.buyer?.id === buyerId)
        .map((v) => v.card.id)
      return E.right(ids.filter((id) => this.remove(merchantAccountId, id)).length)
    })
  }

  /** Drops the record itself (sealed number and PIN with it): nothing of the card is left. */
  private remove(merchantAccountId: string, id: string): boolean {
    const at = this.slotById.get(id)
    const c = at === undefined ? undefined : this.cards.get(at)
    if (at === undefined || c?.card.merchant_account_id !== merchantAccountId) return false
    this.cards.delete(at)
    this.slotById.delete(id)
    return true
  }
}
