import { Mac } from '../shared/crypto.ports'
import { macUuid } from '../shared/mac-uuid'

const mac = (m: Mac, sessionId: string) => m.mac('checkout-session-transaction', sessionId)

/**
 * The id of the one transaction a checkout session pays: a version 4 UUID whose 122 random bits
 * are the first bytes of the session's MAC, so that a session pays once whoever races for it
 * (version 0 of that id is one insert) and two sessions collide as rarely as two random UUIDs.
 */
export const sessionTransactionId = (m: Mac, sessionId: string): string => macUuid(m, 'checkout-session-transaction', sessionId)

/**
 * The id sessions created before full-entropy ids paid under: the hex letters and digits of the
 * base64url MAC, padded with `0` (about 52 random bits, so it could collide). Only read, never
 * written: a session without `full_transaction_id` may have paid under it
 * (`CheckoutSessionRecord`), and a retried request may have recorded it.
 */
export const legacySessionTransactionId = (m: Mac, sessionId: string): string => {
  const h = mac(m, sessionId)
    .replace(/[^0-9a-f]/gi, '')
    .padEnd(32, '0')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`.toLowerCase()
}
