import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { SessionCard, SessionGiftCard } from '../checkout-sessions/checkout-session'
import { failedValidation, InvalidRequest, Unavailable, unavailable } from '../shared/errors'
import { Tender } from '../cards/tender'
import { openSessionCard } from '../checkout-sessions/session-card'
import { legacySessionTransactionId } from './session-transaction-id'
import { cardPartProblem, sumOf } from '../cards/tender-rules'
import { TransactionCreate } from './transaction-requests.codecs'
import { noPaymentService, TransactionDeps } from './transaction-deps'
import { refusedInput } from '../shared/errors'

/** What a payment from a checkout session pays with: its card part's tender (null: gift cards only) and its gift cards. */
export interface SessionTender {
  readonly tender: Tender | null
  readonly giftCards: readonly SessionGiftCard[]
}

const AT = ['payment_method', 'id']
export const usedSession = refusedInput(AT, 'The checkout session was used for another transaction', 'used_checkout_session')
const noCardData = refusedInput(AT, 'The checkout session holds no card data', 'no_card_data')

/**
 * What a payment cannot make of what its checkout session holds (`held`; null: not known, as
 * for a session not read yet or without card data): gift cards in the request as well as on
 * the session (`/gift_cards`), a card with no card service to take it, and the session's gift
 * cards against the transaction's amount as the request's are (more than it; a card missing
 * for the rest, or there for nothing). The card-part rule is the request's (`cardPartProblem`).
 */
export const sessionTenderFault = (input: TransactionCreate, held: SessionCard | null, cardService: boolean): InvalidRequest | null => {
  const giftCards = held?.gift_cards ?? []
  if (giftCards.length > 0 && (input.gift_cards ?? []).length > 0)
    return refusedInput(['gift_cards'], 'The checkout session holds gift cards: leave out `gift_cards`', 'checkout_session_gift_cards')
  // Card data not known yet (null) counts as a card: the take tells.
  const withCard = held?.sealed !== null
  if (withCard && !cardService) return noPaymentService
  if (giftCards.length === 0) return withCard ? null : noCardData
  const paid = sumOf(giftCards)
  if (paid > input.amount)
    return refusedInput(AT, "The checkout session's gift cards would pay more than the transaction amount", 'gift_cards_exceed_amount')
  const found = cardPartProblem(paid, input.amount, withCard, {
    at: AT,
    rest: 'a card on the checkout session',
    leaveOut: 'send the fields again without the card',
  })
  return found === null ? null : failedValidation(found)
}

/** The card data on the account's live session, left there: for refusals that must not use it up. Null when there is none. */
export const heldBy = (
  deps: Pick<TransactionDeps, 'sessions'>,
  merchantAccountId: string,
  sessionId: string,
  now: Date,
): TE.TaskEither<Unavailable, SessionCard | null> =>
  TE.map(
    O.match(
      () => null,
      (s: { readonly card: SessionCard | null }) => s.card,
    ),
  )(deps.sessions.find(merchantAccountId, sessionId, now))

/** Whether a transaction with one of `ids` exists. */
const anyFound =
  (deps: Pick<TransactionDeps, 'transactions'>, merchantAccountId: string, ids: readonly string[]): TE.TaskEither<Unavailable, boolean> =>
  async () => {
    for (const id of ids) {
      const found = await deps.transactions.find(merchantAccountId, id)()
      if (E.isLeft(found)) return found
      if (O.isSome(found.right)) return E.right(true)
    }
    return E.right(false)
  }

/**
 * Takes the session's card data for the payment `id` (the session then holds it no more). The
 * take comes first, as most payments find card data; only a session without any is read again,
 * to say why: paid already (the transaction `id` exists), unknown, or never given card data.
 * Card data put on a session after it paid is taken too, and purged: version 0 then refuses the
 * payment, as the session's transaction exists. A session created before ids took 122 bits may
 * have paid under its older id, which is read for it here, as version 0 cannot refuse that.
 */
export const takeSessionCard =
  (
    deps: Pick<TransactionDeps, 'sessions' | 'transactions' | 'mac'>,
    merchantAccountId: string,
    sessionId: string,
    id: string,
    now: Date,
  ): TE.TaskEither<InvalidRequest | Unavailable, SessionCard> =>
  async () => {
    const legacy = legacySessionTransactionId(deps.mac, sessionId)
    const taken = await deps.sessions.takeCard(merchantAccountId, sessionId, now)()
    if (E.isLeft(taken)) return taken
    if (O.isSome(taken.right) && taken.right.value.card !== null) {
      const { card, full_transaction_id: full } = taken.right.value
      if (full === true) return E.right(card)
      const paid = await anyFound(deps, merchantAccountId, [legacy])()
      return E.isLeft(paid) ? paid : paid.right ? E.left(usedSession) : E.right(card)
    }
    const paid = await anyFound(deps, merchantAccountId, [id, legacy])()
    if (E.isLeft(paid)) return paid
    if (paid.right) return E.left(usedSession)
    const session = await deps.sessions.find(merchantAccountId, sessionId, now)()
    if (E.isLeft(session)) return session
    if (O.isNone(session.right))
      return E.left(
        refusedInput(
          AT,
          'No live checkout session with this id exists in this merchant account (unknown, expired or deleted)',
          'unknown_checkout_session',
        ),
      )
    return E.left(noCardData)
  }

/**
 * What a payment pays with from card data it took: the card part's tender, unsealed (card data
 * or a stored method by id; null when Secure Fields sent gift cards only), and the gift cards as
 * sealed. Opening throws only for data sealed by another key or tampered with: a 500, not a 400.
 */
export const sessionTender = (
  deps: Pick<TransactionDeps, 'box'>,
  held: SessionCard,
  sessionId: string,
): E.Either<Unavailable, SessionTender> =>
  E.map((data: ReturnType<typeof openSessionCard>): SessionTender => ({
    tender:
      data === null
        ? null
        : 'payment_method_id' in data
          ? { kind: 'stored-method', id: data.payment_method_id, securityCode: data.security_code }
          : { kind: 'card', card: { number: data.number, expirationDate: data.expiration_date, securityCode: data.security_code } },
    giftCards: held.gift_cards ?? [],
  }))(
    E.tryCatch(
      () => openSessionCard(deps.box, held),
      () => unavailable(new Error(`the card of checkout session ${sessionId} does not unseal`)),
    ),
  )
