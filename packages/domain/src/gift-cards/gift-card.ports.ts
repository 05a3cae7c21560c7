import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { boundedString, nullable, str } from '../shared/codecs'
import { CardDeclined, Duplicate, ServiceFailed, ServiceTimeout, Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { GiftCard, GiftCardService, GiftCardServiceRecord } from './gift-card.codecs'

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

/**
 * A gift card provider. It must give up on its own within its timeout (`ServiceTimeout`);
 * a provider-side failure is `ServiceFailed`, a refusal of the card `CardDeclined`.
 */
export interface GiftCardConnector {
  activate(req: ActivationRequest): TE.TaskEither<ConnectorError, ActivationResult>
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

export interface GiftCardVault {
  /** The card with this id, if the account stores it. */
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>>
  findByFingerprint(merchantAccountId: string, fingerprint: string): TE.TaskEither<Unavailable, O.Option<VaultedGiftCard>>
  /** `Duplicate` with the stored card's id when the account already holds this fingerprint. Atomic. */
  insert(card: VaultedGiftCard): TE.TaskEither<Duplicate | Unavailable, void>
}
export const GiftCardVault = token<GiftCardVault>('GiftCardVault')
