import * as t from 'io-ts'
import { DateTime, Buyer } from '../buyers/buyer'
import {
  bool,
  boundedList,
  boundedString,
  ByKey,
  canonicalUuid,
  closed,
  intRange,
  literal,
  nullable,
  oneOf,
  Refined,
  str,
  uuid,
} from '../shared/codecs'

export const GIFT_CARD_SERVICE_DEFINITIONS = ['mock-gift-card', 'qwikcilver-gift-card', 'valuelink-gift-card'] as const
export const GiftCardServiceDefinitionId = oneOf('GiftCardServiceProvider', GIFT_CARD_SERVICE_DEFINITIONS)

export const GiftCardService = closed(
  'GiftCardService',
  {
    id: uuid,
    gift_card_service_definition_id: GiftCardServiceDefinitionId,
    display_name: boundedString('display_name', { min: 1, max: 200 }),
  },
  { type: literal('gift-card-service') },
)
export type GiftCardService = t.TypeOf<typeof GiftCardService>

/** A gift card service as configured for a merchant account. */
export const GiftCardServiceRecord = t.type({
  service: GiftCardService,
  merchant_account_id: str,
  primary: bool,
})
export type GiftCardServiceRecord = t.TypeOf<typeof GiftCardServiceRecord>

const nullableDateTime = nullable(DateTime)

/** The activation response: exactly these properties, no others. */
export const GiftCard = closed(
  'GiftCard',
  {
    id: uuid,
    merchant_account_id: str,
    gift_card_service: GiftCardService,
    bin: str,
    sub_bin: str,
    last4: str,
    created_at: DateTime,
    updated_at: DateTime,
    usage_count: intRange('usage_count', 0),
    cit_usage_count: intRange('cit_usage_count', 0),
  },
  {
    type: literal('gift-card'),
    expiration_date: nullableDateTime,
    buyer: nullable(Buyer),
    last_used_at: nullableDateTime,
    cit_last_used_at: nullableDateTime,
  },
)
export type GiftCard = t.TypeOf<typeof GiftCard>

/** Bounded (the reference is not) because a PIN is sealed and stored as sent; 64 is far beyond any card's. */
const Pin = boundedString('pin', { min: 1, max: 64 })

const ActivationFields = closed(
  'GiftCardActivationCreate',
  { number: boundedString('number', { min: 16, max: 19, pattern: /^\d+$/ }) },
  {
    pin: nullable(Pin),
    amount: nullable(intRange('amount', 0, 99999999)),
    currency: nullable(boundedString('currency', { pattern: /^[A-Z]{3}$/ })),
    external_identifier: nullable(boundedString('external_identifier', { min: 1, max: 200 })),
    store: bool,
    buyer_id: nullable(uuid),
    buyer_external_identifier: nullable(boundedString('buyer_external_identifier', { min: 1, max: 200 })),
  },
)
type Fields = t.TypeOf<typeof ActivationFields>
const given = (v: unknown) => v !== undefined && v !== null

/** Rules 1-4 of the spec, as checks on an otherwise well-typed body. */
export const ACTIVATION_RULES: readonly { description: string; check: (a: Fields) => { path: string[]; msg: string } | undefined }[] = [
  {
    description: 'When `currency` is given, `amount` is required.',
    check: (a) =>
      given(a.currency) && !given(a.amount) ? { path: ['amount'], msg: '`amount` is required when `currency` is given' } : undefined,
  },
  {
    description: 'When `amount` is given, `currency` is required.',
    check: (a) =>
      given(a.amount) && !given(a.currency) ? { path: ['currency'], msg: '`currency` is required when `amount` is given' } : undefined,
  },
  {
    description: 'When `store` is true, `pin` is required.',
    check: (a) => (a.store === true && !given(a.pin) ? { path: ['pin'], msg: '`pin` is required when `store` is true' } : undefined),
  },
  {
    description: '`buyer_id` is allowed only when `store` is true.',
    check: (a) =>
      a.store !== true && given(a.buyer_id) ? { path: ['buyer_id'], msg: '`buyer_id` is allowed only when `store` is true' } : undefined,
  },
  {
    description: '`buyer_external_identifier` is allowed only when `store` is true.',
    check: (a) =>
      a.store !== true && given(a.buyer_external_identifier)
        ? { path: ['buyer_external_identifier'], msg: '`buyer_external_identifier` is allowed only when `store` is true' }
        : undefined,
  },
  {
    description: '`buyer_id` and `buyer_external_identifier` must not both be set.',
    check: (a) =>
      given(a.buyer_id) && given(a.buyer_external_identifier)
        ? { path: ['buyer_external_identifier'], msg: '`buyer_id` and `buyer_external_identifier` must not both be set' }
        : undefined,
  },
]

