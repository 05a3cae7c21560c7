import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { resolveNamedBuyer } from '../buyers/named-buyer'
import { Attempted, Reservation } from '../idempotency/run-idempotently'
import {
  Duplicate,
  Forbidden,
  InFlight,
  InvalidRequest,
  invalidRequest,
  NotFound,
  problem,
  Replayed,
  ServiceFailed,
  ServiceTimeout,
  Unavailable,
  unavailable,
} from '../shared/errors'
import { askConnector } from './ask-connector'
import type { CardWriteCommand, CardWriteDeps, Provider } from './card-write'
import { cardOutcomeCodec, fingerprintOf, makeCardWrite, newCard, primaryProvider, vaultedBefore, vaultWithEvent } from './card-write'
import { GiftCard, GiftCardCreate } from './gift-card.codecs'
import { BalanceResult } from './gift-card.ports'

export type StoreError =
  InvalidRequest | Forbidden | NotFound | Duplicate | InFlight | Replayed | ServiceFailed | ServiceTimeout | Unavailable

export interface StoreCommand extends CardWriteCommand {
  readonly input: GiftCardCreate
}

export type StoreDeps = CardWriteDeps

/** Part of the key of every stored card's idempotency record. */
export const STORE_OPERATION = 'gift-card-store'

type Outcome = E.Either<StoreError, GiftCard>

/**
 * The one rule for what is kept under an idempotency key: the stored card, nothing else. The
 * service's check is a read without effect on the card, so a retry after a refusal, a failure,
 * a clash or storage down runs afresh and answers what holds then; a retry after the card was
 * stored answers that card (replayed), even if it was deleted since.
 */
const ended = (outcome: Outcome): Attempted<StoreError, GiftCard> => ({ outcome, recorded: E.isRight(outcome) })

const outcomeCodec = cardOutcomeCodec<StoreError>(() => unavailable(new Error('a stored gift card request recorded a failure')))

const REFUSALS: Readonly<Record<string, string>> = {
  invalid_gift_card: 'The gift card service does not know this gift card',
  expired_card: 'The gift card has expired',
  inactive_card: 'The gift card is not active',
}

type Balance = Extract<BalanceResult, { _tag: 'Balance' }>

/**
 * Step: the provider checks the card with a balance check, which has no effect on it. Only the
 * balance list reports a card the service refuses per item; here a refusal is a `400` on `number`.
 */
const checkedAt = (
  { service, connector }: Provider,
  input: GiftCardCreate,
): TE.TaskEither<InvalidRequest | ServiceFailed | ServiceTimeout, Balance> =>
  pipe(
    askConnector(BalanceResult, [input.number, input.pin], () => connector.balance({ service, number: input.number, pin: input.pin })),
    TE.mapLeft((e) => (e._tag === 'CardDeclined' ? invalidRequest(problem('input', ['number'], e.reason, 'card_declined')) : e)),
    TE.flatMap((answer) =>
      answer._tag === 'Refused'
        ? TE.left(
            invalidRequest(
              problem('input', ['number'], REFUSALS[answer.errorCode] ?? 'The gift card service refused this gift card', answer.errorCode),
            ),
          )
        : TE.right(answer),
    ),
  )

const attempt =
  (deps: StoreDeps, cmd: StoreCommand) =>
  async (reservation: Reservation | null): Promise<Attempted<StoreError, GiftCard>> => {
    const { input, merchantAccountId } = cmd
    const buyer = await resolveNamedBuyer(deps.buyers, merchantAccountId, input)()
    if (E.isLeft(buyer)) return ended(buyer)
    const provider = await primaryProvider(deps, merchantAccountId)()
    if (E.isLeft(provider)) return ended(provider)

    const fingerprint = fingerprintOf(deps.mac, input.number)
    const earlier = await vaultedBefore(deps.giftCardVault, merchantAccountId, fingerprint, reservation)()
    if (E.isLeft(earlier)) return ended(earlier)
    // Our own earlier attempt's card: it was stored, and this is its answer.
    if (O.isSome(earlier.right)) return ended(E.right(earlier.right.value))

    const balance = await checkedAt(provider.right, input)()
    if (E.isLeft(balance)) return ended(balance)
    const card = newCard(deps, reservation, {
      merchantAccountId,
      service: provider.right.service,
      number: input.number,
      expirationDate: balance.right.expirationDate,
      buyer: buyer.right,
    })

    const vaulted = await vaultWithEvent(deps, reservation, cmd.actor, card, { fingerprint, number: input.number, pin: input.pin })()
    return ended(vaulted.outcome)
  }

/**
 * Stores an existing card (`POST /gift-cards`): the account's primary gift card service checks
 * it first with a balance check (a card it refuses is a 400 on `number`), then the vault keeps
 * it as activations do (number and PIN sealed, one card per fingerprint: a 409 naming it).
 * An unknown buyer is a 404 naming the field. With an idempotency key it runs at most once per
 * account and key, like an activation.
 */
export const makeStoreGiftCard = (deps: StoreDeps) =>
  makeCardWrite(deps, { name: STORE_OPERATION })((cmd: StoreCommand) => attempt(deps, cmd), outcomeCodec)
