import * as t from 'io-ts'
import { DateTime } from '../buyers/buyer'
import { Country, Currency } from '../order/order.codecs'
import { bool, boundedList, boundedString, closed, intRange, literal, nullable, oneOf, str, unsupported, uuid } from '../shared/codecs'

/** The most fields a service is configured with, and how long a field's value may be. */
export const MAX_SERVICE_FIELDS = 50
export const MAX_FIELD_VALUE = 4096
/** Positions run 0 (tried first) to this. */
export const MAX_POSITION = 999

const FieldKey = boundedString('key', { min: 1, max: 100, pattern: /^[a-z][a-z0-9_]*$/ })
/** A service's setting as the API takes and shows it; a secret one is never shown (`PaymentService`). */
export const Field = closed('Field', { key: FieldKey, value: boundedString('value', { max: MAX_FIELD_VALUE }) }, {})
export type Field = t.TypeOf<typeof Field>
const Fields = boundedList(Field, MAX_SERVICE_FIELDS)

const Position = intRange('position', 0, MAX_POSITION)
const Currencies = boundedList(Currency, 200)
const Countries = boundedList(Country, 300)

/**
 * What Orka does not do with a card service (3-D Secure, network tokens, account updater,
 * settlement reports, merchant profiles): accepted when absent, null or the SDK's default
 * (false), a `400` naming the field otherwise.
 */
export const UNSUPPORTED_SERVICE_FIELDS = {
  reporting_fields: null,
  three_d_secure_enabled: false,
  merchant_profile: null,
  payment_method_tokenization_enabled: false,
  network_tokens_enabled: false,
  open_loop: false,
  settlement_reporting_enabled: false,
}
const unsupportedProps = Object.fromEntries(Object.keys(UNSUPPORTED_SERVICE_FIELDS).map((k) => [k, unsupported])) as Record<
  keyof typeof UNSUPPORTED_SERVICE_FIELDS,
  typeof unsupported
>

export const PaymentServiceCreate = closed(
  'PaymentServiceCreate',
  {
    display_name: boundedString('display_name', { min: 1, max: 200 }),
    payment_service_definition_id: boundedString('payment_service_definition_id', { min: 1, max: 50 }),
    fields: Fields,
    accepted_currencies: Currencies,
    accepted_countries: Countries,
  },
  { position: nullable(Position), active: nullable(bool), ...unsupportedProps },
)
export type PaymentServiceCreate = t.TypeOf<typeof PaymentServiceCreate>

/** A partial change: what is sent is changed; a field sent with an empty value is removed, one not sent is kept (a secret too). */
export const PaymentServiceUpdate = closed(
  'PaymentServiceUpdate',
  {},
  {
    display_name: nullable(boundedString('display_name', { min: 1, max: 200 })),
    fields: nullable(Fields),
    position: nullable(Position),
    accepted_currencies: nullable(Currencies),
    accepted_countries: nullable(Countries),
    active: nullable(bool),
    ...unsupportedProps,
  },
)
export type PaymentServiceUpdate = t.TypeOf<typeof PaymentServiceUpdate>

/** Credentials to check with the connector: these fields, over a stored service's when `payment_service_id` names one. */
export const VerifyCredentials = closed(
  'VerifyCredentials',
  { payment_service_definition_id: boundedString('payment_service_definition_id', { min: 1, max: 50 }), fields: Fields },
  { payment_service_id: nullable(uuid) },
)
export type VerifyCredentials = t.TypeOf<typeof VerifyCredentials>

/** A card service as the API shows it: its secret fields left out, what Orka does not do false or null. */
export const PaymentService = closed(
  'PaymentService',
  {
    type: literal('payment-service'),
    id: uuid,
    merchant_account_id: str,
    payment_service_definition_id: str,
    active: bool,
    method: str,
    display_name: str,
    position: intRange('position', 0),
    status: oneOf('PaymentServiceStatus', ['pending', 'created', 'failed']),
    accepted_currencies: t.readonlyArray(str),
    accepted_countries: t.readonlyArray(str),
    payment_method_tokenization_enabled: bool,
    network_tokens_enabled: bool,
    open_loop: bool,
    settlement_reporting_enabled: bool,
    three_d_secure_enabled: bool,
    merchant_profile: t.null,
    webhook_url: nullable(str),
    fields: t.readonlyArray(Field),
    reporting_fields: t.readonlyArray(Field),
    is_deleted: bool,
    created_at: DateTime,
    updated_at: DateTime,
  },
  {},
)
export type PaymentService = t.TypeOf<typeof PaymentService>

/** The answer of a `verify` that the connector accepted. */
export const VerifiedCredentials = closed('VerifiedCredentials', { verified: bool }, {})
export type VerifiedCredentials = t.TypeOf<typeof VerifiedCredentials>
