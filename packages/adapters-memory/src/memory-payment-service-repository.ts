import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { PaymentServiceRecord, PaymentServiceRepository, revisionOf, Unavailable } from '@orka/domain'
import { atomically, keep } from './memory-support'

const compare = (a: string | number, b: string | number) => (a < b ? -1 : a > b ? 1 : 0)
/** Routing order: position, then oldest first, then id. */
const routingOrder = (a: PaymentServiceRecord, b: PaymentServiceRecord) =>
  compare(a.position, b.position) || compare(a.created_at, b.created_at) || compare(a.id, b.id)

export class MemoryPaymentServiceRepository implements PaymentServiceRepository {
  /** By service id. */
  private readonly services = new Map<string, PaymentServiceRecord>()

  write(record: PaymentServiceRecord): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const stored = this.services.get(record.id)
      const revision = revisionOf(record)
      if (revision === 0 ? stored !== undefined : stored === undefined || revisionOf(stored) !== revision - 1) return E.right(false)
      this.services.set(record.id, keep(record))
      return E.right(true)
    })
  }

  listForAccount(merchantAccountId: string): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]> {
    return atomically(() =>
      E.right([...this.services.values()].filter((s) => s.merchant_account_id === merchantAccountId).sort(routingOrder)),
    )
  }

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<PaymentServiceRecord>> {
    return atomically(() =>
      E.right(
        pipe(
          O.fromNullable(this.services.get(id)),
          O.filter((s) => s.merchant_account_id === merchantAccountId),
        ),
      ),
    )
  }

  listAll(): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]> {
    return atomically(() =>
      E.right([...this.services.values()].sort((a, b) => compare(a.merchant_account_id, b.merchant_account_id) || routingOrder(a, b))),
    )
  }
}
