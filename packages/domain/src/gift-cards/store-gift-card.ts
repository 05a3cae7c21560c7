import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Buyer } from '../buyers/buyer'
import { BuyerRepository } from '../buyers/buyers.ports'
import { Attempted, OutcomeCodec, Reservation } from '../idempotency/run-idempotently'
import {
  Duplicate,
  duplicate,
  Forbidden,
  InFlight,
  InvalidRequest,
  invalidRequest,
  NotFound,
  notFound,
  problem,
  Replayed,
  ServiceFailed,
  serviceFailed,
  ServiceTimeout,
  Unavailable,
  unavailable,
} from '../shared/errors'
import { askConnector } from './ask-connector'
import { CardWriteCommand, makeCardWrite } from './card-write'
import type { ActivateDeps, Activated } from './activate-gift-card'
import { splitNumber } from './gift-card'
import { GiftCard, GiftCardCreate } from './gift-card.codecs'
import { BalanceResult } from './gift-card.ports'

export type StoreError =
  InvalidRequest | Forbidden | NotFound | Duplicate | InFlight | Replayed | ServiceFailed | ServiceTimeout | Unavailable

export interface StoreCommand extends CardWriteCommand {
  readonly input: GiftCardCreate
}
/** A stored card, and whether it is the replay of an earlier answer: an activation's shape. */
export type Stored = Activated

/** Storing needs exactly what an activation needs. */
export type StoreDeps = ActivateDeps

export const STORE_OPERATION = 'POST /gift-cards'

type Outcome = E.Either<StoreError, GiftCard>

/**
 * The one rule for what is kept under an idempotency key: the stored card, nothing else. The
 * service's check is a read without effect on the card, so a retry after a refusal, a failure,
 * a clash or storage down runs afresh and answers what holds then; a retry after the card was
 * stored answers that card (replayed), even if it was deleted since.
 */
const ended = (outcome: Outcome): Attempted<StoreError, GiftCard> => ({ outcome, recorded: E.isRight(outcome) })

const outcomeCodec: OutcomeCodec<StoreError, GiftCard> = {
  encode: (o) => (E.isRight(o) ? { ok: true, value: GiftCard.encode(o.right) } : { ok: false, error: o.left }),
  decode: (stored) =>
    stored.ok
      ? E.mapLeft(() => unavailable(new Error('stored gift card does not decode')))(GiftCard.decode(stored.value))
      : E.left(unavailable(new Error('a stored gift card request recorded a failure'))),
}

/** The buyer the card is for: none, or one of the account's, named by id or external identifier (unknown: a 404 naming the field). */
export const resolveBuyer = (
  buyers: BuyerRepository,
  merchantAccountId: string,
  input: { readonly buyer_id?: string | null; readonly buyer_external_identifier?: string | null },
): TE.TaskEither<NotFound | Unavailable, Buyer | null> => {
  const { buyer_id, buyer_external_identifier } = input
  if (buyer_id == null && buyer_external_identifier == null) return TE.right(null)
  const [lookup, field, value, what] =
    buyer_id != null
      ? [buyers.findById(merchantAccountId, buyer_id), 'buyer_id', buyer_id, 'id']
      : [
          buyers.findByExternalIdentifier(merchantAccountId, buyer_external_identifier ?? ''),
          'buyer_external_identifier',
          '',
          'external identifier',
        ]
  return pipe(
    lookup,
    TE.flatMap(
      O.match(
        () =>
          TE.left<NotFound | Unavailable, Buyer>(
            notFound(
              'Buyer',
              value,
              problem('input', [field], `No buyer with this ${what} exists in this merchant account`, 'unknown_buyer'),
            ),
          ),
        (b) => TE.right(b),
      ),
    ),
  )
}

const REFUSALS: Readonly<Record<string, string>> = {
  invalid_gift_card: 'The gift card service does not know this gift card',
  expired_card: 'The gift card has expired',
  inactive_card: 'The gift card is not active',
}

