import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { InvalidRequest, invalidRequest, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import { expiredAt } from '../cards/card-number'
import { cardPartProblem, giftCardItemsProblem, sumOf } from '../cards/tender-rules'
import { CheckoutSessionCardFields, CheckoutSessionFields, CheckoutSessionGiftCardFields, CheckoutSessionRecord } from './checkout-session'
import { CheckoutSessionStore } from './checkout-session.ports'
import { SESSION_CARD_TTL_MS, sealSessionCard, StoredSessionCard } from './session-card'
import { PaymentMethodVault } from '../payment-methods/payment-method.ports'

interface Deps {
  readonly sessions: CheckoutSessionStore
  readonly paymentMethods: PaymentMethodVault
  readonly clock: Clock
  readonly box: SecretBox
  readonly mac: Mac
}

/**
 * A stored payment method Secure Fields may name: one of the session's account that can pay
 * (`succeeded`, not expired). Whose it may be is the payment's to check (`storedCardToCharge`),
 * against the token that pays: the session id alone reaches no buyer's cards.
 */
const usableStored = (
  deps: Deps,
  session: CheckoutSessionRecord,
  id: string,
  now: Date,
): TE.TaskEither<InvalidRequest | Unavailable, StoredSessionCard['stored']> =>
  pipe(
    deps.paymentMethods.findById(session.merchant_account_id, id.toLowerCase()),
    TE.flatMap((found) => {
      const m = O.toNullable(found)?.method
      return m?.status === 'succeeded' && !expiredAt(m.expiration_date ?? '', now)
        ? TE.right(m)
        : TE.left(
            invalidRequest(
              problem('input', ['payment_method', 'id'], 'No stored payment method with this id can pay', 'unknown_payment_method'),
            ),
          )
    }),
  )

/**
 * The card Secure Fields may put on a session: one not past its expiry month (Luhn is the
 * codec's), or a usable stored payment method; none with gift cards alone.
 */
const usableCard = (
  deps: Deps,
  session: () => TE.TaskEither<InvalidRequest | NotFound | Unavailable, CheckoutSessionRecord>,
  fields: CheckoutSessionFields,
  now: Date,
): TE.TaskEither<InvalidRequest | NotFound | Unavailable, CheckoutSessionCardFields | StoredSessionCard | null> => {
  const pm = fields.payment_method
  if (pm == null) return TE.right(null)
  if (pm.method === 'id')
    return pipe(
      session(),
      TE.flatMap((s) => usableStored(deps, s, pm.id, now)),
      TE.map((stored) => ({ stored, security_code: pm.security_code ?? null })),
    )
  return expiredAt(pm.expiration_date, now)
    ? TE.left(invalidRequest(problem('input', ['payment_method', 'expiration_date'], 'the card has expired', 'expired_card')))
    : TE.right(pm)
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
 * Secure Fields: puts a card (or a stored payment method of the session's account), gift cards
 * or both on the live session with this id, whatever its merchant account (the unguessable id
 * is the capability), replacing all card data before. The card and each gift card are sealed; only the card's scheme, BIN, last 4 and fingerprint, and
 * each gift card's BIN, sub-BIN, last 4 and amount are ever shown. `expires_at` moves to now
 * plus `SESSION_CARD_TTL_MS`. Nothing of a card is in any error.
 */
export const makePutCheckoutSessionFields =
  (deps: Deps) =>
  (cmd: { id: string; input: CheckoutSessionFields }): TE.TaskEither<InvalidRequest | NotFound | Unavailable, void> => {
    const now = deps.clock.now()
    const giftCards = cmd.input.gift_cards ?? []
    // Only gift cards and a stored method need the session read first; a card alone goes straight on.
    const session = () => pipe(deps.sessions.findById(cmd.id, now), TE.flatMap(TE.fromOption(() => notFound('CheckoutSession', cmd.id))))
    return pipe(
      usableCard(deps, session, cmd.input, now),
      TE.tap((card) =>
        giftCards.length === 0
          ? TE.right(undefined)
          : pipe(
              session(),
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
