import * as TE from 'fp-ts/TaskEither'
import { namesABuyer } from '../buyers/named-buyer'
import { embedReach, mayWriteFor } from '../reach/card-reach'
import { withinPins } from '../reach/embed-claim'
import { unsupportedFields } from '../shared/codecs'
import { Forbidden, forbidden, InvalidRequest, refusedInput, Unavailable } from '../shared/errors'
import type { CreateTransactionCommand } from './payment-command'
import { giftCardsFault } from './gift-card-tender'
import { TransactionCreate, UNSUPPORTED_TRANSACTION_FIELDS } from './transaction-requests.codecs'
import { notOffered, TransactionDeps } from './transaction-deps'

const PAYMENT_METHOD_EXTRAS = {
  buyer_id: null,
  buyer_external_identifier: null,
  external_identifier: null,
  card_type: null,
  redirect_url: null,
}

/** Every property set to something Orka does not offer: a 400 naming each, before anything else happens. */
const unsupported = (input: TransactionCreate): InvalidRequest | null => {
  const pm = input.payment_method
  const paths = [
    ...unsupportedFields(input, UNSUPPORTED_TRANSACTION_FIELDS),
    ...(pm == null ? [] : unsupportedFields(pm, PAYMENT_METHOD_EXTRAS, ['payment_method'])),
    ...(input.buyer?.shipping_details != null ? [['buyer', 'shipping_details']] : []),
  ]
  return paths.length === 0 ? null : notOffered(paths)
}

/** `store: true` keeps the card that pays for the transaction's buyer: it needs a card (or a session's) and a buyer of the account. */
const storeFault = (input: TransactionCreate): InvalidRequest | null => {
  if (input.store !== true) return null
  if (input.payment_method == null)
    return refusedInput(['store'], '`store: true` keeps the card that pays: send a `payment_method`', 'nothing_to_store')
  if (!namesABuyer(input))
    return refusedInput(['store'], '`store: true` needs a buyer: `buyer_id` or `buyer_external_identifier`', 'buyer_required')
  return null
}

/** What makes a request unfit before anything is read or stored: properties Orka does not offer, the gift cards' rules, `store: true`'s needs. */
export const refusal = (input: TransactionCreate): InvalidRequest | null => unsupported(input) ?? giftCardsFault(input) ?? storeFault(input)

/**
 * Whether the caller may make this payment: an embed token only what its claim pins (amount,
 * currency, buyer, checkout session), and with `store: true` only for a buyer it may keep cards
 * for (as `POST /payment-methods`). A server's token may make any.
 */
export const mayCreate =
  (deps: Pick<TransactionDeps, 'buyers'>) =>
  (cmd: CreateTransactionCommand): TE.TaskEither<Forbidden | Unavailable, void> => {
    const { input, embed } = cmd
    if (embed === null) return TE.right(undefined)
    const session = input.payment_method?.method === 'checkout-session' ? input.payment_method.id : undefined
    if (!withinPins(embed, { ...input, checkoutSessionId: session })) return TE.left(forbidden('embed_pin'))
    return input.store === true ? mayWriteFor(deps.buyers, cmd.merchantAccountId, embedReach(embed), input) : TE.right(undefined)
  }
