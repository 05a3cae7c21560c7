import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { resolveNamedBuyer } from '../buyers/named-buyer'
import { CheckoutSessionStore } from '../checkout-sessions/checkout-session.ports'
import { openSessionCard } from '../checkout-sessions/session-card'
import { CardWriteCommand, CardWriteDeps, makeCardWrite } from '../gift-cards/card-write'
import { recordedOutcomeCodec } from '../idempotency/run-idempotently'
import { Attempted, Reservation } from '../idempotency/run-idempotently'
import { Forbidden, InFlight, InvalidRequest, NotFound, Replayed, Unavailable, unavailable } from '../shared/errors'
import { expiredAt } from '../cards/card-number'
import { refusedInput } from '../shared/errors'
import { CardToKeep, keepCard, KeepCardDeps } from './keep-card'
import { PaymentMethod, PaymentMethodCreate } from './payment-method.codecs'

export type StorePaymentMethodError = InvalidRequest | Forbidden | NotFound | InFlight | Replayed | Unavailable

export interface StorePaymentMethodCommand extends CardWriteCommand {
  readonly input: PaymentMethodCreate
}

export type StorePaymentMethodDeps = KeepCardDeps &
  Pick<CardWriteDeps, 'buyers' | 'idempotency' | 'config'> & { readonly sessions: CheckoutSessionStore }

export const STORE_PAYMENT_METHOD = 'payment-method-store'

/** Only a stored method is recorded under an idempotency key: a refused or failed request runs afresh when retried. */
const outcomeCodec = recordedOutcomeCodec<StorePaymentMethodError, PaymentMethod>(PaymentMethod, () =>
  unavailable(new Error('a stored payment method request recorded a failure')),
)

type Card = Pick<CardToKeep, 'number' | 'expirationDate'>

const notExpired = (card: Card, now: Date): E.Either<InvalidRequest, Card> =>
  expiredAt(card.expirationDate, now) ? E.left(refusedInput(['expiration_date'], 'The card has expired', 'expired_card')) : E.right(card)

/**
 * The card to keep: the request's, or the one its checkout session holds, taken from the session
 * (it is used once). A session that is unknown, expired or holds no card is a `400` on `id`; one
 * whose Secure Fields named a stored method keeps it (nothing to store, nothing taken).
 */
const cardOf =
  (
    deps: StorePaymentMethodDeps,
    merchantAccountId: string,
    input: PaymentMethodCreate,
    now: Date,
  ): TE.TaskEither<InvalidRequest | Unavailable, Card> =>
  async () => {
    if (input.method === 'card') return notExpired({ number: input.number, expirationDate: input.expiration_date }, now)
    const noCard = E.left(refusedInput(['id'], 'No live checkout session with this id holds a card to store', 'no_card_data'))
    const seen = await deps.sessions.find(merchantAccountId, input.id, now)()
    if (E.isLeft(seen)) return seen
    if (O.toNullable(seen.right)?.card?.payment_method?.id != null)
      return E.left(
        refusedInput(['id'], 'The checkout session holds a stored payment method: it is stored already', 'stored_payment_method'),
      )
    const taken = await deps.sessions.takeCard(merchantAccountId, input.id, now)()
    if (E.isLeft(taken)) return taken
    const held = O.toNullable(taken.right)?.card ?? null
    const data = held === null ? null : E.tryCatch(() => openSessionCard(deps.box, held), E.toError)
    if (data !== null && E.isLeft(data)) return E.left(unavailable(data.left))
    const card = data?.right ?? null
    return card === null || !('number' in card) ? noCard : notExpired({ number: card.number, expirationDate: card.expiration_date }, now)
  }

/** The method an earlier attempt of this very request stored before its process stopped: that is the answer. */
const storedBefore =
  (
    deps: StorePaymentMethodDeps,
    merchantAccountId: string,
    reservation: Reservation | null,
  ): TE.TaskEither<Unavailable, O.Option<PaymentMethod>> =>
  async () => {
    for (const id of reservation?.earlierIds ?? []) {
      const found = await deps.paymentMethods.findById(merchantAccountId, id)()
      if (E.isLeft(found)) return found
      if (O.isSome(found.right)) return E.right(O.some(found.right.value.method))
    }
    return E.right(O.none)
  }

const attempt =
  (deps: StorePaymentMethodDeps, cmd: StorePaymentMethodCommand) =>
  async (reservation: Reservation | null): Promise<Attempted<StorePaymentMethodError, PaymentMethod>> => {
    const ended = (outcome: E.Either<StorePaymentMethodError, PaymentMethod>) => ({ outcome, recorded: E.isRight(outcome) })
    const { input, merchantAccountId } = cmd
    const earlier = await storedBefore(deps, merchantAccountId, reservation)()
    if (E.isLeft(earlier)) return ended(earlier)
    if (O.isSome(earlier.right)) return ended(E.right(earlier.right.value))
    const buyer = await resolveNamedBuyer(deps.buyers, merchantAccountId, input)()
    if (E.isLeft(buyer)) return ended(buyer)
    const card = await cardOf(deps, merchantAccountId, input, deps.clock.now())()
    if (E.isLeft(card)) return ended(card)
    const kept = await keepCard(deps, {
      ...card.right,
      merchantAccountId,
      actor: cmd.actor,
      buyer: buyer.right,
      externalIdentifier: input.external_identifier ?? null,
      status: 'succeeded',
      id: reservation?.reservedId ?? null,
    })()
    return ended(kept)
  }

/**
 * Stores a card (`POST /payment-methods`): one sent in the request, or the one a checkout
 * session holds. Luhn and the expiry's form are the codec's; a card past its expiry month is a
 * `400`, an unknown buyer a `404` naming the field. The card is kept as `keepCard` does (the same
 * card for the same buyer is one method); it is not checked at a card service, so it is
 * `succeeded` at once. With an idempotency key it runs at most once per account and key.
 */
export const makeStorePaymentMethod = (deps: StorePaymentMethodDeps) =>
  makeCardWrite(deps, { name: STORE_PAYMENT_METHOD })((cmd: StorePaymentMethodCommand) => attempt(deps, cmd), outcomeCodec)
