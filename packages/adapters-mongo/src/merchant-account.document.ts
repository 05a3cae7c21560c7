import { MerchantAccount, merchantAccountSortKey } from '@orka/domain'
import { COLLECTIONS } from './mongo-schema'
import { decoder, Doc, fieldsOf, pick } from './document-decoder'

/**
 * An account with its id as `_id`, its optional fields present only when the record has them,
 * so that it reads back exactly as stored.
 */
export interface MerchantAccountDocument extends Doc {
  display_name: string
  locked: boolean
  created_at?: string
  updated_at?: string
  settings?: MerchantAccount['settings']
  sealed?: MerchantAccount['sealed']
  /**
   * What the list sorts and seeks on: `created_at`, or the epoch for an account without one (as
   * the domain orders it). A field of its own, not a defaulted `created_at`, so that an account
   * without one still reads back without one. Never read back; absent on documents written
   * before accounts were listed.
   */
  listed_at: string
}

export const toMerchantAccountDocument = (account: MerchantAccount): MerchantAccountDocument => {
  const { id, ...rest } = account
  return { _id: id, ...rest, listed_at: merchantAccountSortKey(account)[0] }
}

export const fromMerchantAccountDocument = decoder(COLLECTIONS.merchantAccounts, MerchantAccount, (d) => ({
  ...pick(d, fieldsOf(MerchantAccount)),
  id: d._id,
}))
