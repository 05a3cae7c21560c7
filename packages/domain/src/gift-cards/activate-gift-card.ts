import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import { Buyer } from '../buyers/buyer'
import { BuyerRepository } from '../buyers/buyers.ports'
import { IdempotencyStore } from '../idempotency/idempotency.ports'
import { Attempted, IdempotencyConfig, OutcomeCodec, Reservation } from '../idempotency/run-idempotently'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import {
  CardDeclined,
  Duplicate,
  Forbidden,
  duplicate,
  InFlight,
  InvalidRequest,
  invalidRequest,
  problem,
  Replayed,
  replayed,
  ServiceFailed,
  serviceFailed,
  ServiceTimeout,
  Unavailable,
  unavailable,
} from '../shared/errors'
import { GiftCard, GiftCardActivationCreate } from './gift-card.codecs'
import { askConnector } from './ask-connector'
import { CardWriteCommand, CardWritten, makeCardWrite } from './card-write'
import { splitNumber } from './gift-card'
import { ActivationResult, GiftCardConnectors, GiftCardServiceRepository, GiftCardVault } from './gift-card.ports'
import { WebhookEvents } from '../webhooks/webhook-events.ports'

export type ActivateError =
  InvalidRequest | Forbidden | CardDeclined | Duplicate | InFlight | Replayed | ServiceFailed | ServiceTimeout | Unavailable

export interface ActivateCommand extends CardWriteCommand {
  readonly input: GiftCardActivationCreate
}
/** The activated card, and whether it is the replay of an earlier answer. */
export type Activated = CardWritten

export interface ActivateDeps {
  readonly services: GiftCardServiceRepository
  readonly connectors: GiftCardConnectors
  readonly vault: GiftCardVault
  readonly buyers: BuyerRepository
  readonly idempotency: IdempotencyStore
  readonly box: SecretBox
  readonly mac: Mac
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly events: WebhookEvents
  readonly config: IdempotencyConfig
}

export const ACTIVATION_OPERATION = 'POST /gift-cards/activations'

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

/** How a recorded activation is stored, and replayed: a failure as `Replayed`. */
const outcomeCodec: OutcomeCodec<ActivateError, GiftCard> = {
  encode: (o) => (E.isRight(o) ? { ok: true, value: GiftCard.encode(o.right) } : { ok: false, error: o.left }),
  decode: (stored) => {
    if (stored.ok) return E.mapLeft(() => unavailable(new Error('stored activation does not decode')))(GiftCard.decode(stored.value))
    const error = ReplayableError.decode(stored.error)
    return E.left(E.isRight(error) ? replayed(error.right) : unavailable(new Error('stored activation error does not decode')))
  },
}

