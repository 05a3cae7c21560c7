import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { GiftCardServiceRecord, GiftCardServiceRepository, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'

export class MemoryGiftCardServiceRepository implements GiftCardServiceRepository {
  /** By service id. */
  private readonly services = new Map<string, GiftCardServiceRecord>()

  findPrimary(merchantAccountId: string): TE.TaskEither<Unavailable, O.Option<GiftCardServiceRecord>> {
    return atomically(() => {
      const primary = [...this.services.values()].find((r) => r.merchant_account_id === merchantAccountId && r.primary)
      return E.right(O.fromNullable(primary))
    })
  }

  upsert(record: GiftCardServiceRecord): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      // One primary per account: promoting one demotes the rest in the same step.
      if (record.primary)
        for (const [id, r] of this.services)
          if (r.merchant_account_id === record.merchant_account_id && r.primary) this.services.set(id, keep({ ...r, primary: false }))
      this.services.set(record.service.id, keep(record))
      return E.right(undefined)
    })
  }
}
