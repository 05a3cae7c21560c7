import { CheckoutSessionRecord, SessionCard, SessionGiftCard, UNSET_SESSION_FIELDS } from '../checkout-sessions/checkout-session'
import { sessionPaymentMethod } from '../checkout-sessions/session-card'
import { fakeMac } from './doubles'
import { BASE_TIME, isoAt, MERCHANT_A, nextUuid } from './fixtures'

let sealed = 0

/** Card data as a session holds it (a visa card's); `sealed` is opaque to a store, distinct per call. */
export const aSessionCard = (o: Partial<SessionCard> = {}): SessionCard => ({
  sealed: `sealed-card-${++sealed}`,
  payment_method: sessionPaymentMethod(fakeMac(), '4111111111111111'),
  ...o,
})

/** A gift card as a session holds it (a 16-digit card ending in `last4`); `sealed_*` are opaque to a store, distinct per call. */
export const aSessionGiftCard = (o: Partial<SessionGiftCard> = {}): SessionGiftCard => {
  const n = ++sealed
  return {
    bin: '720000',
    sub_bin: '000',
    last4: String(2000 + (n % 8000)),
    amount: 500,
    sealed_number: `sealed-number-${n}`,
    sealed_pin: `sealed-pin-${n}`,
    ...o,
  }
}

/** Gift cards alone on a session, as Secure Fields put them when no card is needed. */
export const aSessionGiftCardsOnly = (giftCards: readonly SessionGiftCard[] = [aSessionGiftCard()]): SessionCard => ({
  sealed: null,
  payment_method: null,
  gift_cards: giftCards,
})

/** A session of `MERCHANT_A` created at `BASE_TIME`, live for an hour, without card data (as created now: paying under a full-entropy id). */
export const aCheckoutSessionRecord = (o: Partial<CheckoutSessionRecord> = {}): CheckoutSessionRecord => {
  const r: CheckoutSessionRecord = {
    id: nextUuid(),
    merchant_account_id: MERCHANT_A,
    created_at: BASE_TIME.toISOString(),
    expires_at: isoAt(3_600_000),
    ...UNSET_SESSION_FIELDS,
    card: null,
    full_transaction_id: true,
    ...o,
  }
  if (!CheckoutSessionRecord.is(r)) throw new Error(`fixture is not a valid CheckoutSessionRecord: ${JSON.stringify(r)}`)
  return r
}

/** A session with every field set, metadata keys that mean something to storage (`.`, `$`) included. */
export const aFullCheckoutSessionRecord = (o: Partial<CheckoutSessionRecord> = {}): CheckoutSessionRecord =>
  aCheckoutSessionRecord({
    cart_items: [
      { name: 'Joust Duffle Bag', quantity: 2, unit_amount: 1500, categories: ['bags'], product_type: 'physical', sku: 'a.b' },
      { name: 'Shipping', quantity: 1, unit_amount: 500, tax_exempt: true },
    ],
    // `__proto__` as an own key, as JSON.parse makes it.
    metadata: Object.fromEntries([
      ['source', 'test'],
      ['a.b', 'dotted'],
      ['$set', 'dollar'],
      ['__proto__', 'proto'],
    ]),
    buyer: {
      display_name: 'Ada Lovelace',
      external_identifier: 'buyer-1',
      billing_details: { first_name: 'Ada', email_address: 'ada@example.test', address: { country: 'GB', city: 'London' } },
      account_number: null,
    },
    amount: 3500,
    currency: 'EUR',
    payment_service_id: nextUuid(),
    ...o,
  })
