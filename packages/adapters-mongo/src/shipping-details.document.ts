import { ShippingDetailsRecord } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * Shipping details with their id as `_id`. `created_at` stays the ISO string the domain gives:
 * fixed-width UTC (`...Z`), so it sorts as the instant it names.
 */
export interface ShippingDetailsDocument extends Doc {
  merchant_account_id: string
  buyer_id: string
  created_at: string
}

export const toShippingDetailsDocument = ({ id, ...rest }: ShippingDetailsRecord): ShippingDetailsDocument => ({ _id: id, ...rest })

export const fromShippingDetailsDocument = decoder(COLLECTIONS.shippingDetails, ShippingDetailsRecord, (d) => ({
  ...pick(d, fieldsOf(ShippingDetailsRecord)),
  id: d._id,
}))
