import * as t from 'io-ts'
import { BillingDetails } from '../buyers/billing-details'
import {
  bool,
  boundedList,
  ByKey,
  boundedString,
  canonicalUuid,
  Checked,
  closed,
  codePointLength,
  explainCharacters,
  Explanation,
  intRange,
  literal,
  nullable,
  oneOf,
  Refined,
  tagged,
} from '../shared/codecs'
import { GiftCardRequest, GiftCardStoredRequest } from '../gift-cards/gift-card.codecs'
import { luhnValid } from './card-data'
import { ISO_4217 } from './currencies'

const text = (name: string, max: number) => boundedString(name, { min: 1, max })
const nullableText = (name: string, max: number) => nullable(text(name, max))
export const MAX_AMOUNT = 99_999_999
export const Amount = intRange('amount', 0, MAX_AMOUNT)

const CURRENCIES: ReadonlySet<string> = new Set(ISO_4217)
/** A real ISO 4217 code: three capitals are not enough (`XYZ` is no currency). */
export const Currency = new Checked<string>(
  'Currency',
  (u): u is string => typeof u === 'string' && CURRENCIES.has(u),
  (u) =>
    typeof u !== 'string'
      ? { type: 'string_type' }
      : CURRENCIES.has(u)
        ? undefined
        : { type: 'value_error', rule: 'currency must be an ISO 4217 currency code in circulation, such as USD' },
  { type: 'string', enum: [...ISO_4217] },
)
export const Country = boundedString('country', { pattern: /^[A-Z]{2}$/ })

const MAX_METADATA_KEYS = 20
const metadataFault = (u: unknown): Explanation | undefined => {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return { type: 'model_type' }
  const entries = Object.entries(u)
  if (entries.length > MAX_METADATA_KEYS) return { type: 'value_error', rule: `metadata holds at most ${MAX_METADATA_KEYS} keys` }
  for (const [k, v] of entries) {
    if (explainCharacters(k) !== undefined || codePointLength(k) < 1 || codePointLength(k) > 40)
      return { type: 'value_error', rule: 'metadata keys are 1-40 characters' }
    if (typeof v !== 'string') return { type: 'value_error', rule: 'metadata values are strings' }
    if (explainCharacters(v) !== undefined || codePointLength(v) > 255)
      return { type: 'value_error', rule: 'metadata values are at most 255 characters' }
  }
  return undefined
}
/** The merchant's own key-value pairs, stored and shown as sent. */
export const Metadata = new Checked<Readonly<Record<string, string>>>(
  'Metadata',
  (u): u is Readonly<Record<string, string>> => metadataFault(u) === undefined,
  metadataFault,
  {
    type: 'object',
    maxProperties: MAX_METADATA_KEYS,
    propertyNames: { minLength: 1, maxLength: 40 },
    additionalProperties: { type: 'string', maxLength: 255 },
  },
)
export type Metadata = t.TypeOf<typeof Metadata>

const ProductType = oneOf('ProductType', [
  'physical',
  'discount',
  'shipping_fee',
  'sales_tax',
  'digital',
  'gift_card',
  'store_credit',
  'surcharge',
])
const smallAmount = (name: string) => nullable(intRange(name, 0, MAX_AMOUNT))

export const CartItem = closed(
  'CartItem',
  { name: text('name', 255), quantity: intRange('quantity', 1, MAX_AMOUNT), unit_amount: intRange('unit_amount', 0, MAX_AMOUNT) },
  {
    discount_amount: smallAmount('discount_amount'),
    tax_amount: smallAmount('tax_amount'),
    external_identifier: nullableText('external_identifier', 200),
    sku: nullableText('sku', 200),
    upc: nullableText('upc', 200),
    product_url: nullableText('product_url', 2083),
    image_url: nullableText('image_url', 2083),
    categories: nullable(boundedList(text('category', 50), 100)),
    product_type: nullable(ProductType),
    seller_country: nullable(Country),
    tax_exempt: nullable(bool),
    unit_of_measure: nullableText('unit_of_measure', 50),
    commodity_code: nullableText('commodity_code', 50),
    description: nullableText('description', 255),
    duty_amount: smallAmount('duty_amount'),
    shipping_amount: smallAmount('shipping_amount'),
  },
)
export type CartItem = t.TypeOf<typeof CartItem>
export const CartItems = boundedList(CartItem, 249)

export const TransactionIntent = oneOf('TransactionIntent', ['authorize', 'capture'] as const)
export type TransactionIntent = t.TypeOf<typeof TransactionIntent>
export const TransactionPaymentSource = oneOf('TransactionPaymentSource', [
  'ecommerce',
  'moto',
  'recurring',
  'installment',
  'card_on_file',
] as const)
export type TransactionPaymentSource = t.TypeOf<typeof TransactionPaymentSource>

