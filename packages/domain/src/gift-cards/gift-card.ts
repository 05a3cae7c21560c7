import { SortKey } from '../pagination/page'
import { SecretBox } from '../shared/crypto.ports'
import { GiftCard } from './gift-card.codecs'

/** The parts of a card number that may be shown: never more than bin, sub-bin and last four. */
export const splitNumber = (number: string) => ({
  bin: number.slice(0, 6),
  sub_bin: number.slice(6, 9),
  last4: number.slice(-4),
})

/** A card's number and PIN sealed one by one, as the vault and a payment's redemptions keep them, with what may be shown of it. */
export const sealGiftCard = (box: SecretBox, card: { readonly number: string; readonly pin: string }) => ({
  ...splitNumber(card.number),
  sealed_number: box.seal(card.number),
  sealed_pin: box.seal(card.pin),
})

/** JSON with sorted keys: the same request in any key order has one fingerprint. */
export const canonicalJson = (v: unknown): string =>
  JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  )

/** The position of a card in the vault's lists: newest first, the id breaking ties. */
export const giftCardSortKey = (c: GiftCard): SortKey => [c.created_at, c.id]
