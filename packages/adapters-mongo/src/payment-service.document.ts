import { PaymentServiceRecord } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * A card service with its id as `_id`. `created_at` stays the ISO string the domain gives:
 * fixed-width UTC, so it sorts as the instant it names (routing order breaks ties by it).
 */
export interface PaymentServiceDocument extends Doc {
  merchant_account_id: string
  position: number
  created_at: string
}

export const toPaymentServiceDocument = ({ id, ...rest }: PaymentServiceRecord): PaymentServiceDocument => ({ _id: id, ...rest })

export const fromPaymentServiceDocument = decoder(COLLECTIONS.paymentServices, PaymentServiceRecord, (d) => ({
  ...pick(d, PaymentServiceRecord.types.flatMap(fieldsOf)),
  id: d._id,
}))