/** 13-19 digits that pass the Luhn check. */
export const CardNumber = new Checked<string>(
  'CardNumber',
  (u): u is string => typeof u === 'string' && /^\d{13,19}$/.test(u) && luhnValid(u),
  (u) =>
    typeof u !== 'string'
      ? { type: 'string_type' }
      : !/^\d{13,19}$/.test(u)
        ? { type: 'string_pattern_mismatch', ctx: { pattern: '^\\d{13,19}$' } }
        : luhnValid(u)
          ? undefined
          : { type: 'value_error', rule: 'number is not a valid card number (its check digit is wrong)' },
  { type: 'string', pattern: '^\\d{13,19}$', description: '13-19 digits with a valid Luhn check digit.' },
)
export const ExpirationDate = boundedString('expiration_date', { pattern: /^(0[1-9]|1[0-2])\/\d{2}$/ })
export const SecurityCode = boundedString('security_code', { pattern: /^\d{3,4}$/ })

/**
 * Properties the original API's SDK accepts that Orka does not act on. They are allowed in the
 * schema (a client sending them is not malformed) but any value other than absent, null or the
 * SDK's default is refused with a 400 naming them (`unsupportedFields`): never silently ignored.
 */
export const unsupported = new Checked<unknown>(
  'unsupported',
  (u): u is unknown => u !== undefined,
  () => undefined,
  {
    description: 'Not supported by Orka: only absent, null or the default is accepted.',
  },
)

export const CardPaymentMethodCreate = closed(
  'CardWithUrlPaymentMethodCreate',
  { method: literal('card'), number: CardNumber, expiration_date: ExpirationDate },
  {
    security_code: nullable(SecurityCode),
    buyer_id: unsupported,
    buyer_external_identifier: unsupported,
    external_identifier: unsupported,
    card_type: unsupported,
    redirect_url: unsupported,
  },
)
export const CheckoutSessionPaymentMethodCreate = closed(
  'CheckoutSessionWithUrlPaymentMethodCreate',
  { method: literal('checkout-session'), id: canonicalUuid },
  { external_identifier: unsupported, buyer_id: unsupported, buyer_external_identifier: unsupported, redirect_url: unsupported },
)
/** A stored payment method by id, with the security code the buyer typed for this payment (used for it only, never kept). */
export const StoredPaymentMethodCreate = closed(
  'TokenPaymentMethodCreate',
  { method: literal('id'), id: text('id', 200) },
  { security_code: nullable(SecurityCode), redirect_url: unsupported },
)
export const TransactionPaymentMethodCreate = tagged('TransactionPaymentMethodCreate', 'method', {
  card: CardPaymentMethodCreate,
  'checkout-session': CheckoutSessionPaymentMethodCreate,
  id: StoredPaymentMethodCreate,
})
export type TransactionPaymentMethodCreate = t.TypeOf<typeof TransactionPaymentMethodCreate>

export const GuestBuyer = closed(
  'GuestBuyer',
  {},
  {
    display_name: nullableText('display_name', 200),
    external_identifier: nullableText('external_identifier', 200),
    billing_details: nullable(BillingDetails),
    account_number: nullableText('account_number', 200),
    shipping_details: unsupported,
  },
)
export type GuestBuyer = t.TypeOf<typeof GuestBuyer>

/** The most gift cards one transaction may spend (more is a `400` naming the first one too many). */
export const MAX_TRANSACTION_GIFT_CARDS = 10
/** What the schema lets through, so that a hostile list is refused by its size, not decoded item by item. */
const GIFT_CARD_LIST_BOUND = 100
const TenderAmount = intRange('amount', 0, MAX_AMOUNT)
/** A gift card to spend in a transaction: by number and PIN, or a stored one by `id`, with the amount to take from it. */
export const TransactionGiftCard = new ByKey(
  'TransactionCreateGiftCard',
  closed('GiftCardTransactionCreate', { ...GiftCardRequest.required, amount: TenderAmount }),
  'id',
  closed('GiftCardTokenTransactionCreate', { ...GiftCardStoredRequest.required, amount: TenderAmount }),
)
export type TransactionGiftCard = t.TypeOf<typeof TransactionGiftCard>

/** The properties of TransactionCreate Orka does not offer, with the value that means "not used". */
export const UNSUPPORTED_TRANSACTION_FIELDS = {
  is_subsequent_payment: false,
  merchant_initiated: false,
  async_capture: false,
  account_funding_transaction: false,
  allow_partial_authorization: false,
  three_d_secure_data: null,
  three_d_secure: null,
  airline: null,
  description: null,
  statement_descriptor: null,
  previous_scheme_transaction_id: null,
  previous_transaction_link_id: null,
  browser_info: null,
  shipping_details_id: null,
  connection_options: null,
  anti_fraud_fingerprint: null,
  recipient: null,
  installment_count: null,
  tax_amount: null,
  merchant_tax_id: null,
  purchase_order_number: null,
  customer_reference_number: null,
  amount_includes_tax: null,
  supplier_order_number: null,
  duty_amount: null,
  shipping_amount: null,
  integration_client: null,
  approval_expires_at: null,
} as const

