import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Buyer } from '../buyers/buyer'
import { BuyerRepository } from '../buyers/buyers.ports'
import { BuyerName } from '../buyers/named-buyer'
import { IdempotencyStore } from '../idempotency/idempotency.ports'
import {
  Answered,
  Attempted,
  IdempotencyConfig,
  IdempotencyRefusal,
  makeRunIdempotently,
  OutcomeCodec,
  recordedOutcomeCodec,
  Reservation,
} from '../idempotency/run-idempotently'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import {
  duplicate,
  Duplicate,
  Forbidden,
  InvalidRequest,
  invalidRequest,
  problem,
  ServiceFailed,
  serviceFailed,
  Unavailable,
} from '../shared/errors'
import { AuditActor } from '../audit/audit-entry'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import { CardReach, mayWriteFor } from '../reach/card-reach'
import { canonicalJson, splitNumber } from './gift-card'
import { GiftCard, giftCardResource, GiftCardService } from './gift-card.codecs'
import { GiftCardConnector, GiftCardConnectors, GiftCardServiceRepository, GiftCardVault } from './gift-card.ports'

/*
 * What the two requests that write a card (activating it, storing it) share: how they run under
 * an idempotency key, and the steps both take. Each use case's file lists its own steps in order.
 */

/** What writing a card needs: activating and storing take the same ports. */
export interface CardWriteDeps {
  readonly giftCardServices: GiftCardServiceRepository
  readonly giftCardConnectors: GiftCardConnectors
  readonly giftCardVault: GiftCardVault
  readonly buyers: BuyerRepository
  readonly idempotency: IdempotencyStore
  readonly box: SecretBox
  readonly mac: Mac
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly events: WebhookEvents
  readonly audited: RecordAudited
  readonly config: IdempotencyConfig
}

/** What a request that writes a card (activation, store) names. */
export interface CardWriteCommand {
  readonly merchantAccountId: string
  readonly actor: AuditActor
  readonly input: BuyerName
  readonly idempotencyKey: string | null
  /** Whose cards the caller may write (`cardReach(access, 'gift-cards.write')`): it bounds the buyer the card is stored for. */
  readonly reach: CardReach
}

/**
 * Runs a card-writing request (a gift card's, a payment method's): once, or, with an
 * idempotency key, at most once per account, operation and key (the fingerprint is a MAC of the
 * canonical body), answering a repeat from what was recorded. Whether the caller may write for
 * the buyer the input names is checked first, before any record is looked up (see
 * `makeRunIdempotently`).
 */
export const makeCardWrite =
  (deps: Pick<CardWriteDeps, 'buyers' | 'idempotency' | 'clock' | 'ids' | 'mac' | 'config'>, operation: { readonly name: string }) =>
  <Cmd extends CardWriteCommand, Err, A = GiftCard>(
    attempt: (cmd: Cmd) => (reservation: Reservation | null) => Promise<Attempted<Err, A>>,
    codec: OutcomeCodec<Err, A>,
  ) => {
    const runIdempotently = makeRunIdempotently({ store: deps.idempotency, clock: deps.clock, ids: deps.ids, config: deps.config })
    return (cmd: Cmd): TE.TaskEither<Err | Forbidden | IdempotencyRefusal, Answered<A>> => {
      const authorize = mayWriteFor(deps.buyers, cmd.merchantAccountId, cmd.reach, cmd.input)
      if (cmd.idempotencyKey === null)
        return pipe(
          authorize,
          TE.flatMap(() => async () => (await attempt(cmd)(null)).outcome),
          TE.map((value): Answered<A> => ({ value, replayed: false })),
        )
      const request = {
        merchantAccountId: cmd.merchantAccountId,
        operation: operation.name,
        key: cmd.idempotencyKey,
        fingerprint: deps.mac.mac('idempotency-fingerprint', canonicalJson(cmd.input)),
      }
      return runIdempotently(request, authorize, attempt(cmd), codec)
    }
  }

/** A card write's recorded outcome: the gift card. */
export const cardOutcomeCodec = <Err>(replayed: (error: unknown) => Err | Unavailable): OutcomeCodec<Err, GiftCard> =>
  recordedOutcomeCodec(GiftCard, replayed)

/** Whether `id` is what an attempt of this very request created: the id reserved for it, or one an earlier unfinished attempt reserved. */
const isOwn = (reservation: Reservation | null, id: string): boolean =>
  reservation !== null && (id === reservation.reservedId || reservation.earlierIds.includes(id))

/** The account's primary gift card service, and the connector that speaks to it. */
export interface Provider {
  readonly service: GiftCardService
  readonly connector: GiftCardConnector
}

