import * as t from 'io-ts'
import { intRange, str, uuid } from '../shared/codecs'

/** The sandbox card service's definition id (its connector: adapters-node's `mockCard`). */
export const MOCK_CARD = 'mock-card'

/** One setting of a service (the original API's `fields`), e.g. `{"key": "mode", "value": "down"}`. */
export const PaymentServiceField = t.type({ key: str, value: str })
export type PaymentServiceField = t.TypeOf<typeof PaymentServiceField>

/**
 * A card service configured for a merchant account. Routing tries the account's active
 * services in `position` order (then oldest first, then by id), skipping those whose
 * `accepted_currencies` (when not empty) leave out the transaction's currency.
 */
export const PaymentServiceRecord = t.type({
  id: uuid,
  merchant_account_id: str,
  payment_service_definition_id: str,
  display_name: str,
  position: intRange('position', 0),
  active: t.boolean,
  accepted_currencies: t.readonlyArray(str),
  accepted_countries: t.readonlyArray(str),
  fields: t.readonlyArray(PaymentServiceField),
  created_at: str,
  updated_at: str,
})
export type PaymentServiceRecord = t.TypeOf<typeof PaymentServiceRecord>

/** The value of one of the service's fields, if set. */
export const fieldOf = (service: Pick<PaymentServiceRecord, 'fields'>, key: string): string | undefined =>
  service.fields.find((f) => f.key === key)?.value