const TransactionCreateFields = closed(
  'TransactionCreate',
  { amount: Amount, currency: Currency },
  {
    country: nullable(Country),
    payment_method: nullable(TransactionPaymentMethodCreate),
    buyer: nullable(GuestBuyer),
    buyer_id: nullable(canonicalUuid),
    buyer_external_identifier: nullableText('buyer_external_identifier', 200),
    external_identifier: nullableText('external_identifier', 200),
    intent: TransactionIntent,
    metadata: nullable(Metadata),
    payment_source: TransactionPaymentSource,
    cart_items: nullable(CartItems),
    payment_service_id: nullable(canonicalUuid),
    gift_cards: nullable(boundedList(TransactionGiftCard, GIFT_CARD_LIST_BOUND)),
    /** Keep the card that pays as a payment method of the transaction's buyer. */
    store: bool,
    ...(Object.fromEntries(Object.keys(UNSUPPORTED_TRANSACTION_FIELDS).map((k) => [k, unsupported])) as Record<
      keyof typeof UNSUPPORTED_TRANSACTION_FIELDS,
      typeof unsupported
    >),
  },
)

/** A transaction to create. Rules across fields are the codec's (422), what depends on state is the use case's (400). */
export const TransactionCreate = new Refined(TransactionCreateFields, [
  {
    description: '`buyer_id` and `buyer_external_identifier` must not both be set.',
    check: (a) =>
      a.buyer_id != null && a.buyer_external_identifier != null
        ? { path: ['buyer_external_identifier'], msg: '`buyer_id` and `buyer_external_identifier` must not both be set' }
        : undefined,
  },
  {
    description: '`intent: capture` needs an `amount` above 0.',
    check: (a) =>
      a.intent === 'capture' && a.amount === 0 ? { path: ['amount'], msg: '`intent: capture` needs an amount above 0' } : undefined,
  },
  {
    description: '`payment_method` is required, unless `gift_cards` are given (which must then pay it all).',
    check: (a) =>
      a.payment_method == null && (a.gift_cards ?? []).length === 0
        ? { path: ['payment_method'], msg: 'a `payment_method` is required' }
        : undefined,
  },
])
export type TransactionCreate = t.TypeOf<typeof TransactionCreate>

/** The properties of a request that hold a value Orka does not offer, in order (each a 400). */
export const unsupportedFields = (
  input: Record<string, unknown>,
  defaults: Readonly<Record<string, unknown>>,
  at: readonly string[] = [],
): string[][] =>
  Object.entries(defaults)
    .filter(([k, d]) => input[k] !== undefined && input[k] !== null && input[k] !== d)
    .map(([k]) => [...at, k])

export const TransactionUpdate = closed(
  'TransactionUpdate',
  {},
  { external_identifier: nullableText('external_identifier', 200), metadata: nullable(Metadata), connection_options: unsupported },
)
export type TransactionUpdate = t.TypeOf<typeof TransactionUpdate>

export const TransactionCaptureCreate = closed(
  'TransactionCaptureCreate',
  {},
  {
    amount: nullable(intRange('amount', 1, MAX_AMOUNT)),
    final: bool,
    external_identifier: nullableText('external_identifier', 200),
    reauthorize_if_authorization_expired: bool,
    airline: unsupported,
    cart_items: unsupported,
  },
)
export type TransactionCaptureCreate = t.TypeOf<typeof TransactionCaptureCreate>

export const TransactionRefundCreate = closed(
  'TransactionRefundCreate',
  {},
  {
    amount: nullable(intRange('amount', 1, MAX_AMOUNT)),
    target_type: oneOf('RefundTargetType', ['payment-method', 'gift-card-redemption']),
    /** With `target_type: gift-card-redemption`: the redemption of this transaction to give back to. */
    target_id: nullable(canonicalUuid),
    reason: nullableText('reason', 200),
    external_identifier: nullableText('external_identifier', 200),
  },
)
export type TransactionRefundCreate = t.TypeOf<typeof TransactionRefundCreate>

export const TransactionRefundAllCreate = closed(
  'TransactionRefundAllCreate',
  {},
  { reason: nullableText('reason', 200), external_identifier: nullableText('external_identifier', 200) },
)
export type TransactionRefundAllCreate = t.TypeOf<typeof TransactionRefundAllCreate>
