import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { MerchantAccount, MerchantAccountRepository, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'

export class MemoryMerchantAccountRepository implements MerchantAccountRepository {
  private readonly accounts = new Map<string, MerchantAccount>()

  find(id: string): TE.TaskEither<Unavailable, O.Option<MerchantAccount>> {
    return atomically(() => E.right(O.fromNullable(this.accounts.get(id))))
  }

  upsert(account: MerchantAccount): TE.TaskEither<Unavailable, void> {
    return atomically(() => E.right(void this.accounts.set(account.id, keep(account))))
  }
}
