import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { PaymentServiceRecord } from './payment-service'

export interface PaymentServiceRepository {
  /** Creates or replaces the service with this id. */
  upsert(record: PaymentServiceRecord): TE.TaskEither<Unavailable, void>
  /** The account's services, active or not, in routing order: `position`, then `created_at`, then `id`, ascending. */
  listForAccount(merchantAccountId: string): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]>
  /** The account's service with this id (another account's is none). */
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<PaymentServiceRecord>>
  /** Every account's services, by merchant account id, then in routing order: for operators (the CLI). */
  listAll(): TE.TaskEither<Unavailable, readonly PaymentServiceRecord[]>
}
export const PaymentServiceRepository = token<PaymentServiceRepository>('PaymentServiceRepository')