export const GiftCardActivationCreate = new Refined(ActivationFields, ACTIVATION_RULES)
export type GiftCardActivationCreate = t.TypeOf<typeof GiftCardActivationCreate>

const CreateFields = closed(
  'GiftCardCreate',
  { number: ActivationFields.required.number, pin: Pin },
  { buyer_id: ActivationFields.optional.buyer_id, buyer_external_identifier: ActivationFields.optional.buyer_external_identifier },
)

/** `POST /gift-cards`: an existing card to store, for no buyer or for one named one way. */
export const GiftCardCreate = new Refined(CreateFields, [
  {
    description: '`buyer_id` and `buyer_external_identifier` must not both be set.',
    check: (a) =>
      given(a.buyer_id) && given(a.buyer_external_identifier)
        ? { path: ['buyer_external_identifier'], msg: '`buyer_id` and `buyer_external_identifier` must not both be set' }
        : undefined,
  },
])
export type GiftCardCreate = t.TypeOf<typeof GiftCardCreate>

/** The original API's normalised gift card error codes (`GiftCardErrorCode`), in its order. */
export const GIFT_CARD_ERROR_CODES = [
  'invalid_gift_card',
  'expired_card',
  'inactive_card',
  'invalid_service_credentials',
  'invalid_amount',
  'incorrect_currency',
  'insufficient_funds',
  'invalid_service_configuration',
  'operation_canceled',
  'service_error',
  'service_network_error',
  'unknown_error',
  'max_gift_cards_reached',
  'suspected_fraud',
  'canceled_payment_method',
  'duplicate_transaction',
  'unexpected_state',
] as const
export const GiftCardErrorCode = oneOf('GiftCardErrorCode', GIFT_CARD_ERROR_CODES)
export type GiftCardErrorCode = t.TypeOf<typeof GiftCardErrorCode>

/**
 * A card's balance as the service tells it, or why it could not (`balance_error_code`): the
 * answer for one item of a balance request and for each card of a buyer. Every property is
 * always sent (null when unknown); the six the reference requires are there for an unstored
 * card and an error item too (an unstored card has no id and no usage: 0).
 */
export const GiftCardSummary = closed(
  'GiftCardSummary',
  {
    merchant_account_id: str,
    bin: str,
    sub_bin: str,
    last4: str,
    usage_count: intRange('usage_count', 0),
    cit_usage_count: intRange('cit_usage_count', 0),
  },
  {
    type: literal('gift-card'),
    id: nullable(uuid),
    currency: nullable(boundedString('currency', { pattern: /^[A-Z]{3}$/ })),
    expiration_date: nullableDateTime,
    balance: nullable(intRange('balance')),
    balance_error_code: nullable(GiftCardErrorCode),
    balance_raw_error_code: nullable(str),
    balance_raw_error_message: nullable(str),
    last_used_at: nullableDateTime,
    cit_last_used_at: nullableDateTime,
  },
)
export type GiftCardSummary = t.TypeOf<typeof GiftCardSummary>
export const GiftCardSummaries = closed('GiftCardSummaries', { items: t.readonlyArray(GiftCardSummary) })

/** The most items one balance request may hold: each is a call to the gift card service. */
export const MAX_BALANCE_ITEMS = 10

export const GiftCardRequest = closed('GiftCardRequest', { number: ActivationFields.required.number, pin: Pin })
export const GiftCardStoredRequest = closed('GiftCardStoredRequest', { id: canonicalUuid })
export type BalanceItem = t.TypeOf<typeof GiftCardRequest> | t.TypeOf<typeof GiftCardStoredRequest>

/** `POST /gift-cards/balances`: cards by number and PIN, or stored cards by id, at most `MAX_BALANCE_ITEMS`. */
export const GiftCardBalanceRequest = closed('GiftCardBalanceRequest', {
  items: boundedList(new ByKey('GiftCardBalanceItem', GiftCardRequest, 'id', GiftCardStoredRequest), MAX_BALANCE_ITEMS),
})
export type GiftCardBalanceRequest = t.TypeOf<typeof GiftCardBalanceRequest>

/** The card as its audit entries name it: by the last four digits its responses show. */
export const giftCardResource = (c: GiftCard) => ({ type: 'gift-card' as const, id: c.id, name: `Gift card ending ${c.last4}` })
