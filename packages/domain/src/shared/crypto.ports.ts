import { token } from './token'

/**
 * Keyed message authentication (HMAC-SHA256 or equal). `purpose` separates key uses, so a
 * cursor MAC can never stand in for a card fingerprint. Output is base64url, deterministic.
 */
export interface Mac {
  mac(purpose: MacPurpose, data: string): string
}
export type MacPurpose =
  | 'cursor'
  | 'card-fingerprint'
  | 'gift-card-ledger'
  | 'payment-card-fingerprint'
  | 'idempotency-fingerprint'
  | 'token-hash'
  | 'checkout-session-transaction'
  | 'audit-witness'
  | 'webhook-delivery'
export const Mac = token<Mac>('Mac')

/** Authenticated encryption of secrets at rest (AES-256-GCM). Sealed values are opaque strings. */
export interface SecretBox {
  seal(plaintext: string): string
  /** Throws when the value was not sealed by this key: that is a bug or tampering, not a client error. */
  open(sealed: string): string
}
export const SecretBox = token<SecretBox>('SecretBox')
