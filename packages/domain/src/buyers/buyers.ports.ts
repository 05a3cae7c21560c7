import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Duplicate, Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { Buyer } from './buyer'

export interface BuyerFilter {
  readonly external_identifier?: string
  /** Buyers whose `display_name` or `external_identifier` contains this text, case-insensitively (Unicode simple case folding). */
  readonly search?: string
}

export interface BuyerRepository {
  /** `Duplicate` (with the existing buyer's id) when the account already has a buyer with this `external_identifier`. */
  create(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, void>
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<Buyer>>
  findByExternalIdentifier(merchantAccountId: string, externalIdentifier: string): TE.TaskEither<Unavailable, O.Option<Buyer>>
  /**
   * Replaces the stored buyer with this id in `buyer.merchant_account_id` by `buyer`. False when
   * there is none. `Duplicate` (naming the holder) when another buyer of the account has its
   * `external_identifier`; at no moment do two buyers of an account hold one. A value given up
   * is free again once this returns.
   */
  update(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, boolean>
  /** Removes the buyer for good, freeing its `external_identifier`. False when there was none. */
  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean>
  /** Keyset read of one account's buyers in descending (created_at, id) order: newest first. */
  list(merchantAccountId: string, filter: BuyerFilter, seek: Seek): TE.TaskEither<Unavailable, readonly Buyer[]>
}
export const BuyerRepository = token<BuyerRepository>('BuyerRepository')
