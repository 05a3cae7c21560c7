import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { NotFound, Problem, problem, Unavailable } from '../shared/errors'
import { Buyer } from './buyer'
import { BuyerRepository } from './buyers.ports'

/** How a request names a buyer, as the API's bodies and queries do: by id, by external identifier, or not at all. */
export interface BuyerName {
  readonly buyer_id?: string | null
  readonly buyer_external_identifier?: string | null
}

export const namesABuyer = (name: BuyerName): boolean => name.buyer_id != null || name.buyer_external_identifier != null

/**
 * The account's buyer a request names: by id when it gives one, else by external identifier;
 * named both ways, only a buyer that carries both. None when there is no such buyer, or no name.
 */
export const findNamedBuyer = (
  buyers: BuyerRepository,
  merchantAccountId: string,
  name: BuyerName,
): TE.TaskEither<Unavailable, O.Option<Buyer>> => {
  const { buyer_id, buyer_external_identifier } = name
  if (buyer_id != null)
    return pipe(
      buyers.findById(merchantAccountId, buyer_id),
      TE.map(O.filter((b) => buyer_external_identifier == null || b.external_identifier === buyer_external_identifier)),
    )
  if (buyer_external_identifier != null) return buyers.findByExternalIdentifier(merchantAccountId, buyer_external_identifier)
  return TE.right(O.none)
}

/** A named buyer the account does not have: not found, with a problem at the input field that named it. */
export type UnknownBuyer = NotFound & { readonly problem: Problem }

export const unknownBuyer = (name: BuyerName): UnknownBuyer => {
  const [field, id, what] =
    name.buyer_id != null ? ['buyer_id', name.buyer_id, 'id'] : ['buyer_external_identifier', '', 'external identifier']
  return {
    _tag: 'NotFound',
    entity: 'Buyer',
    id,
    problem: problem('input', [field], `No buyer with this ${what} exists in this merchant account`, 'unknown_buyer'),
  }
}

/**
 * The buyer a request's input is for: null when it names none, `unknownBuyer` when the account
 * has no such buyer. A route that answers an unknown buyer otherwise than `404` maps the error
 * where it answers (activations: a `400` with the same problem).
 */
export const resolveNamedBuyer = (
  buyers: BuyerRepository,
  merchantAccountId: string,
  name: BuyerName,
): TE.TaskEither<UnknownBuyer | Unavailable, Buyer | null> =>
  namesABuyer(name)
    ? pipe(findNamedBuyer(buyers, merchantAccountId, name), TE.flatMap(TE.fromOption((): UnknownBuyer | Unavailable => unknownBuyer(name))))
    : TE.right(null)
