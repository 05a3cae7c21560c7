import { Mac } from '../shared/crypto.ports'

/** A card as a card service needs it; it never leaves the call (not logged, not stored by the connector). */
export interface CardDetails {
  readonly number: string
  /** `MM/YY`. */
  readonly expirationDate: string
  readonly securityCode: string | null
}

/**
 * The keyed fingerprint of a payment card number: stable per number across sessions and
 * instances sharing the key, useless without it, and never comparable with a gift card's
 * (another purpose, so another key).
 */
export const paymentCardFingerprint = (mac: Mac, number: string): string => mac.mac('payment-card-fingerprint', number)
