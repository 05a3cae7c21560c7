import { MerchantAccount } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

export interface MerchantAccountDocument extends Doc {
  display_name: string
  locked: boolean
}

export const toMerchantAccountDocument = ({ id, ...rest }: MerchantAccount): MerchantAccountDocument => ({ _id: id, ...rest })

export const fromMerchantAccountDocument = decoder(COLLECTIONS.merchantAccounts, MerchantAccount, (d) => ({
  ...pick(d, fieldsOf(MerchantAccount)),
  id: d._id,
}))
