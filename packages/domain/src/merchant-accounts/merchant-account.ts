import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { bool, boundedString } from '../shared/codecs'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'

export const MerchantAccountId = boundedString('MerchantAccountId', { min: 1, max: 200 })

export const MerchantAccount = t.type({
  id: MerchantAccountId,
  display_name: boundedString('display_name', { min: 1, max: 200 }),
  locked: bool,
})
export type MerchantAccount = t.TypeOf<typeof MerchantAccount>

export interface MerchantAccountRepository {
  find(id: string): TE.TaskEither<Unavailable, O.Option<MerchantAccount>>
  /** Creates or replaces the account with this id (provisioning is idempotent). */
  upsert(account: MerchantAccount): TE.TaskEither<Unavailable, void>
}
export const MerchantAccountRepository = token<MerchantAccountRepository>('MerchantAccountRepository')
