import * as t from 'io-ts'
import { BillingDetails } from '../buyers/billing-details'
import { DateTime } from '../buyers/buyer'
import { ShippingDetails } from '../shipping-details/shipping-details'
import { AvsResponseCode, CvvResponseCode } from '../payments/card-connector.ports'
import { GiftCardErrorCode } from '../gift-cards/gift-card.codecs'
import { bool, boundedString, closed, intRange, literal, nullable, oneOf, str, uuid } from '../shared/codecs'
import { TransactionIntent, TransactionPaymentSource } from './transaction-requests.codecs'
import { CartItem, Metadata } from '../order/order.codecs'
import { CardScheme, PaymentMethodDetailsCard } from '../cards/card.codecs'

/** The statuses Orka's card flow produces (the original API has more: clients must tolerate them). */
export const TRANSACTION_STATUSES = [
  'processing',
  'authorization_succeeded',
  'authorization_declined',
  'authorization_failed',
  'authorization_voided',
  'authorization_void_pending',
  'capture_succeeded',
  'capture_pending',
] as const
export const TransactionStatus = oneOf('TransactionStatus', TRANSACTION_STATUSES)
export type TransactionStatus = t.TypeOf<typeof TransactionStatus>

export const TransactionIntentOutcome = oneOf('TransactionIntentOutcome', ['pending', 'succeeded', 'failed'])
const nullableText = nullable(str)
const nullableTime = nullable(DateTime)
const amount = (name: string) => intRange(name, 0)

/** The card a transaction was made with, as far as it may be shown: scheme, BIN, last 4, expiry. */
export const TransactionPaymentMethod = closed(
  'TransactionPaymentMethod',
  { type: literal('payment-method'), method: literal('card') },
  {
    id: nullableText,
    label: nullableText,
    scheme: nullable(CardScheme),
    expiration_date: nullableText,
    fingerprint: nullableText,
    details: nullable(PaymentMethodDetailsCard),
    country: nullableText,
    currency: nullableText,
    external_identifier: nullableText,
  },
)
export type TransactionPaymentMethod = t.TypeOf<typeof TransactionPaymentMethod>

export const TransactionBuyer = closed(
  'TransactionBuyer',
  { type: literal('buyer') },
  {
    id: nullable(uuid),
    reconciliation_id: nullableText,
    display_name: nullableText,
    external_identifier: nullableText,
    billing_details: nullable(BillingDetails),
    account_number: nullableText,
  },
)
export type TransactionBuyer = t.TypeOf<typeof TransactionBuyer>

export const TransactionPaymentService = closed('TransactionPaymentService', {
  type: literal('payment-service'),
  id: uuid,
  payment_service_definition_id: str,
  method: literal('card'),
  display_name: str,
})
export type TransactionPaymentService = t.TypeOf<typeof TransactionPaymentService>

/** The gift card a redemption spent, as far as it may be shown; `id` when it is a stored card. */
export const RedeemedGiftCard = closed(
  'TransactionGiftCard',
  { bin: str, sub_bin: str, last4: str },
  { type: literal('gift-card'), id: nullable(uuid) },
)

export const GiftCardRedemptionStatus = oneOf('GiftCardRedemptionStatus', ['created', 'succeeded', 'failed', 'skipped'])
export type GiftCardRedemptionStatus = t.TypeOf<typeof GiftCardRedemptionStatus>

/** One gift card's part of a transaction: what it paid, what was given back to it, and why it failed. */
export const GiftCardRedemption = closed(
  'GiftCardRedemption',
  {
    id: uuid,
    status: GiftCardRedemptionStatus,
    amount: amount('amount'),
    refunded_amount: amount('refunded_amount'),
    gift_card: RedeemedGiftCard,
  },
  {
    type: literal('gift-card-redemption'),
    gift_card_service_redemption_id: nullableText,
    error_code: nullable(GiftCardErrorCode),
    raw_error_code: nullableText,
    raw_error_message: nullableText,
  },
)
export type GiftCardRedemption = t.TypeOf<typeof GiftCardRedemption>

/** What a transaction list shows of each transaction. */
const summaryFields = {
  required: {
    type: literal('transaction'),
    id: uuid,
    reconciliation_id: str,
    merchant_account_id: str,
    currency: str,
    amount: amount('amount'),
    status: TransactionStatus,
    authorized_amount: amount('authorized_amount'),
    captured_amount: amount('captured_amount'),
    refunded_amount: amount('refunded_amount'),
    settled_amount: amount('settled_amount'),
    settled: bool,
    intent: TransactionIntent,
    pending_review: bool,
    gift_card_redemptions: t.readonlyArray(GiftCardRedemption),
    created_at: DateTime,
    updated_at: DateTime,
    disputed: bool,
  },
  optional: {
    settled_currency: nullableText,
    country: nullableText,
    external_identifier: nullableText,
    payment_method: nullable(TransactionPaymentMethod),
    method: nullable(oneOf('Method', ['card', 'gift-card'])),
    instrument_type: nullable(literal('pan')),
    error_code: nullableText,
    payment_service: nullable(TransactionPaymentService),
    buyer: nullable(TransactionBuyer),
    raw_response_code: nullableText,
    raw_response_description: nullableText,
    checkout_session_id: nullable(uuid),
    reauthorized_from_transaction_id: nullableText,
  },
}

