import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Duplicate, Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { Buyer } from './buyer'

export interface BuyerFilter {
  readonly external_identifier?: string
}

export interface BuyerRepository {
  /** `Duplicate` (with the existing buyer's id) when the account already has a buyer with this `external_identifier`. */
  create(buyer: Buyer): TE.TaskEither<Duplicate | Unavailable, void>
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<Buyer>>
  findByExternalIdentifier(merchantAccountId: string, externalIdentifier: string): TE.TaskEither<Unavailable, O.Option<Buyer>>
  /** Keyset read of one account's buyers in descending (created_at, id) order: newest first. */
  list(merchantAccountId: string, filter: BuyerFilter, seek: Seek): TE.TaskEither<Unavailable, readonly Buyer[]>
}
export const BuyerRepository = token<BuyerRepository>('BuyerRepository')
