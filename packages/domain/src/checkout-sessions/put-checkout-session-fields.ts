import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { InvalidRequest, invalidRequest, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import { expiredAt } from '../transactions/card-data'
import { cardPartProblem, giftCardItemsProblem, sumOf } from '../transactions/gift-card-tender'
import { CheckoutSessionCardFields, CheckoutSessionFields, CheckoutSessionGiftCardFields, CheckoutSessionRecord } from './checkout-session'
import { CheckoutSessionStore } from './checkout-session.ports'
import { notSupported } from './checkout-session-use-cases'
import { SESSION_CARD_TTL_MS, sealSessionCard } from './session-card'

/** A card Secure Fields may put on a session: one not past its expiry month (Luhn is the codec's); none with gift cards alone. */
const usableCard = (fields: CheckoutSessionFields, now: Date): E.Either<InvalidRequest, CheckoutSessionCardFields | null> => {
  const pm = fields.payment_method
  if (pm == null) return E.right(null)
  if (pm.method === 'id') return E.left(invalidRequest(notSupported(['payment_method', 'method'])))
  return expiredAt(pm.expiration_date, now)
    ? E.left(invalidRequest(problem('input', ['payment_method', 'expiration_date'], 'the card has expired', 'expired_card')))
    : E.right(pm)
}

/**
 * Gift cards a session may hold: the payment's own rules (`giftCardItemsProblem`,
 * `cardPartProblem`) against the session's amount when it has one, so that the shopper hears
 * now what the payment would refuse; without an amount, only against each other.
 */
const usableGiftCards = (
  session: CheckoutSessionRecord,
  giftCards: readonly CheckoutSessionGiftCardFields[],
  withCard: boolean,
): E.Either<InvalidRequest, void> => {
  const { amount } = session
  const found =
    giftCardItemsProblem(giftCards, amount === null ? null : { amount, of: 'checkout session' }) ??
    (amount === null
      ? null
      : cardPartProblem(sumOf(giftCards), amount, withCard, {
          at: ['payment_method'],
          rest: 'a card',
          leaveOut: 'leave out `payment_method`',
        }))
  return found === null ? E.right(undefined) : E.left(invalidRequest(found))
}

/**
 * Secure Fields: puts a card, gift cards or both on the live session with this id, whatever its
 * merchant account (the unguessable id is the capability), replacing all card data before. The
 * card and each gift card are sealed; only the card's scheme, BIN, last 4 and fingerprint, and
 * each gift card's BIN, sub-BIN, last 4 and amount are ever shown. `expires_at` moves to now
 * plus `SESSION_CARD_TTL_MS`. Nothing of a card is in any error.
 */
export const makePutCheckoutSessionFields =
  (deps: { sessions: CheckoutSessionStore; clock: Clock; box: SecretBox; mac: Mac }) =>
  (cmd: { id: string; input: CheckoutSessionFields }): TE.TaskEither<InvalidRequest | NotFound | Unavailable, void> => {
    const now = deps.clock.now()
    const giftCards = cmd.input.gift_cards ?? []
    return pipe(
      TE.fromEither(usableCard(cmd.input, now)),
      // Only gift cards need the session read first (its amount); a card alone goes straight on.
      TE.tap((card) =>
        giftCards.length === 0
          ? TE.right(undefined)
          : pipe(
              deps.sessions.findById(cmd.id, now),
              TE.flatMap(TE.fromOption(() => notFound('CheckoutSession', cmd.id))),
              TE.flatMapEither((s) => usableGiftCards(s, giftCards, card !== null)),
            ),
      ),
      TE.flatMap((card) =>
        deps.sessions.putCard(
          cmd.id,
          sealSessionCard(deps, card, giftCards),
          new Date(now.getTime() + SESSION_CARD_TTL_MS).toISOString(),
          now,
        ),
      ),
      TE.flatMap(TE.fromOption(() => notFound('CheckoutSession', cmd.id))),
      TE.map(() => undefined),
    )
  }
