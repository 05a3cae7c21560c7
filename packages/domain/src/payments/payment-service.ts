import * as t from 'io-ts'
import { SecretBox } from '../shared/crypto.ports'
import { intRange, str, uuid } from '../shared/codecs'

/** The sandbox card service's definition id (its connector: adapters-node's `mockCard`). */
export const MOCK_CARD = 'mock-card'

/** One setting of a service (the original API's `fields`), e.g. `{"key": "mode", "value": "down"}`. */
export const PaymentServiceField = t.type({ key: str, value: str })
export type PaymentServiceField = t.TypeOf<typeof PaymentServiceField>

/** A secret setting (a credential), its value sealed by the `SecretBox`: never shown, logged or audited. */
export const SealedServiceField = t.type({ key: str, sealed: str })
export type SealedServiceField = t.TypeOf<typeof SealedServiceField>

/**
 * A card service configured for a merchant account. Routing tries the account's active
 * services in `position` order (then oldest first, then by id), skipping those whose
 * `accepted_currencies` or `accepted_countries` (when not empty) leave out the transaction's.
 * `fields` are the settings its definition does not mark secret; `sealed_fields` the others.
 * A deleted service (`deleted_at`) is kept, so that the transactions routed to it still show it,
 * and is routed to no more. Each write is the next `revision` (absent: 0), so that of two changes
 * made at once from the same revision only one lands (`PaymentServiceRepository.write`).
 */
export const PaymentServiceRecord = t.intersection([
  t.type({
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
  }),
  // Optional so that services stored before they existed still read.
  t.partial({ sealed_fields: t.readonlyArray(SealedServiceField), deleted_at: str, revision: intRange('revision', 0) }),
])
export type PaymentServiceRecord = t.TypeOf<typeof PaymentServiceRecord>

/** The revision a service was stored as (0 for one stored before revisions were kept). */
export const revisionOf = (service: Pick<PaymentServiceRecord, 'revision'>): number => service.revision ?? 0

/** The value of one of the service's fields, if set (its secrets only once opened: `withSecrets`). */
export const fieldOf = (service: Pick<PaymentServiceRecord, 'fields'>, key: string): string | undefined =>
  service.fields.find((f) => f.key === key)?.value

/**
 * The service as its connector needs it for one call: its secret fields unsealed among the
 * others, held in memory for the call only. Throws when one does not open (another key, or
 * tampered with): a bug or an attack, not a client error.
 */
export const withSecrets = (box: SecretBox, service: PaymentServiceRecord): PaymentServiceRecord =>
  (service.sealed_fields ?? []).length === 0
    ? service
    : { ...service, fields: [...service.fields, ...(service.sealed_fields ?? []).map((f) => ({ key: f.key, value: box.open(f.sealed) }))] }

/** Whether the service takes the currency (when one is given) and the country (when one is given); an empty list takes every one. */
export const takes = (
  s: Pick<PaymentServiceRecord, 'accepted_currencies' | 'accepted_countries'>,
  currency: string | null,
  country: string | null,
) =>
  (currency === null || s.accepted_currencies.length === 0 || s.accepted_currencies.includes(currency)) &&
  (country === null || s.accepted_countries.length === 0 || s.accepted_countries.includes(country))

/** Whether routing may go to the service: active and not deleted. */
export const isRoutable = (service: Pick<PaymentServiceRecord, 'active' | 'deleted_at'>): boolean =>
  service.active && service.deleted_at === undefined
