import { TransactionRecord } from '../transactions/transaction'
import { isoAt, MERCHANT_A, nextUuid } from './fixtures'

const SERVICE = {
  type: 'payment-service' as const,
  id: '0b0b0b0b-0000-4000-8000-000000000001',
  payment_service_definition_id: 'mock-card',
  method: 'card' as const,
  display_name: 'Mock cards',
}

/** A transaction version: by default version 0 of an authorized one, with its authorization. */
export const aTransactionRecord = (o: Partial<TransactionRecord> = {}): TransactionRecord => {
  const id = o.id ?? nextUuid()
  const reference = `${id}:authorize:1`
  const record: TransactionRecord = {
    id,
    merchant_account_id: MERCHANT_A,
    version: 0,
    created_at: isoAt(0),
    updated_at: isoAt(0),
    status: 'authorization_succeeded',
    pending: false,
    amount: 1299,
    currency: 'USD',
    country: null,
    intent: 'authorize',
    external_identifier: null,
    metadata: null,
    payment_source: 'ecommerce',
    cart_items: null,
    checkout_session_id: null,
    buyer: null,
    payment_method: {
      type: 'payment-method',
      method: 'card',
      id: null,
      label: '1111',
      scheme: 'visa',
      expiration_date: '12/30',
      fingerprint: 'fp',
      details: { bin: '411111', card_type: null },
      country: null,
      currency: null,
      external_identifier: null,
    },
    request_ids: [id],
    attempts: [
      {
        reference,
        payment_service: SERVICE,
        requested_at: isoAt(0),
        outcome: 'authorized',
        voided: false,
        answered_at: isoAt(0),
        error_code: null,
        raw_response_code: null,
        raw_response_description: null,
      },
    ],
    authorization: {
      reference,
      payment_service: SERVICE,
      service_transaction_id: `svc-${id}`,
      amount: 1299,
      at: isoAt(0),
      auth_code: null,
      avs: null,
      cvv: null,
    },
    captures: [],
    void: null,
    refunds: [],
    error_code: null,
    raw_response_code: null,
    raw_response_description: null,
    events: [],
    ...o,
  }
  if (!TransactionRecord.is(record)) throw new Error(`fixture is not a valid TransactionRecord: ${JSON.stringify(record)}`)
  return record
}
