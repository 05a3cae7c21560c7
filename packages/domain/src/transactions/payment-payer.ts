import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Buyer, reconciliationId } from '../buyers/buyer'
import { resolveNamedBuyer } from '../buyers/named-buyer'
import { failedValidation, InvalidRequest, refusedInput, Unavailable } from '../shared/errors'
import { Charge } from './payment-charge'
import { TransactionBuyer } from './transaction.codecs'
import { TransactionCreate } from './transaction-requests.codecs'
import { TransactionDeps } from './transaction-deps'

/** The transaction's buyer: the account's it names (`buyer`), or a guest described inline (`buyer` null). */
export interface Payer {
  readonly buyer: Buyer | null
  readonly view: TransactionBuyer | null
}

const buyerView = (
  b: Partial<Pick<Buyer, 'display_name' | 'external_identifier' | 'billing_details' | 'account_number'>>,
  id: string | null,
): TransactionBuyer => ({
  type: 'buyer',
  id,
  reconciliation_id: id === null ? null : reconciliationId(id),
  display_name: b.display_name ?? null,
  external_identifier: b.external_identifier ?? null,
  billing_details: b.billing_details ?? null,
  account_number: b.account_number ?? null,
})

/** The buyer: one of the account's, named by id or external identifier (unknown: a 400 naming the field), or a guest described inline. */
export const payerOf =
  (
    deps: Pick<TransactionDeps, 'buyers'>,
    merchantAccountId: string,
    input: TransactionCreate,
  ): TE.TaskEither<InvalidRequest | Unavailable, Payer> =>
  async () => {
    const named = await resolveNamedBuyer(deps.buyers, merchantAccountId, input)()
    if (E.isLeft(named)) return E.left(named.left._tag === 'NotFound' ? failedValidation(named.left.problem) : named.left)
    const b = named.right
    return E.right({ buyer: b, view: b === null && input.buyer == null ? null : buyerView(b ?? input.buyer ?? {}, b?.id ?? null) })
  }

/**
 * Who pays with a stored card of a buyer: that buyer only. A request naming none is made for it;
 * one naming another buyer, or describing a guest, is a `400`.
 */
export const chargedBuyer = (payer: Payer, charge: Charge | null): E.Either<InvalidRequest, TransactionBuyer | null> => {
  const owner = charge?.method?.buyer ?? null
  if (owner === null) return E.right(payer.view)
  if (payer.view === null) return E.right(buyerView(owner, owner.id))
  return payer.buyer?.id === owner.id
    ? E.right(payer.view)
    : E.left(
        refusedInput(
          ['payment_method', 'id'],
          'The stored payment method is of another buyer than the transaction',
          'payment_method_buyer_mismatch',
        ),
      )
}
