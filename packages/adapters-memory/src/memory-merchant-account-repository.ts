import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Duplicate,
  duplicate,
  MerchantAccount,
  MerchantAccountRepository,
  merchantAccountSortKey,
  Seek,
  seekIn,
  Unavailable,
} from '@orka/domain'
import { atomically, keep } from './memory-support'

export class MemoryMerchantAccountRepository implements MerchantAccountRepository {
  private readonly accounts = new Map<string, MerchantAccount>()

  find(id: string): TE.TaskEither<Unavailable, O.Option<MerchantAccount>> {
    return atomically(() => E.right(O.fromNullable(this.accounts.get(id))))
  }

  upsert(account: MerchantAccount): TE.TaskEither<Unavailable, void> {
    return atomically(() => E.right(void this.accounts.set(account.id, keep(account))))
  }

  create(account: MerchantAccount): TE.TaskEither<Duplicate | Unavailable, void> {
    return atomically((): E.Either<Duplicate | Unavailable, void> => {
      if (this.accounts.has(account.id)) return E.left(duplicate('MerchantAccount', account.id))
      this.accounts.set(account.id, keep(account))
      return E.right(undefined)
    })
  }

  /** Sorts them all for each page: an instance has few accounts, and an upsert may move one (its created_at). */
  list(seek: Seek): TE.TaskEither<Unavailable, readonly MerchantAccount[]> {
    return atomically(() => E.right(seekIn(this.accounts.values(), merchantAccountSortKey, 'descending', seek)))
  }
}
