import * as t from 'io-ts'
import { DateTime } from '../buyers/buyer'
import { GiftCardRequest } from '../gift-cards/gift-card.codecs'
import {
  boundedList,
  boundedString,
  canonicalUuid,
  closed,
  intRange,
  literal,
  nullable,
  Refined,
  str,
  tagged,
  uuid,
} from '../shared/codecs'
import { CardScheme, PaymentMethodDetailsCard } from '../cards/card.codecs'
import { unsupported } from '../shared/codecs/unsupported'
import { GuestBuyer } from '../buyers/guest-buyer'
import { Amount, CartItems, Currency, MAX_AMOUNT, Metadata } from '../order/order.codecs'
import { MAX_TRANSACTION_GIFT_CARDS } from '../cards/tender-rules'
import { CardNumber, ExpirationDate, SecurityCode } from '../cards/card.codecs'

/** What a checkout session holds for the payment to come (all optional: a session may start empty). */
const sessionFields = {
  cart_items: nullable(CartItems),
  metadata: nullable(Metadata),
  buyer: nullable(GuestBuyer),
  amount: nullable(Amount),
  currency: nullable(Currency),
  payment_service_id: nullable(canonicalUuid),
}

/** A session's own fields before any is set. */
export const UNSET_SESSION_FIELDS = {
  cart_items: null,
  metadata: null,
  buyer: null,
  amount: null,
  currency: null,
  payment_service_id: null,
} as const

export const MIN_EXPIRES_IN_S = 3600
export const MAX_EXPIRES_IN_S = 86400

export const CheckoutSessionCreate = closed(
  'CheckoutSessionCreate',
  {},
  {
    ...sessionFields,
    // Airline data is not offered: accepted by the schema, refused (400) when set (`unsupportedSessionFields`).
    airline: unsupported,
    expires_in: intRange('expires_in', MIN_EXPIRES_IN_S, MAX_EXPIRES_IN_S),
  },
)
export type CheckoutSessionCreate = t.TypeOf<typeof CheckoutSessionCreate>

/** `PUT`: the fields given replace the session's, the others stay. */
export const CheckoutSessionUpdate = CheckoutSessionCreate
export type CheckoutSessionUpdate = CheckoutSessionCreate

export const CheckoutSessionCardFields = closed(
  'CheckoutSessionCardFields',
  { method: literal('card'), number: CardNumber, expiration_date: ExpirationDate },
  { security_code: nullable(SecurityCode) },
)
export type CheckoutSessionCardFields = t.TypeOf<typeof CheckoutSessionCardFields>

/** A gift card Secure Fields send: its number and PIN as the gift card routes take them, and what it is to pay. */
export const CheckoutSessionGiftCardFields = closed('CheckoutSessionGiftCardFields', {
  ...GiftCardRequest.required,
  amount: intRange('amount', 1, MAX_AMOUNT),
})
export type CheckoutSessionGiftCardFields = t.TypeOf<typeof CheckoutSessionGiftCardFields>

const FieldsUpdate = closed(
  'CheckoutSessionFieldsUpdate',
  {},
  {
    payment_method: nullable(
      tagged('CheckoutSessionFieldsPaymentMethod', 'method', {
        card: CheckoutSessionCardFields,
        id: closed(
          'CheckoutSessionStoredFields',
          { method: literal('id'), id: boundedString('id', { min: 1, max: 200 }) },
          {
            security_code: nullable(SecurityCode),
          },
        ),
      }),
    ),
    gift_cards: nullable(boundedList(CheckoutSessionGiftCardFields, MAX_TRANSACTION_GIFT_CARDS)),
  },
)

/**
 * What Secure Fields send: a card (or a stored payment method by `id`, with the security code
 * typed for it), gift cards, or both, never shown again.
 */
export const CheckoutSessionFields = new Refined(FieldsUpdate, [
  {
    description: 'A `payment_method` or `gift_cards` is required.',
    check: (a) =>
      a.payment_method == null && a.gift_cards == null
        ? { path: ['payment_method'], msg: 'a `payment_method` or `gift_cards` is required' }
        : undefined,
  },
  {
    description: '`gift_cards`, when given, holds at least one gift card.',
    check: (a) => (a.gift_cards?.length === 0 ? { path: ['gift_cards'], msg: '`gift_cards` holds at least one gift card' } : undefined),
  },
])
export type CheckoutSessionFields = t.TypeOf<typeof CheckoutSessionFields>

