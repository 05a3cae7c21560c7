import * as t from 'io-ts'
import { Buyer, DateTime } from '../buyers/buyer'
import { SortKey } from '../pagination/page'
import { boundedString, canonicalUuid, closed, intRange, literal, nullable, oneOf, Refined, str, tagged, uuid } from '../shared/codecs'
import { CardScheme, PaymentMethodDetailsCard } from '../cards/card.codecs'
import { CardNumber, ExpirationDate, SecurityCode } from '../cards/card.codecs'

/** The original API's statuses: a card stored by `POST /payment-methods` is `succeeded` at once; `store: true` goes through `processing`. */
export const PAYMENT_METHOD_STATUSES = ['processing', 'buyer_approval_required', 'succeeded', 'failed', 'paused'] as const
export const PaymentMethodStatus = oneOf('PaymentMethodStatus', PAYMENT_METHOD_STATUSES)
export type PaymentMethodStatus = t.TypeOf<typeof PaymentMethodStatus>

const nullableText = nullable(str)
const nullableTime = nullable(DateTime)
const identifier = (name: string) => nullable(boundedString(name, { min: 1, max: 200 }))

/**
 * A stored card as the API shows it: every property the original API's SDK requires, never the
 * number or the security code (only its scheme, first 6 and last 4 digits and keyed fingerprint).
 */
export const PaymentMethod = closed(
  'PaymentMethod',
  {
    type: literal('payment-method'),
    id: uuid,
    merchant_account_id: str,
    method: literal('card'),
    status: PaymentMethodStatus,
    usage_count: intRange('usage_count', 0),
    cit_usage_count: intRange('cit_usage_count', 0),
    has_replacement: t.boolean,
    scheme_transaction_id: nullableText,
    scheme_transaction_id_scheme: nullable(CardScheme),
    created_at: DateTime,
    updated_at: DateTime,
  },
  {
    mode: literal('card'),
    label: nullableText,
    scheme: nullable(CardScheme),
    additional_schemes: t.null,
    expiration_date: nullableText,
    fingerprint: nullableText,
    details: nullable(PaymentMethodDetailsCard),
    approval_url: t.null,
    country: t.null,
    currency: t.null,
    last_replaced_at: t.null,
    transaction_link_id: nullableText,
    buyer: nullable(Buyer),
    external_identifier: nullableText,
    last_used_at: nullableTime,
    cit_last_used_at: nullableTime,
  },
)
export type PaymentMethod = t.TypeOf<typeof PaymentMethod>

/** `props` without the keys named. */
const without = <P extends Record<string, t.Mixed>, K extends keyof P>(props: P, keys: readonly K[]): Omit<P, K> =>
  Object.fromEntries(Object.entries(props).filter(([k]) => !(keys as readonly string[]).includes(k))) as Omit<P, K>

// The vendor's SDK (2.4) requires `scheme_transaction_id` and `scheme_transaction_id_scheme` in a summary too (null when unset).
const summaryRequired = without(PaymentMethod.required, ['status', 'created_at', 'updated_at'])
const summaryOptional = without(PaymentMethod.optional, ['buyer', 'external_identifier', 'transaction_link_id'])

/**
 * One of a buyer's usable cards (`GET /buyers/payment-methods`): the PaymentMethod without its
 * buyer, status, external identifier, transaction link id and timestamps.
 */
export const PaymentMethodSummary = closed('PaymentMethodSummary', summaryRequired, summaryOptional)
export type PaymentMethodSummary = t.TypeOf<typeof PaymentMethodSummary>
export const PaymentMethodSummaries = closed('PaymentMethodSummaries', { items: t.readonlyArray(PaymentMethodSummary) })

/** What a buyer's list shows of a method: every property the summary has, taken as it is. */
export const toSummary = (m: PaymentMethod): PaymentMethodSummary => {
  const keys = [
    ...Object.keys(PaymentMethodSummary.required),
    ...Object.keys(PaymentMethodSummary.optional),
  ] as (keyof PaymentMethodSummary & keyof PaymentMethod)[]
  return Object.fromEntries(keys.filter((k) => m[k] !== undefined).map((k) => [k, m[k]])) as PaymentMethodSummary
}

const given = (v: unknown) => v !== undefined && v !== null
const ONE_BUYER = {
  description: '`buyer_id` and `buyer_external_identifier` must not both be set.',
  check: (a: { buyer_id?: string | null; buyer_external_identifier?: string | null }) =>
    given(a.buyer_id) && given(a.buyer_external_identifier)
      ? { path: ['buyer_external_identifier'], msg: '`buyer_id` and `buyer_external_identifier` must not both be set' }
      : undefined,
}
const forBuyer = {
  buyer_id: nullable(canonicalUuid),
  buyer_external_identifier: identifier('buyer_external_identifier'),
  external_identifier: identifier('external_identifier'),
}

/** A card to store: 13-19 digits passing Luhn, `MM/YY` (not past: the use case's), a 3-4 digit security code used for nothing and never kept. */
export const CardPaymentMethodStore = new Refined(
  closed(
    'CardPaymentMethodCreate',
    { method: literal('card'), number: CardNumber, expiration_date: ExpirationDate },
    { security_code: nullable(SecurityCode), card_type: t.null, ...forBuyer },
  ),
  [ONE_BUYER],
)
/** The card a checkout session holds, kept as a payment method (the session gives it up: it is used once). */
export const CheckoutSessionPaymentMethodStore = new Refined(
  closed('CheckoutSessionPaymentMethodCreate', { method: literal('checkout-session'), id: canonicalUuid }, forBuyer),
  [ONE_BUYER],
)
/** `POST /payment-methods`: a card, or the card of a checkout session. */
export const PaymentMethodCreate = tagged('PaymentMethodCreate', 'method', {
  card: CardPaymentMethodStore,
  'checkout-session': CheckoutSessionPaymentMethodStore,
})
export type PaymentMethodCreate = t.TypeOf<typeof PaymentMethodCreate>

/** `PUT /payment-methods/{id}`: absent leaves a property as it is, null clears it (the expiry cannot be cleared). */
export const PaymentMethodUpdate = closed(
  'PaymentMethodUpdate',
  {},
  {
    expiration_date: ExpirationDate,
    external_identifier: identifier('external_identifier'),
    scheme_transaction_id: identifier('scheme_transaction_id'),
    scheme_transaction_id_scheme: nullable(CardScheme),
    transaction_link_id: identifier('transaction_link_id'),
  },
)
export type PaymentMethodUpdate = t.TypeOf<typeof PaymentMethodUpdate>

/** The position of a method in the vault's lists: newest first, the id breaking ties. */
export const paymentMethodSortKey = (m: Pick<PaymentMethod, 'created_at' | 'id'>): SortKey => [m.created_at, m.id]

/** The method as its audit entries name it: by the last four digits its responses show (`label`). */
export const paymentMethodResource = (m: PaymentMethod) => ({
  type: 'payment-method' as const,
  id: m.id,
  name: `Card ending ${m.label ?? ''}`,
})
