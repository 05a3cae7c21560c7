import * as t from 'io-ts'
import { CheckoutSessionRecord, SessionCard } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'
import { compositeId } from './text-escaping'

/**
 * A session with its id as `_id`. `expiresAt` is `expires_at` as a date, for the live filter,
 * the sweep and the TTL index. Metadata keys are the merchant's own text, which may hold `.`
 * or start with `$` (field paths and operators to the server): they are stored as a list of
 * pairs, never as field names. `card_nonce` is drawn afresh for each card put on the session:
 * it names that card in the use that takes it (see `MongoCheckoutSessionStore.takeCard`).
 */
export interface CheckoutSessionDocument extends Doc {
  merchant_account_id: string
  created_at: string
  expires_at: string
  expiresAt: Date
  metadata: { key: string; value: string }[] | null
  card: SessionCard | null
  card_nonce?: string
  full_transaction_id?: true
}

/** One taking of one card: inserting it is what lets exactly one caller have the card. */
export interface CheckoutSessionUseDocument extends Doc {
  expiresAt: Date
}

export const checkoutSessionUseId = (sessionId: string, cardNonce: string): string => compositeId(sessionId, cardNonce)

const toPairs = (m: Readonly<Record<string, string>> | null) =>
  m === null ? null : Object.entries(m).map(([key, value]) => ({ key, value }))
const Pairs = t.array(t.type({ key: t.string, value: t.string }))

/** The fields `update` replaces: all but the id, the account, the creation time and the card. */
export const sessionFieldsOf = (r: CheckoutSessionRecord) => ({
  expires_at: r.expires_at,
  expiresAt: new Date(r.expires_at),
  cart_items: r.cart_items,
  metadata: toPairs(r.metadata),
  buyer: r.buyer,
  amount: r.amount,
  currency: r.currency,
  payment_service_id: r.payment_service_id,
})

export const toCheckoutSessionDocument = (r: CheckoutSessionRecord): CheckoutSessionDocument => ({
  _id: r.id,
  merchant_account_id: r.merchant_account_id,
  created_at: r.created_at,
  ...sessionFieldsOf(r),
  card: r.card,
  ...(r.full_transaction_id === undefined ? {} : { full_transaction_id: r.full_transaction_id }),
})

export const fromCheckoutSessionDocument = decoder(COLLECTIONS.checkoutSessions, CheckoutSessionRecord, (d) => {
  const fields = pick(d, CheckoutSessionRecord.types.flatMap(fieldsOf))
  // Object.fromEntries makes `__proto__` an own key, as JSON.parse did when the merchant sent it.
  const metadata = Pairs.is(d.metadata) ? Object.fromEntries(d.metadata.map((p) => [p.key, p.value])) : d.metadata
  return { ...fields, id: d._id, metadata }
})