export const TransactionSummary = closed('TransactionSummary', summaryFields.required, summaryFields.optional)
export type TransactionSummary = t.TypeOf<typeof TransactionSummary>

/** The whole transaction: the summary and what only a single read shows. */
export const Transaction = closed(
  'Transaction',
  {
    ...summaryFields.required,
    payment_source: TransactionPaymentSource,
    merchant_initiated: bool,
    is_subsequent_payment: bool,
    intent_outcome: TransactionIntentOutcome,
    multi_tender: bool,
    account_funding_transaction: bool,
  },
  {
    ...summaryFields.optional,
    auth_response_code: nullableText,
    avs_response_code: nullable(AvsResponseCode),
    cvv_response_code: nullable(CvvResponseCode),
    cart_items: nullable(t.readonlyArray(CartItem)),
    payment_service_transaction_id: nullableText,
    metadata: nullable(Metadata),
    authorized_at: nullableTime,
    captured_at: nullableTime,
    voided_at: nullableTime,
    shipping_details: nullable(ShippingDetails),
  },
)
export type Transaction = t.TypeOf<typeof Transaction>

export const CaptureStatus = oneOf('CaptureStatus', ['succeeded', 'pending', 'declined', 'failed'])
export type CaptureStatus = t.TypeOf<typeof CaptureStatus>

export const Capture = closed(
  'Capture',
  {
    type: literal('capture'),
    id: uuid,
    merchant_account_id: str,
    transaction_id: uuid,
    currency: str,
    amount: amount('amount'),
    status: CaptureStatus,
    final: bool,
    created_at: DateTime,
    updated_at: DateTime,
  },
  {
    captured_at: nullableTime,
    external_identifier: nullableText,
    error_code: nullableText,
    raw_response_code: nullableText,
    raw_response_description: nullableText,
    transaction_external_identifier: nullableText,
    /** The card service's own id of the capture. */
    payment_service_capture_id: nullableText,
  },
)
export type Capture = t.TypeOf<typeof Capture>

export const RefundStatus = oneOf('RefundStatus', ['processing', 'succeeded', 'failed', 'declined', 'voided'])
export type RefundStatus = t.TypeOf<typeof RefundStatus>

export const Refund = closed(
  'Refund',
  {
    type: literal('refund'),
    id: uuid,
    transaction_id: uuid,
    status: RefundStatus,
    currency: str,
    amount: amount('amount'),
    target_type: oneOf('RefundTargetType', ['payment-method', 'gift-card-redemption']),
    reconciliation_id: str,
    transaction_reconciliation_id: str,
    created_at: DateTime,
    updated_at: DateTime,
    settled_amount: amount('settled_amount'),
    settled: bool,
  },
  {
    payment_service_refund_id: nullableText,
    reason: nullableText,
    target_id: nullableText,
    external_identifier: nullableText,
    transaction_external_identifier: nullableText,
    error_code: nullableText,
    raw_response_code: nullableText,
    raw_response_description: nullableText,
    settled_currency: nullableText,
  },
)
export type Refund = t.TypeOf<typeof Refund>

/** `POST /transactions/{id}/refunds/all`: every refund it made. */
export const Refunds = closed('Refunds', { items: t.readonlyArray(Refund) })
export type Refunds = t.TypeOf<typeof Refunds>

export const TransactionEvent = closed('TransactionEvent', {
  type: literal('transaction-event'),
  id: uuid,
  name: boundedString('name', { min: 1, max: 100 }),
  created_at: DateTime,
  context: t.record(t.string, t.unknown),
})
export type TransactionEvent = t.TypeOf<typeof TransactionEvent>

/** The original API's wrappers a `Prefer: resource=transaction-capture` / `transaction-void` asks for. */
const outcomeWrapper = <N extends string>(name: string, type: N) =>
  closed(
    name,
    {
      type: literal(type),
      status: CaptureStatus,
      code: nullableText,
      raw_response_code: nullableText,
      raw_response_description: nullableText,
      transaction: Transaction,
    },
    type === 'transaction-capture' ? { capture_id: nullable(uuid), payment_service_capture_id: nullableText } : {},
  )
export const TransactionCapture = outcomeWrapper('TransactionCapture', 'transaction-capture')
export type TransactionCapture = t.TypeOf<typeof TransactionCapture>
export const TransactionVoid = outcomeWrapper('TransactionVoid', 'transaction-void')
export type TransactionVoid = t.TypeOf<typeof TransactionVoid>
