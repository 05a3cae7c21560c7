import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { InvalidRequest, invalidRequest, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import { expiredAt } from '../transactions/card-data'
import { CheckoutSessionCardFields, CheckoutSessionFields } from './checkout-session'
import { CheckoutSessionStore } from './checkout-session.ports'
import { notSupported } from './checkout-session-use-cases'
import { SESSION_CARD_TTL_MS, sealSessionCard } from './session-card'

/** A card Secure Fields may put on a session: one not past its expiry month. (Luhn is the codec's.) */
const usableCard = (fields: CheckoutSessionFields, now: Date): E.Either<InvalidRequest, CheckoutSessionCardFields> => {
  const pm = fields.payment_method
  if (pm.method === 'id') return E.left(invalidRequest(notSupported(['payment_method', 'method'])))
  return expiredAt(pm.expiration_date, now)
    ? E.left(invalidRequest(problem('input', ['payment_method', 'expiration_date'], 'the card has expired', 'expired_card')))
    : E.right(pm)
}

/**
 * Secure Fields: puts a card on the live session with this id, whatever its merchant account
 * (the unguessable id is the capability), replacing any card before. The card is sealed and
 * only its scheme, BIN, last 4 and fingerprint are ever shown; `expires_at` moves to now plus
 * `SESSION_CARD_TTL_MS`. Nothing of the card is in any error.
 */
export const makePutCheckoutSessionFields =
  (deps: { sessions: CheckoutSessionStore; clock: Clock; box: SecretBox; mac: Mac }) =>
  (cmd: { id: string; input: CheckoutSessionFields }): TE.TaskEither<InvalidRequest | NotFound | Unavailable, void> => {
    const now = deps.clock.now()
    return pipe(
      TE.fromEither(usableCard(cmd.input, now)),
      TE.flatMap((card) =>
        deps.sessions.putCard(cmd.id, sealSessionCard(deps, card), new Date(now.getTime() + SESSION_CARD_TTL_MS).toISOString(), now),
      ),
      TE.flatMap(TE.fromOption(() => notFound('CheckoutSession', cmd.id))),
      TE.map(() => undefined),
    )
  }
