import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { PaymentServiceRecord } from './payment-service'

export interface PaymentServiceRepository {
  /**
   * Stores `record` as revision `record.revision` (absent: 0) of its service, in one atomic
   * step: revision 0 only when no service has this id, any other only over the one before it.
   * False, changing nothing, otherwise (another writer moved first: read it and decide again).
   */
  write(record: PaymentServiceRecord): TE.TaskEither<Unavailable, boolean>
  /** The account's services, active or not, in routing order: `position`, then `created_at`, then `id`, ascending. */
  listForAccount(merchantAccountId: string): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]>
  /** The account's service with this id (another account's is none). */
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<PaymentServiceRecord>>
  /** Every account's services, by merchant account id, then in routing order: for operators (the CLI). */
  listAll(): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]>
}
export const PaymentServiceRepository = token<PaymentServiceRepository>('PaymentServiceRepository')
