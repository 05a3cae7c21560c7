import * as t from 'io-ts'
import {
  bool,
  boundedList,
  ByKey,
  boundedString,
  canonicalUuid,
  closed,
  intRange,
  literal,
  nullable,
  oneOf,
  Refined,
  tagged,
  unsupported,
} from '../shared/codecs'
import { GiftCardRequest, GiftCardStoredRequest } from '../gift-cards/gift-card.codecs'
import { CardNumber, ExpirationDate, SecurityCode } from '../cards/card.codecs'
import { MAX_AMOUNT, Amount, Currency, Country, Metadata, CartItems } from '../order/order.codecs'
import { GuestBuyer } from '../buyers/guest-buyer'

const text = (name: string, max: number) => boundedString(name, { min: 1, max })
const nullableText = (name: string, max: number) => nullable(text(name, max))
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
    /** Shipping details of the transaction's buyer, kept with it as they are now. */
    shipping_details_id: nullable(canonicalUuid),
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
