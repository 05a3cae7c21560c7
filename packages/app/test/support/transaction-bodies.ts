import { defaultCardServiceId } from '../../src/card-services'

type Json = Record<string, unknown>
/** What the expected body takes from the answer: the values only Orka and the card service know. */
export interface PaidTransaction {
  readonly id: string
  readonly reconciliation_id?: unknown
  readonly payment_method: Json | null
  readonly raw_response_code?: unknown
  readonly raw_response_description?: unknown
  readonly auth_response_code?: unknown
  readonly payment_service_transaction_id?: unknown
}

/**
 * The transaction an approved card payment of 1299 USD answers at `at` (an ISO instant): the
 * test card 4111 1111 1111 1111, expiring 12/30, through the default mock card service. The
 * values only Orka and the service know are taken from `t`; `o` overrides what a case changes.
 */
export const approvedCardPayment = (t: PaidTransaction, at: string, o: Json = {}): Json => ({
  type: 'transaction',
  id: t.id,
  reconciliation_id: t.reconciliation_id,
  merchant_account_id: 'default',
  currency: 'USD',
  amount: 1299,
  status: 'authorization_succeeded',
  authorized_amount: 1299,
  captured_amount: 0,
  refunded_amount: 0,
  settled_currency: null,
  settled_amount: 0,
  settled: false,
  country: null,
  external_identifier: null,
  intent: 'authorize',
  payment_method: {
    type: 'payment-method',
    method: 'card',
    id: null,
    label: '1111',
    scheme: 'visa',
    expiration_date: '12/30',
    fingerprint: t.payment_method?.fingerprint ?? null,
    details: { bin: '411111', card_type: null },
    country: null,
    currency: null,
    external_identifier: null,
  },
  method: 'card',
  instrument_type: 'pan',
  error_code: null,
  payment_service: {
    type: 'payment-service',
    id: defaultCardServiceId('default'),
    payment_service_definition_id: 'mock-card',
    method: 'card',
    display_name: 'Mock cards',
  },
  pending_review: false,
  buyer: null,
  raw_response_code: t.raw_response_code,
  raw_response_description: t.raw_response_description,
  checkout_session_id: null,
  reauthorized_from_transaction_id: null,
  gift_card_redemptions: [],
  created_at: at,
  updated_at: at,
  disputed: false,
  payment_source: 'ecommerce',
  merchant_initiated: false,
  is_subsequent_payment: false,
  intent_outcome: 'succeeded',
  multi_tender: false,
  account_funding_transaction: false,
  auth_response_code: t.auth_response_code,
  avs_response_code: null,
  cvv_response_code: 'match',
  cart_items: null,
  payment_service_transaction_id: t.payment_service_transaction_id,
  metadata: null,
  authorized_at: at,
  captured_at: null,
  voided_at: null,
  ...o,
})
