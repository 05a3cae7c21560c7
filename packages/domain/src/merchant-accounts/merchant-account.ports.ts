import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { MerchantAccount } from './merchant-account'

export interface MerchantAccountRepository {
  find(id: string): TE.TaskEither<Unavailable, O.Option<MerchantAccount>>
  /** Creates or replaces the account with this id (provisioning is idempotent). */
  upsert(account: MerchantAccount): TE.TaskEither<Unavailable, void>
}
export const MerchantAccountRepository = token<MerchantAccountRepository>('MerchantAccountRepository')
