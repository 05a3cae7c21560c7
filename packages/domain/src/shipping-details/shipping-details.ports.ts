import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { ShippingDetailsRecord } from './shipping-details'

/** Buyers' shipping details, by account. Ids are unique across accounts; another account's are never found. */
export interface ShippingDetailsRepository {
  /** Stores new shipping details (their id is new). */
  create(record: ShippingDetailsRecord): TE.TaskEither<Unavailable, void>
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<ShippingDetailsRecord>>
  /** The buyer's shipping details, newest first (`created_at`, then id). */
  listOfBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, readonly ShippingDetailsRecord[]>
  /** Replaces the stored record with this id in `record.merchant_account_id`; false when there is none. */
  update(record: ShippingDetailsRecord): TE.TaskEither<Unavailable, boolean>
  /** Removes them for good; false when there were none. */
  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean>
  /** Removes all of the buyer's (its delete's cascade). */
  deleteOfBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, void>
}
export const ShippingDetailsRepository = token<ShippingDetailsRepository>('ShippingDetailsRepository')
