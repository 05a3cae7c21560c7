import * as t from 'io-ts'
import { BillingDetails } from '../buyers/billing-details'
import { DateTime } from '../buyers/buyer'
import { closed, literal, str, uuid } from '../shared/codecs'

/** The fields a client sets, with the rules a buyer's billing details have: the same person's data, sent elsewhere. */
const FIELDS = {
  first_name: BillingDetails.optional.first_name,
  last_name: BillingDetails.optional.last_name,
  email_address: BillingDetails.optional.email_address,
  phone_number: BillingDetails.optional.phone_number,
  address: BillingDetails.optional.address,
}

/** The original API's shipping details of a buyer, as answered. */
export const ShippingDetails = closed('ShippingDetails', {
  type: literal('shipping-details'),
  id: uuid,
  buyer_id: uuid,
  ...FIELDS,
})
export type ShippingDetails = t.TypeOf<typeof ShippingDetails>

/** Create and update take the same fields, each optional: an absent one is left as it is (null on create), `null` clears it. */
export const ShippingDetailsCreate = closed('ShippingDetailsCreate', {}, FIELDS)
export type ShippingDetailsCreate = t.TypeOf<typeof ShippingDetailsCreate>
export const ShippingDetailsUpdate = closed('ShippingDetailsUpdate', {}, FIELDS)
export type ShippingDetailsUpdate = t.TypeOf<typeof ShippingDetailsUpdate>

export const ShippingDetailsList = closed('ShippingDetailsList', { items: t.readonlyArray(ShippingDetails) })
export type ShippingDetailsList = t.TypeOf<typeof ShippingDetailsList>

/** As stored: the wire shape, its account, and its times (list order, the audit witness). */
export const ShippingDetailsRecord = closed('ShippingDetailsRecord', {
  ...ShippingDetails.required,
  merchant_account_id: str,
  created_at: DateTime,
  updated_at: DateTime,
})
export type ShippingDetailsRecord = t.TypeOf<typeof ShippingDetailsRecord>

/** At most this many shipping details per buyer: a list answers all of them, unpaginated, as the original API's does. */
export const MAX_SHIPPING_DETAILS = 50

export const toShippingDetails = (r: ShippingDetailsRecord): ShippingDetails => ({
  type: 'shipping-details',
  id: r.id,
  buyer_id: r.buyer_id,
  first_name: r.first_name,
  last_name: r.last_name,
  email_address: r.email_address,
  phone_number: r.phone_number,
  address: r.address,
})

/** What an update names changed (absent left as it is, `null` cleared; the address replaced whole), stamped `updatedAt`. */
export const applyShippingDetailsUpdate = (
  r: ShippingDetailsRecord,
  input: ShippingDetailsUpdate,
  updatedAt: string,
): ShippingDetailsRecord => ({
  ...r,
  first_name: input.first_name === undefined ? r.first_name : input.first_name,
  last_name: input.last_name === undefined ? r.last_name : input.last_name,
  email_address: input.email_address === undefined ? r.email_address : input.email_address,
  phone_number: input.phone_number === undefined ? r.phone_number : input.phone_number,
  address: input.address === undefined ? r.address : input.address,
  updated_at: updatedAt,
})

/** Audit entries name shipping details by kind only: a name or an address is personal data the log does not keep. */
export const shippingDetailsResource = (r: Pick<ShippingDetailsRecord, 'id'>) => ({
  type: 'shipping-details' as const,
  id: r.id,
  name: 'Shipping details',
})
