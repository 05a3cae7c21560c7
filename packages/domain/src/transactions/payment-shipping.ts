import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { InvalidRequest, refusedInput, Unavailable } from '../shared/errors'
import { ShippingDetails, ShippingDetailsRecord, toShippingDetails } from '../shipping-details/shipping-details'
import { TransactionBuyer } from './transaction.codecs'
import { TransactionCreate } from './transaction-requests.codecs'
import { TransactionDeps } from './transaction-deps'

const AT = ['shipping_details_id']
const notTheBuyers = refusedInput(AT, "The shipping details are not the transaction's buyer's", 'unknown_shipping_details')

/** The shipping details a payment names, read before anything is taken or stored: unknown ones (or another account's) are a `400`. */
export const namedShipping =
  (
    deps: Pick<TransactionDeps, 'shippingDetails'>,
    merchantAccountId: string,
    input: TransactionCreate,
  ): TE.TaskEither<InvalidRequest | Unavailable, ShippingDetailsRecord | null> =>
  async () => {
    const id = input.shipping_details_id
    if (id == null) return E.right(null)
    const found = await deps.shippingDetails.findById(merchantAccountId, id)()
    if (E.isLeft(found)) return found
    return O.isSome(found.right) ? E.right(found.right.value) : E.left(notTheBuyers)
  }

/**
 * What the transaction keeps of them: a copy, as they were when it was paid (a later change or
 * delete leaves a past payment as it was sent). They must be the transaction's buyer's (the one
 * it names, or its stored card's): another buyer's, or a guest's payment, is a `400`.
 */
export const shippingOf = (
  named: ShippingDetailsRecord | null,
  buyer: TransactionBuyer | null,
): E.Either<InvalidRequest, ShippingDetails | null> =>
  named === null ? E.right(null) : named.buyer_id === buyer?.id ? E.right(toShippingDetails(named)) : E.left(notTheBuyers)