/** Step: the provider a card write goes to. An account without a primary service is a `400`; a service no connector speaks to, ours to fix. */
export const primaryProvider = (
  deps: Pick<CardWriteDeps, 'giftCardServices' | 'giftCardConnectors'>,
  merchantAccountId: string,
): TE.TaskEither<InvalidRequest | ServiceFailed | Unavailable, Provider> =>
  pipe(
    deps.giftCardServices.findPrimary(merchantAccountId),
    TE.flatMap((primary): TE.TaskEither<InvalidRequest | ServiceFailed | Unavailable, Provider> => {
      if (O.isNone(primary))
        return TE.left(invalidRequest(problem(null, [], 'This merchant account has no primary gift card service', 'no_gift_card_service')))
      const { service } = primary.value
      const connector = deps.giftCardConnectors.forDefinition(service.gift_card_service_definition_id)
      return O.isNone(connector)
        ? TE.left(serviceFailed(`no connector for ${service.gift_card_service_definition_id}`, 'gift-card'))
        : TE.right({ service, connector: connector.value })
    }),
  )

/** The vault's key for a card number: a keyed MAC, unique per account, so the same card is stored once. */
export const fingerprintOf = (mac: Mac, number: string): string => mac.mac('card-fingerprint', number)

/**
 * Step: what the vault already holds for this number. Nothing; the card an earlier attempt of
 * this very request vaulted before it died (`some`: that card is the request's answer); or
 * another request's card, a `Duplicate` naming it.
 */
export const vaultedBefore = (
  vault: GiftCardVault,
  merchantAccountId: string,
  fingerprint: string,
  reservation: Reservation | null,
): TE.TaskEither<Duplicate | Unavailable, O.Option<GiftCard>> =>
  pipe(
    vault.findByFingerprint(merchantAccountId, fingerprint),
    TE.flatMap(
      O.match(
        () => TE.right(O.none),
        ({ card }) => (isOwn(reservation, card.id) ? TE.right(O.some(card)) : TE.left(duplicate('GiftCard', card.id))),
      ),
    ),
  )

/** What the request and the provider's answer say of a card written now. */
export interface NewCard {
  readonly merchantAccountId: string
  readonly service: GiftCardService
  readonly number: string
  readonly expirationDate: string | null
  readonly buyer: Buyer | null
}

/** Step: the record of a card written now, with the id reserved for this attempt when it has one. */
export const newCard = (deps: Pick<CardWriteDeps, 'clock' | 'ids'>, reservation: Reservation | null, c: NewCard): GiftCard => {
  const now = deps.clock.now().toISOString()
  return {
    type: 'gift-card',
    id: reservation?.reservedId ?? deps.ids.uuid(),
    merchant_account_id: c.merchantAccountId,
    gift_card_service: c.service,
    ...splitNumber(c.number),
    expiration_date: c.expirationDate,
    buyer: c.buyer,
    created_at: now,
    updated_at: now,
    last_used_at: null,
    usage_count: 0,
    cit_last_used_at: null,
    cit_usage_count: 0,
  }
}

/** How vaulting ended, and whose card answers: this attempt's, or the one an earlier attempt of the request vaulted first. */
export interface Vaulted {
  readonly outcome: E.Either<Duplicate | Unavailable, GiftCard>
  readonly by: 'this attempt' | 'earlier attempt'
}

/**
 * Step: keeps the card in the vault, number and PIN sealed, its `gift-card.created` event in the
 * outbox first. A clash with one of the request's own ids means an earlier attempt, still
 * running after its lease ended, vaulted first: its card is the answer.
 */
export const vaultWithEvent =
  (
    deps: Pick<CardWriteDeps, 'giftCardVault' | 'events' | 'box' | 'audited'>,
    reservation: Reservation | null,
    actor: AuditActor,
    card: GiftCard,
    secrets: { readonly fingerprint: string; readonly number: string; readonly pin: string | null },
  ) =>
  async (): Promise<Vaulted> => {
    const kept = await pipe(
      deps.events.raise('gift-card.created', card.merchant_account_id, card),
      TE.flatMap((event) =>
        deps.audited(
          changeOf({ merchantAccountId: card.merchant_account_id, actor }, giftCardResource(card), 'created', 'gift-card-present'),
          deps.events.record(
            event,
            deps.giftCardVault.insert({
              card,
              fingerprint: secrets.fingerprint,
              sealed_number: deps.box.seal(secrets.number),
              sealed_pin: secrets.pin === null ? null : deps.box.seal(secrets.pin),
            }),
          ),
        ),
      ),
    )()
    if (E.isLeft(kept) && kept.left._tag === 'Duplicate' && isOwn(reservation, kept.left.existingId))
      return { outcome: await earlierCard(deps.giftCardVault, card.merchant_account_id, kept.left.existingId)(), by: 'earlier attempt' }
    return { outcome: E.map(() => card)(kept), by: 'this attempt' }
  }

/** The card an earlier attempt of the request vaulted; gone since the clash, there is nothing to answer with but the clash. */
const earlierCard = (vault: GiftCardVault, merchantAccountId: string, id: string): TE.TaskEither<Duplicate | Unavailable, GiftCard> =>
  pipe(
    vault.findById(merchantAccountId, id),
    TE.flatMap(TE.fromOption(() => duplicate('GiftCard', id))),
    TE.map((v) => v.card),
  )
