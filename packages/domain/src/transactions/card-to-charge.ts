import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import { SessionCard } from '../checkout-sessions/checkout-session'
import { openSessionCard, sessionPaymentMethod } from '../checkout-sessions/session-card'
import { CardDetails } from '../cards/card-details'
import { InvalidRequest, Unavailable, unavailable } from '../shared/errors'
import { expiredAt } from '../cards/card-number'
import { TransactionPaymentMethod } from './transaction.codecs'
import { TransactionPaymentMethodCreate } from './transaction-requests.codecs'
import { TransactionDeps } from './transaction-deps'
import { refusedInput } from '../shared/errors'
import type { StoredMethodRef } from './stored-card'

/** The card a payment is made with, held in memory for the calls only, and what may be shown of it. */
export interface CardToCharge {
  readonly card: CardDetails
  readonly view: TransactionPaymentMethod
}

const viewOf = (deps: Pick<TransactionDeps, 'mac'>, card: CardDetails): TransactionPaymentMethod => ({
  ...sessionPaymentMethod(deps.mac, card.number),
  expiration_date: card.expirationDate,
  country: null,
  currency: null,
  external_identifier: null,
})

const notExpired = (card: CardDetails, now: Date): E.Either<InvalidRequest, CardDetails> =>
  expiredAt(card.expirationDate, now)
    ? E.left(refusedInput(['payment_method', 'expiration_date'], 'The card has expired', 'expired_card'))
    : E.right(card)

/** A card sent in the request itself. */
export const cardFromRequest = (
  deps: Pick<TransactionDeps, 'mac'>,
  pm: Extract<TransactionPaymentMethodCreate, { method: 'card' }>,
  now: Date,
): E.Either<InvalidRequest, CardToCharge> =>
  pipe(
    notExpired({ number: pm.number, expirationDate: pm.expiration_date, securityCode: pm.security_code ?? null }, now),
    E.map((card) => ({ card, view: viewOf(deps, card) })),
  )

/**
 * The card Secure Fields put on a session the transaction took it from (`takeCard`), unsealed,
 * or the stored payment method they named; null when they sent gift cards only.
 */
export const cardFromSession = (
  deps: Pick<TransactionDeps, 'mac' | 'box'>,
  held: SessionCard,
  sessionId: string,
  now: Date,
): E.Either<InvalidRequest | Unavailable, CardToCharge | StoredMethodRef | null> => {
  const opened = E.tryCatch(
    () => openSessionCard(deps.box, held),
    () => unavailable(new Error(`the card of checkout session ${sessionId} does not unseal`)),
  )
  if (E.isLeft(opened)) return opened
  const data = opened.right
  if (data === null) return E.right(null)
  if ('payment_method_id' in data) return E.right({ id: data.payment_method_id, securityCode: data.security_code })
  return pipe(
    notExpired({ number: data.number, expirationDate: data.expiration_date, securityCode: data.security_code }, now),
    E.map((card) => ({ card, view: viewOf(deps, card) })),
  )
}
