import * as t from 'io-ts'
import { DateTime } from '../buyers/buyer'
import { boundedString, canonicalUuid, closed, intRange, literal, nullable, str, tagged, uuid } from '../shared/codecs'
import { CardScheme, PaymentMethodDetailsCard } from '../transactions/transaction.codecs'
import {
  Amount,
  CardNumber,
  CartItems,
  Currency,
  ExpirationDate,
  GuestBuyer,
  Metadata,
  SecurityCode,
  unsupported,
} from '../transactions/transaction-requests.codecs'

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

/**
 * What Secure Fields send: a card, which is never shown again. A stored payment method by `id`
 * (cards on file) is accepted by the schema and refused (400) until cards on file exist.
 */
export const CheckoutSessionFields = closed('CheckoutSessionFieldsUpdate', {
  payment_method: tagged('CheckoutSessionFieldsPaymentMethod', 'method', {
    card: CheckoutSessionCardFields,
    id: closed(
      'CheckoutSessionStoredFields',
      { method: literal('id'), id: boundedString('id', { min: 1, max: 200 }) },
      {
        security_code: nullable(SecurityCode),
      },
    ),
  }),
})
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

export const CheckoutSession = closed(
  'CheckoutSession',
  { type: literal('checkout-session'), id: uuid, expires_at: DateTime },
  { ...sessionFields, airline: t.null, payment_method: nullable(CheckoutSessionPaymentMethod) },
)
export type CheckoutSession = t.TypeOf<typeof CheckoutSession>

/** Card data on a session: sealed (SecretBox) as JSON `{number, expiration_date, security_code}`, and what may be shown of it. */
export const SessionCard = t.type({ sealed: str, payment_method: CheckoutSessionPaymentMethod })
export type SessionCard = t.TypeOf<typeof SessionCard>

export const CheckoutSessionRecord = t.type({
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
})
export type CheckoutSessionRecord = t.TypeOf<typeof CheckoutSessionRecord>

/** The card as sealed on a session. */
export const SealedCardData = t.type({ number: str, expiration_date: str, security_code: nullable(str) })
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
})