const resolveBuyer = (deps: ActivateDeps, cmd: ActivateCommand): TE.TaskEither<ActivateError, Buyer | null> => {
  const { buyer_id, buyer_external_identifier } = cmd.input
  const [lookup, field, what] =
    buyer_id != null
      ? [deps.buyers.findById(cmd.merchantAccountId, buyer_id), 'buyer_id', 'id']
      : buyer_external_identifier != null
        ? [
            deps.buyers.findByExternalIdentifier(cmd.merchantAccountId, buyer_external_identifier),
            'buyer_external_identifier',
            'external identifier',
          ]
        : [TE.right(O.none), '', '']
  if (field === '') return TE.right(null)
  return pipe(
    lookup,
    TE.flatMap(
      O.match(
        () =>
          TE.left<ActivateError>(
            invalidRequest(problem('input', [field], `No buyer with this ${what} exists in this merchant account`, 'unknown_buyer')),
          ),
        (b) => TE.right(b),
      ),
    ),
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
    const own = (id: string) => reservation !== null && (id === reservation.reservedId || reservation.earlierIds.includes(id))
    const { input } = cmd
    const buyer = await resolveBuyer(deps, cmd)()
    if (E.isLeft(buyer)) return ended(buyer, 'checks')
    const primary = await deps.services.findPrimary(cmd.merchantAccountId)()
    if (E.isLeft(primary)) return ended(primary, 'checks')
    if (O.isNone(primary.right))
      return ended(
        E.left(invalidRequest(problem(null, [], 'This merchant account has no primary gift card service', 'no_gift_card_service'))),
        'checks',
      )
    const service = primary.right.value.service
    const connector = deps.connectors.forDefinition(service.gift_card_service_definition_id)
    if (O.isNone(connector)) return ended(E.left(serviceFailed(`no connector for ${service.gift_card_service_definition_id}`)), 'checks')

    const store = input.store === true
    // Only a stored card needs one (an HMAC is a fair share of an activation's own work).
    const fingerprint = store ? deps.mac.mac('card-fingerprint', input.number) : ''
    if (store) {
      const existing = await deps.vault.findByFingerprint(cmd.merchantAccountId, fingerprint)()
      if (E.isLeft(existing)) return ended(existing, 'checks')
      if (O.isSome(existing.right)) {
        const stored = existing.right.value.card
        // Our own earlier attempt's card: the activation happened, and this is its answer.
        return own(stored.id) ? ended(E.right(stored), 'earlier attempt') : ended(E.left(duplicate('GiftCard', stored.id)), 'checks')
      }
    }

    const secrets = input.pin == null ? [input.number] : [input.number, input.pin]
    const activated = await askConnector(ActivationResult, secrets, () =>
      connector.value.activate({
        service,
        number: input.number,
        pin: input.pin ?? null,
        amount: input.amount ?? null,
        currency: input.currency ?? null,
        externalIdentifier: input.external_identifier ?? null,
        idempotencyKey: cmd.idempotencyKey,
      }),
    )()
    if (E.isLeft(activated)) return ended(activated, 'provider')

    const now = deps.clock.now().toISOString()
    const card: GiftCard = {
      type: 'gift-card',
      id: reservation?.reservedId ?? deps.ids.uuid(),
      merchant_account_id: cmd.merchantAccountId,
      gift_card_service: service,
      ...splitNumber(input.number),
      expiration_date: activated.right.expirationDate,
      buyer: buyer.right,
      created_at: now,
      updated_at: now,
      last_used_at: null,
      usage_count: 0,
      cit_last_used_at: null,
      cit_usage_count: 0,
    }
    if (!store) return ended(E.right(card), 'provider')
    const event = await deps.events.raise('gift-card.created', cmd.merchantAccountId, card)()
    if (E.isLeft(event)) return ended(event, 'provider')
    const kept = await deps.events.record(
      event.right,
      deps.vault.insert({
        card,
        fingerprint,
        sealed_number: deps.box.seal(input.number),
        sealed_pin: input.pin == null ? null : deps.box.seal(input.pin),
      }),
    )()
    // An earlier attempt of this request, still running after its lease ended, vaulted first.
    if (E.isLeft(kept) && kept.left._tag === 'Duplicate' && own(kept.left.existingId)) {
      const id = kept.left.existingId
      const found = await deps.vault.findById(cmd.merchantAccountId, id)()
      // Gone since the clash: nothing to answer with but the clash.
      return ended(
        E.flatMap(
          O.match(
            () => E.left(duplicate('GiftCard', id)),
            (v: { card: GiftCard }) => E.right(v.card),
          ),
        )(found),
        'earlier attempt',
      )
    }
    return ended(E.map(() => card)(kept), 'provider')
  }

/**
 * Activates a physical card through the account's primary gift card service and, with
 * `store`, keeps it in the vault (number and PIN sealed, deduplicated by fingerprint).
 * With an idempotency key the whole activation runs at most once per account and key, and a
 * retry after a crash completes the original request: the card its first attempt vaulted is
 * answered with 201 (see `attempt`), while any other request for that number still gets 409.
 */
export const makeActivateGiftCard = (deps: ActivateDeps) =>
  makeCardWrite(deps, ACTIVATION_OPERATION)((cmd: ActivateCommand) => attempt(deps, cmd), outcomeCodec)
