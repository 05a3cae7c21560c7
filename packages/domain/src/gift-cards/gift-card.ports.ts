import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { boundedString, intRange, nullable, str } from '../shared/codecs'
import { CardDeclined, Duplicate, ServiceFailed, ServiceTimeout, Unavailable } from '../shared/errors'
import { Seek } from '../pagination/page'
import { token } from '../shared/token'
import { GiftCard, GiftCardErrorCode, GiftCardService, GiftCardServiceRecord } from './gift-card.codecs'

export interface GiftCardServiceRepository {
  /** The account's primary gift card service, if it has one. */
  findPrimary(merchantAccountId: string): TE.TaskEither<Unavailable, O.Option<GiftCardServiceRecord>>
  /** Creates or replaces the service with this id; a primary one demotes the account's other services. */
  upsert(record: GiftCardServiceRecord): TE.TaskEither<Unavailable, void>
}
export const GiftCardServiceRepository = token<GiftCardServiceRepository>('GiftCardServiceRepository')

export interface ActivationRequest {
  readonly service: GiftCardService
  readonly number: string
  readonly pin: string | null
  readonly amount: number | null
  readonly currency: string | null
  readonly externalIdentifier: string | null
  /** Forwarded so that a provider which supports it makes the activation idempotent. */
  readonly idempotencyKey: string | null
}
// RFC 3339, as the GiftCard's `expiration_date` is shown; a provider's free-form date is refused.
const Instant = boundedString('date-time', { pattern: /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/ })

/** What an activation answers; the use case decodes it, so a provider answering garbage is a `ServiceFailed`. */
export const ActivationResult = t.type({ expirationDate: nullable(Instant) })
export type ActivationResult = t.TypeOf<typeof ActivationResult>
export type ConnectorError = CardDeclined | ServiceFailed | ServiceTimeout

export interface BalanceRequest {
  readonly service: GiftCardService
  readonly number: string
  readonly pin: string | null
}

/**
 * What a balance check answers (decoded by the use case): the card's balance in minor units, or
 * the service's refusal of this one card with its `GiftCardErrorCode`. A refusal concerns the
 * card only; the service failing or not answering is the connector's `ServiceFailed` /
 * `ServiceTimeout` (for a balance list: `service_error` / `service_network_error` per item).
 */
export const BalanceResult = t.union([
  t.type({
    _tag: t.literal('Balance'),
    balance: intRange('balance', 0),
    currency: boundedString('currency', { pattern: /^[A-Z]{3}$/ }),
    expirationDate: nullable(Instant),
  }),
  t.type({ _tag: t.literal('Refused'), errorCode: GiftCardErrorCode }),
])
export type BalanceResult = t.TypeOf<typeof BalanceResult>

/** Spending from a card: `reference` is unique per redemption, and the provider applies it once. */
export interface RedemptionRequest {
  readonly service: GiftCardService
  readonly number: string
  readonly pin: string | null
  readonly amount: number
  readonly currency: string
  readonly reference: string
}

/**
 * What a redemption answers (decoded by the use case): taken, with the balance left, or the
 * service's refusal of the card (`insufficient_funds`, `incorrect_currency`, …). Asked again
 * with the same reference, the provider answers as the first time and takes nothing more.
 */
export const RedemptionResult = t.union([
  t.type({ _tag: t.literal('Redeemed'), balance: intRange('balance', 0) }),
  t.type({ _tag: t.literal('Refused'), errorCode: GiftCardErrorCode }),
])
export type RedemptionResult = t.TypeOf<typeof RedemptionResult>

/** Giving back (all or part of) a redemption: `reference` is unique per credit, `redemption` the one it gives back. */
export interface CreditRequest extends RedemptionRequest {
  readonly redemption: string
}

/** What a reversal or a refund answers: the balance after it. */
export const CreditResult = t.type({ balance: intRange('balance', 0) })
export type CreditResult = t.TypeOf<typeof CreditResult>

/**
 * A gift card provider. It must give up on its own within its timeout (`ServiceTimeout`);
 * a provider-side failure is `ServiceFailed`, a refusal of the card `CardDeclined`.
 */
export interface GiftCardConnector {
  activate(req: ActivationRequest): TE.TaskEither<ConnectorError, ActivationResult>
  /** The card's current balance, or the service's refusal of the card. Has no effect on the card. */
  balance(req: BalanceRequest): TE.TaskEither<ConnectorError, BalanceResult>
  /** Takes `amount` off the card, once per reference. */
  redeem(req: RedemptionRequest): TE.TaskEither<ConnectorError, RedemptionResult>
  /** Undoes a redemption that its transaction gave up (in full), once per reference. */
  reverse(req: CreditRequest): TE.TaskEither<ConnectorError, CreditResult>
  /** Gives back part or all of a redemption after the fact, once per reference. */
  refund(req: CreditRequest): TE.TaskEither<ConnectorError, CreditResult>
}
export interface GiftCardConnectors {
  forDefinition(definitionId: string): O.Option<GiftCardConnector>
}
export const GiftCardConnectors = token<GiftCardConnectors>('GiftCardConnectors')

/**
 * A card kept in the vault. Number and PIN are sealed (SecretBox); `fingerprint` is a keyed
 * MAC of the number, unique per merchant account, so the same card is stored once.
 */
export const VaultedGiftCard = t.type({
  card: GiftCard,
  fingerprint: str,
  sealed_number: str,
  sealed_pin: nullable(str),
})
export type VaultedGiftCard = t.TypeOf<typeof VaultedGiftCard>

/** What `GiftCardVault.list` keeps: only the cards stored for this buyer, when given. */
export interface GiftCardFilter {
  readonly buyer_id?: string
}

export interface GiftCardVault {
  /** The card with this id, if the account stores it. */
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>>
  findByFingerprint(merchantAccountId: string, fingerprint: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>>
  /** `Duplicate` with the stored card's id when the account already holds this fingerprint. Atomic. */
  insert(card: VaultedGiftCard): TE.TaskEither<Duplicate | Unavailable, void>
  /** Keyset read of one account's cards in descending (created_at, id) order: newest first. */
  list(merchantAccountId: string, filter: GiftCardFilter, seek: Seek): TE.TaskEither<Unavailable, readonly GiftCard[]>
  /** The buyer's cards with their sealed number and PIN, newest first, at most `limit`: for balance checks. */
  forBuyer(merchantAccountId: string, buyerId: string, limit: number): TE.TaskEither<Unavailable, readonly VaultedGiftCard[]>
  /**
   * Removes the card with this id from the account, sealed number and PIN with it (nothing is
   * kept). False when the account holds no such card (never held, or already deleted).
   */
  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean>
  /**
   * One more successful use of the card at `at` (a redemption in a transaction): `usage_count`
   * + 1 and `last_used_at`, in one atomic update. False when the account holds no such card.
   */
  recordUse(merchantAccountId: string, id: string, at: string): TE.TaskEither<Unavailable, boolean>
  /** Removes every card the account stores for this buyer, as `delete` does; how many were removed. */
  deleteByBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, number>
}
export const GiftCardVault = token<GiftCardVault>('GiftCardVault')
