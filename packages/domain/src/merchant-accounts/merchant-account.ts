import * as t from 'io-ts'
import { bool, boundedString } from '../shared/codecs'

export const MerchantAccountId = boundedString('MerchantAccountId', { min: 1, max: 200 })

export const MerchantAccount = t.type({
  id: MerchantAccountId,
  display_name: boundedString('display_name', { min: 1, max: 200 }),
  locked: bool,
})
export type MerchantAccount = t.TypeOf<typeof MerchantAccount>
