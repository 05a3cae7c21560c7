import { MOCK_CARD, PaymentServiceRecord } from '../payments/payment-service'
import { isoAt, MERCHANT_A, nextUuid } from './fixtures'

export const aPaymentServiceRecord = (o: Partial<PaymentServiceRecord> = {}): PaymentServiceRecord => {
  const record: PaymentServiceRecord = {
    id: nextUuid(),
    merchant_account_id: MERCHANT_A,
    payment_service_definition_id: MOCK_CARD,
    display_name: 'Mock cards',
    position: 0,
    active: true,
    accepted_currencies: [],
    accepted_countries: [],
    fields: [],
    created_at: isoAt(0),
    updated_at: isoAt(0),
    ...o,
  }
  if (!PaymentServiceRecord.is(record)) throw new Error(`fixture is not a valid PaymentServiceRecord: ${JSON.stringify(record)}`)
  return record
}
