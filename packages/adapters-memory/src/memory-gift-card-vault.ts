import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Duplicate,
  duplicate,
  GiftCard,
  GiftCardFilter,
  giftCardSortKey,
  GiftCardVault,
  Seek,
  Unavailable,
  VaultedGiftCard,
} from '@orka/domain'
import { atomically, keep } from './memory-support'
import { SortedIndex } from './sorted-index'

const slot = (merchantAccountId: string, fingerprint: string) => `${merchantAccountId}\u0000${fingerprint}`

export class MemoryGiftCardVault implements GiftCardVault {
  /** By (account, fingerprint): the uniqueness the port promises. */
  private readonly cards = new Map<string, VaultedGiftCard>()
  private readonly slotById = new Map<string, string>()
  /** Each account's cards in list order (newest last): pages and a buyer's newest cards seek instead of sorting. */
  private readonly listed = new Map<string, SortedIndex<VaultedGiftCard>>()

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return atomically(() => {
      const at = this.slotById.get(id)
      const c = at === undefined ? undefined : this.cards.get(at)
      return E.right(c?.card.merchant_account_id === merchantAccountId ? O.some(c) : O.none)
    })
  }

  findByFingerprint(merchantAccountId: string, fingerprint: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>> {
    return atomically(() => E.right(O.fromNullable(this.cards.get(slot(merchantAccountId, fingerprint)))))
  }

  insert(card: VaultedGiftCard): TE.TaskEither<Duplicate | Unavailable, void> {
    return atomically((): E.Either<Duplicate | Unavailable, void> => {
      const at = slot(card.card.merchant_account_id, card.fingerprint)
      const existing = this.cards.get(at)
      if (existing !== undefined) return E.left(duplicate('GiftCard', existing.card.id))
      const kept = keep(card)
      this.cards.set(at, kept)
      this.slotById.set(card.card.id, at)
      const account = this.listed.get(card.card.merchant_account_id) ?? new SortedIndex<VaultedGiftCard>((v) => giftCardSortKey(v.card))
      this.listed.set(card.card.merchant_account_id, account)
      account.put(kept)
      return E.right(undefined)
    })
  }

  list(merchantAccountId: string, filter: GiftCardFilter, seek: Seek): TE.TaskEither<Unavailable, readonly GiftCard[]> {
    return atomically(() => E.right(this.newestFirst(merchantAccountId, filter.buyer_id, seek).map((v) => v.card)))
  }

  forBuyer(merchantAccountId: string, buyerId: string, limit: number): TE.TaskEither<Unavailable, readonly VaultedGiftCard[]> {
    return atomically(() => E.right(this.newestFirst(merchantAccountId, buyerId, { direction: 'forward', from: O.none, limit })))
  }

  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => E.right(this.remove(merchantAccountId, id)))
  }

  recordUse(merchantAccountId: string, id: string, at: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const where = this.slotById.get(id)
      const c = where === undefined ? undefined : this.cards.get(where)
      if (where === undefined || c?.card.merchant_account_id !== merchantAccountId) return E.right(false)
      const used = keep({ ...c, card: { ...c.card, usage_count: c.card.usage_count + 1, last_used_at: at } })
      this.cards.set(where, used)
      this.listed.get(merchantAccountId)?.put(used)
      return E.right(true)
    })
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
    this.listed.get(merchantAccountId)?.remove(giftCardSortKey(c.card))
    return true
  }

  private newestFirst(merchantAccountId: string, buyerId: string | undefined, seek: Seek): VaultedGiftCard[] {
    const mine = (v: VaultedGiftCard) => buyerId === undefined || v.card.buyer?.id === buyerId
    return this.listed.get(merchantAccountId)?.seek('descending', seek, mine) ?? []
  }
}
