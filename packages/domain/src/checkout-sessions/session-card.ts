import * as E from 'fp-ts/Either'
import { sealGiftCard } from '../gift-cards/gift-card'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { cardSummary } from '../cards/card-number'
import {
  CheckoutSessionCardFields,
  CheckoutSessionGiftCardFields,
  CheckoutSessionPaymentMethod,
  SealedCardData,
  SessionCard,
} from './checkout-session'
import { paymentCardFingerprint } from '../cards/card-details'

/** Card data lives this long after Secure Fields sent it: receipt of fields moves `expires_at` to now plus this. */
export const SESSION_CARD_TTL_MS = 5 * 60_000

/** What may be shown of a card on a session: scheme, first 6 and last 4 digits, and its fingerprint. */
export const sessionPaymentMethod = (mac: Mac, number: string): CheckoutSessionPaymentMethod => {
  const { bin, last4, scheme } = cardSummary(number)
  return {
    type: 'payment-method',
    method: 'card',
    id: null,
    label: last4,
    scheme,
    fingerprint: paymentCardFingerprint(mac, number),
    details: { bin, card_type: null },
  }
}

/** A stored payment method Secure Fields put on a session, with the security code sent for it (sealed, never kept past the payment). */
export interface StoredSessionCard {
  readonly stored: PaymentMethod
  readonly security_code: string | null
}

/** What may be shown of a stored payment method on a session: what its own view shows, with its id. */
const storedPaymentMethod = (m: PaymentMethod): CheckoutSessionPaymentMethod => ({
  type: 'payment-method',
  method: 'card',
  id: m.id,
  label: m.label ?? null,
  scheme: m.scheme ?? null,
  fingerprint: m.fingerprint ?? null,
  details: m.details ?? null,
})

/**
 * What Secure Fields sent, sealed: the card (AES-256-GCM through the `SecretBox`) as JSON
 * `SealedCardData`, each gift card's number and PIN as a payment's redemption keeps them, and
 * what may be shown of each.
 */
export const sealSessionCard = (
  deps: { box: SecretBox; mac: Mac },
  card: CheckoutSessionCardFields | StoredSessionCard | null,
  giftCards: readonly CheckoutSessionGiftCardFields[] = [],
): SessionCard => {
  const data: SealedCardData | null =
    card === null
      ? null
      : 'stored' in card
        ? { payment_method_id: card.stored.id, security_code: card.security_code }
        : { number: card.number, expiration_date: card.expiration_date, security_code: card.security_code ?? null }
  return {
    sealed: data === null ? null : deps.box.seal(JSON.stringify(data)),
    payment_method:
      card === null ? null : 'stored' in card ? storedPaymentMethod(card.stored) : sessionPaymentMethod(deps.mac, card.number),
    ...(giftCards.length === 0 ? {} : { gift_cards: giftCards.map((g) => ({ ...sealGiftCard(deps.box, g), amount: g.amount })) }),
  }
}

/**
 * The card a session holds, for the payment that takes it (`CheckoutSessionStore.takeCard`);
 * null when Secure Fields sent gift cards only. Throws when it does not open or decode: sealed
 * by another key or tampered with is a bug or an attack, not a client error (as `SecretBox.open`).
 */
export const openSessionCard = (box: SecretBox, card: SessionCard): SealedCardData | null => {
  if (card.sealed === null) return null
  const r = SealedCardData.decode(JSON.parse(box.open(card.sealed)))
  // The errors are not shown: they would quote the card.
  if (E.isLeft(r)) throw new Error('sealed card data of a checkout session does not decode')
  return r.right
}