const attempt =
  (deps: StoreDeps, cmd: StoreCommand) =>
  async (reservation: Reservation | null): Promise<Attempted<StoreError, GiftCard>> => {
    const own = (id: string) => reservation !== null && (id === reservation.reservedId || reservation.earlierIds.includes(id))
    const { input } = cmd
    const buyer = await resolveBuyer(deps.buyers, cmd.merchantAccountId, input)()
    if (E.isLeft(buyer)) return ended(buyer)
    const primary = await deps.services.findPrimary(cmd.merchantAccountId)()
    if (E.isLeft(primary)) return ended(primary)
    if (O.isNone(primary.right))
      return ended(
        E.left(invalidRequest(problem(null, [], 'This merchant account has no primary gift card service', 'no_gift_card_service'))),
      )
    const service = primary.right.value.service
    const connector = deps.connectors.forDefinition(service.gift_card_service_definition_id)
    if (O.isNone(connector)) return ended(E.left(serviceFailed(`no connector for ${service.gift_card_service_definition_id}`)))

    const fingerprint = deps.mac.mac('card-fingerprint', input.number)
    const existing = await deps.vault.findByFingerprint(cmd.merchantAccountId, fingerprint)()
    if (E.isLeft(existing)) return ended(existing)
    if (O.isSome(existing.right)) {
      const stored = existing.right.value.card
      // Our own earlier attempt's card: it was stored, and this is its answer.
      return ended(own(stored.id) ? E.right(stored) : E.left(duplicate('GiftCard', stored.id)))
    }

    const checked = await askConnector(BalanceResult, [input.number, input.pin], () =>
      connector.value.balance({ service, number: input.number, pin: input.pin }),
    )()
    if (E.isLeft(checked)) {
      // Only the balance list reports a card the service refuses per item; here a refusal is a 400.
      const e = checked.left
      return ended(E.left(e._tag === 'CardDeclined' ? invalidRequest(problem('input', ['number'], e.reason, 'card_declined')) : e))
    }
    const answer = checked.right
    if (answer._tag === 'Refused')
      return ended(
        E.left(
          invalidRequest(
            problem('input', ['number'], REFUSALS[answer.errorCode] ?? 'The gift card service refused this gift card', answer.errorCode),
          ),
        ),
      )

    const now = deps.clock.now().toISOString()
    const card: GiftCard = {
      type: 'gift-card',
      id: reservation?.reservedId ?? deps.ids.uuid(),
      merchant_account_id: cmd.merchantAccountId,
      gift_card_service: service,
      ...splitNumber(input.number),
      expiration_date: answer.expirationDate,
      buyer: buyer.right,
      created_at: now,
      updated_at: now,
      last_used_at: null,
      usage_count: 0,
      cit_last_used_at: null,
      cit_usage_count: 0,
    }
    const event = await deps.events.raise('gift-card.created', cmd.merchantAccountId, card)()
    if (E.isLeft(event)) return ended(event)
    const kept = await deps.events.record(
      event.right,
      deps.vault.insert({ card, fingerprint, sealed_number: deps.box.seal(input.number), sealed_pin: deps.box.seal(input.pin) }),
    )()
    // An earlier attempt of this request, still running after its lease ended, stored it first.
    if (E.isLeft(kept) && kept.left._tag === 'Duplicate' && own(kept.left.existingId)) {
      const found = await deps.vault.findById(cmd.merchantAccountId, kept.left.existingId)()
      const id = kept.left.existingId
      return ended(
        E.flatMap(
          O.match(
            () => E.left(duplicate('GiftCard', id)),
            (v: { card: GiftCard }) => E.right(v.card),
          ),
        )(found),
      )
    }
    return ended(E.map(() => card)(kept))
  }

/**
 * Stores an existing card (`POST /gift-cards`): the account's primary gift card service checks
 * it first with a balance check (a card it refuses is a 400 on `number`), then the vault keeps
 * it as activations do (number and PIN sealed, one card per fingerprint: a 409 naming it).
 * With an idempotency key it runs at most once per account and key, like an activation.
 */
export const makeStoreGiftCard = (deps: StoreDeps) =>
  makeCardWrite(deps, STORE_OPERATION)((cmd: StoreCommand) => attempt(deps, cmd), outcomeCodec)
