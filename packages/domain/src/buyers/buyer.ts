import * as t from 'io-ts'
import { boundedString, closed, literal, nullable, str, uuid } from '../shared/codecs'
import { SortKey } from '../pagination/page'
import { BillingDetails } from './billing-details'

const name200 = (n: string) => nullable(boundedString(n, { min: 1, max: 200 }))
export const DateTime = boundedString('date-time', { format: 'date-time' })

/** The wire shape of a buyer; the domain keeps it as is (fields are the spec's). */
export const Buyer = closed(
  'Buyer',
  {
    id: uuid,
    reconciliation_id: str,
    merchant_account_id: str,
    created_at: DateTime,
    updated_at: DateTime,
  },
  {
    type: literal('buyer'),
    display_name: name200('display_name'),
    external_identifier: name200('external_identifier'),
    billing_details: nullable(BillingDetails),
    account_number: name200('account_number'),
  },
)
export type Buyer = t.TypeOf<typeof Buyer>

export const BuyerCreate = closed(
  'BuyerCreate',
  {},
  {
    display_name: name200('display_name'),
    external_identifier: name200('external_identifier'),
    billing_details: nullable(BillingDetails),
    account_number: name200('account_number'),
  },
)
export type BuyerCreate = t.TypeOf<typeof BuyerCreate>

/** The original API's buyer update: every property optional; absent leaves it as it is, null clears it. */
export const BuyerUpdate = closed(
  'BuyerUpdate',
  {},
  {
    display_name: name200('display_name'),
    external_identifier: name200('external_identifier'),
    billing_details: nullable(BillingDetails),
    account_number: name200('account_number'),
  },
)
export type BuyerUpdate = t.TypeOf<typeof BuyerUpdate>

/** The buyer with what the update names changed, stamped `updatedAt`. */
export const applyBuyerUpdate = (buyer: Buyer, input: BuyerUpdate, updatedAt: string): Buyer => ({
  ...buyer,
  display_name: input.display_name === undefined ? buyer.display_name : input.display_name,
  external_identifier: input.external_identifier === undefined ? buyer.external_identifier : input.external_identifier,
  billing_details: input.billing_details === undefined ? buyer.billing_details : input.billing_details,
  account_number: input.account_number === undefined ? buyer.account_number : input.account_number,
  updated_at: updatedAt,
})

/** Newest first; id breaks ties between buyers created in the same millisecond. */
export const buyerSortKey = (b: Buyer): SortKey => [b.created_at, b.id]

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** The UUID's 128 bits in base62: the shorter id sent to connectors for reconciliation. */
export const reconciliationId = (id: string): string => {
  let n = BigInt(`0x${id.replace(/-/g, '')}`)
  let out = ''
  do {
    out = BASE62.charAt(Number(n % 62n)) + out
    n /= 62n
  } while (n > 0n)
  return out
}

/** The buyer as its audit entries name it: by display name, else external identifier. */
export const buyerResource = (b: Buyer) => ({ type: 'buyer' as const, id: b.id, name: b.display_name ?? b.external_identifier ?? 'Buyer' })