/** The card on a session, as far as it may be shown. */
export const CheckoutSessionPaymentMethod = closed(
  'CheckoutSessionPaymentMethod',
  { type: literal('payment-method'), method: literal('card') },
  {
    id: nullable(str),
    label: nullable(str),
    scheme: nullable(CardScheme),
    fingerprint: nullable(str),
    details: nullable(PaymentMethodDetailsCard),
  },
)
export type CheckoutSessionPaymentMethod = t.TypeOf<typeof CheckoutSessionPaymentMethod>

/** A gift card on a session, as far as it may be shown: no more than a payment's redemption shows of it, and its amount. */
export const CheckoutSessionGiftCard = closed('CheckoutSessionGiftCard', {
  bin: str,
  sub_bin: str,
  last4: str,
  amount: intRange('amount', 1, MAX_AMOUNT),
})
export type CheckoutSessionGiftCard = t.TypeOf<typeof CheckoutSessionGiftCard>

/** `gift_cards` is Orka's own (the original API has none): absent unless Secure Fields put gift cards on the session. */
export const CheckoutSession = closed(
  'CheckoutSession',
  { type: literal('checkout-session'), id: uuid, expires_at: DateTime },
  {
    ...sessionFields,
    airline: t.null,
    payment_method: nullable(CheckoutSessionPaymentMethod),
    gift_cards: t.readonlyArray(CheckoutSessionGiftCard),
  },
)
export type CheckoutSession = t.TypeOf<typeof CheckoutSession>

/**
 * A gift card on a session: its number and PIN sealed one by one, as the vault and a payment's
 * redemptions keep them (the payment takes them as they are), and what may be shown of it.
 */
export const SessionGiftCard = t.type({
  bin: str,
  sub_bin: str,
  last4: str,
  amount: intRange('amount', 1),
  sealed_number: str,
  sealed_pin: str,
})
export type SessionGiftCard = t.TypeOf<typeof SessionGiftCard>

/**
 * What Secure Fields put on a session, for one payment to take: a card, sealed (SecretBox) as
 * JSON `SealedCardData`, with what may be shown of it (both null when they sent gift cards
 * only), and the gift cards (absent when none).
 */
export const SessionCard = t.intersection([
  t.type({ sealed: nullable(str), payment_method: nullable(CheckoutSessionPaymentMethod) }),
  t.partial({ gift_cards: t.readonlyArray(SessionGiftCard) }),
])
export type SessionCard = t.TypeOf<typeof SessionCard>

export const CheckoutSessionRecord = t.intersection([
  t.type({
    id: uuid,
    merchant_account_id: str,
    created_at: str,
    expires_at: str,
    cart_items: nullable(CartItems),
    metadata: nullable(Metadata),
    buyer: nullable(GuestBuyer),
    amount: nullable(Amount),
    currency: nullable(Currency),
    payment_service_id: nullable(uuid),
    card: nullable(SessionCard),
  }),
  // Set on every session created since payments take ids of 122 random bits; one without it
  // may have paid under the older id (`legacySessionTransactionId`), which a payment then reads.
  t.partial({ full_transaction_id: t.literal(true) }),
])
export type CheckoutSessionRecord = t.TypeOf<typeof CheckoutSessionRecord>

/** The card as sealed on a session: its data, or a stored payment method by id with the security code sent for it. */
export const SealedCardData = t.union([
  t.type({ number: str, expiration_date: str, security_code: nullable(str) }),
  t.type({ payment_method_id: str, security_code: nullable(str) }),
])
export type SealedCardData = t.TypeOf<typeof SealedCardData>

export const toCheckoutSession = (r: CheckoutSessionRecord): CheckoutSession => ({
  type: 'checkout-session',
  id: r.id,
  expires_at: r.expires_at,
  cart_items: r.cart_items,
  metadata: r.metadata,
  buyer: r.buyer,
  amount: r.amount,
  currency: r.currency,
  payment_service_id: r.payment_service_id,
  airline: null,
  payment_method: r.card?.payment_method ?? null,
  ...(r.card?.gift_cards === undefined
    ? {}
    : { gift_cards: r.card.gift_cards.map(({ bin, sub_bin, last4, amount }) => ({ bin, sub_bin, last4, amount })) }),
})
