import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import { Buyer } from '../buyers/buyer'
import { resolveNamedBuyer } from '../buyers/named-buyer'
import { Attempted, Reservation } from '../idempotency/run-idempotently'
import {
  CardDeclined,
  Duplicate,
  Forbidden,
  InFlight,
  InvalidRequest,
  invalidRequest,
  Replayed,
  replayed,
  ServiceFailed,
  ServiceTimeout,
  Unavailable,
  unavailable,
} from '../shared/errors'
import { askConnector } from './ask-connector'
import type { CardWriteCommand, CardWriteDeps, Provider } from './card-write'
import { cardOutcomeCodec, fingerprintOf, makeCardWrite, newCard, primaryProvider, vaultedBefore, vaultWithEvent } from './card-write'
import { GiftCard, GiftCardActivationCreate } from './gift-card.codecs'
import { ActivationResult, ConnectorError } from './gift-card.ports'

export type ActivateError =
  InvalidRequest | Forbidden | CardDeclined | Duplicate | InFlight | Replayed | ServiceFailed | ServiceTimeout | Unavailable

export interface ActivateCommand extends CardWriteCommand {
  readonly input: GiftCardActivationCreate
}

export type ActivateDeps = CardWriteDeps

/** Part of the key of every activation's idempotency record. */
export const ACTIVATION_OPERATION = 'gift-card-activation'

type Outcome = E.Either<ActivateError, GiftCard>

/** Who decided an attempt's outcome (see `isRecorded`). */
type DecidedBy = 'checks' | 'provider' | 'earlier attempt'

/**
 * The one rule for what is kept under an idempotency key and replayed to retries: a card, and
 * what the provider decided for this attempt (a decline, or an activation whose card another
 * request vaulted meanwhile: `Duplicate`). Nothing else is recorded, so a retry runs afresh:
 * a refusal by the checks before the provider (a `Duplicate` found then included: the provider
 * never saw the card), the provider failing or timing out, storage down, or the card an earlier
 * attempt of this request vaulted gone since the clash.
 */
const isRecorded = (outcome: Outcome, decidedBy: DecidedBy): boolean =>
  E.isRight(outcome) || (decidedBy === 'provider' && (outcome.left._tag === 'CardDeclined' || outcome.left._tag === 'Duplicate'))

const ended = (outcome: Outcome, decidedBy: DecidedBy): Attempted<ActivateError, GiftCard> => ({
  outcome,
  recorded: isRecorded(outcome, decidedBy),
})

const ReplayableError = t.union([
  t.type({ _tag: t.literal('CardDeclined'), reason: t.string }),
  t.type({ _tag: t.literal('Duplicate'), entity: t.string, existingId: t.string }),
])

/** How a recorded activation is replayed: the card, or the provider's decision marked as `Replayed`. */
const outcomeCodec = cardOutcomeCodec<ActivateError>((error) => {
  const decoded = ReplayableError.decode(error)
  return E.isRight(decoded) ? replayed(decoded.right) : unavailable(new Error('stored activation error does not decode'))
})

/** Step: the buyer the card is stored for. docs/payments.md documents an unknown one as a `400` here (a `404` when storing a card). */
const buyerOf = (deps: ActivateDeps, cmd: ActivateCommand): TE.TaskEither<InvalidRequest | Unavailable, Buyer | null> =>
  pipe(
    resolveNamedBuyer(deps.buyers, cmd.merchantAccountId, cmd.input),
    TE.mapLeft((e) => (e._tag === 'NotFound' ? invalidRequest(e.problem) : e)),
  )

/** Step: the provider activates the card, with the client's idempotency key forwarded so that it activates it once. */
const activateAt = ({ service, connector }: Provider, cmd: ActivateCommand): TE.TaskEither<ConnectorError, ActivationResult> => {
  const { input } = cmd
  return askConnector(ActivationResult, input.pin == null ? [input.number] : [input.number, input.pin], () =>
    connector.activate({
      service,
      number: input.number,
      pin: input.pin ?? null,
      amount: input.amount ?? null,
      currency: input.currency ?? null,
      externalIdentifier: input.external_identifier ?? null,
      idempotencyKey: cmd.idempotencyKey,
    }),
  )
}

/**
 * One activation against the provider. With an idempotency key it runs under a `Reservation`:
 * the card gets the reserved id, and a card the vault already holds for this number under one
 * of the earlier ids is this request's own (its first attempt died after vaulting it), answered
 * as created rather than as a duplicate.
 */
const attempt =
  (deps: ActivateDeps, cmd: ActivateCommand) =>
  async (reservation: Reservation | null): Promise<Attempted<ActivateError, GiftCard>> => {
    const { input, merchantAccountId } = cmd
    const buyer = await buyerOf(deps, cmd)()
    if (E.isLeft(buyer)) return ended(buyer, 'checks')
    const provider = await primaryProvider(deps, merchantAccountId)()
    if (E.isLeft(provider)) return ended(provider, 'checks')

    const store = input.store === true
    // Only a stored card needs one (an HMAC is a fair share of an activation's own work).
    const fingerprint = store ? fingerprintOf(deps.mac, input.number) : ''
    if (store) {
      const earlier = await vaultedBefore(deps.giftCardVault, merchantAccountId, fingerprint, reservation)()
      if (E.isLeft(earlier)) return ended(earlier, 'checks')
      // Our own earlier attempt's card: the activation happened, and this is its answer.
      if (O.isSome(earlier.right)) return ended(E.right(earlier.right.value), 'earlier attempt')
    }

    const activated = await activateAt(provider.right, cmd)()
    if (E.isLeft(activated)) return ended(activated, 'provider')
    const card = newCard(deps, reservation, {
      merchantAccountId,
      service: provider.right.service,
      number: input.number,
      expirationDate: activated.right.expirationDate,
      buyer: buyer.right,
    })
    if (!store) return ended(E.right(card), 'provider')

    const vaulted = await vaultWithEvent(deps, reservation, cmd.actor, card, {
      fingerprint,
      number: input.number,
      pin: input.pin ?? null,
    })()
    return ended(vaulted.outcome, vaulted.by === 'earlier attempt' ? 'earlier attempt' : 'provider')
  }

/**
 * Activates a physical card through the account's primary gift card service and, with
 * `store`, keeps it in the vault (number and PIN sealed, deduplicated by fingerprint).
 * With an idempotency key the whole activation runs at most once per account and key, and a
 * retry after a crash completes the original request: the card its first attempt vaulted is
 * answered with 201 (see `attempt`), while any other request for that number still gets 409.
 */
export const makeActivateGiftCard = (deps: ActivateDeps) =>
  makeCardWrite(deps, { name: ACTIVATION_OPERATION })((cmd: ActivateCommand) => attempt(deps, cmd), outcomeCodec)
