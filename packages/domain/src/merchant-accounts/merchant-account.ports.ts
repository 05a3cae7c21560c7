import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Duplicate, Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { MerchantAccount } from './merchant-account'

export interface MerchantAccountRepository {
  find(id: string): TE.TaskEither<Unavailable, O.Option<MerchantAccount>>
  /** Creates or replaces the account with this id (provisioning is idempotent; an update is a replace). */
  upsert(account: MerchantAccount): TE.TaskEither<Unavailable, void>
  /** Creates the account; `Duplicate` (naming it) when the id is taken, changing nothing. */
  create(account: MerchantAccount): TE.TaskEither<Duplicate | Unavailable, void>
  /** Keyset read of every account in descending (`merchantAccountSortKey`) order: newest first. */
  list(seek: Seek): TE.TaskEither<Unavailable, readonly MerchantAccount[]>
}
export const MerchantAccountRepository = token<MerchantAccountRepository>('MerchantAccountRepository')
