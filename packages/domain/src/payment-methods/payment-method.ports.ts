import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { str } from '../shared/codecs'
import { Duplicate, Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { PaymentMethod, PaymentMethodStatus } from './payment-method.codecs'
import { CardScheme } from '../cards/card.codecs'

/**
 * A card kept in the vault: its number sealed (SecretBox), never its security code. `fingerprint`
 * is the keyed MAC every payment card view shows; the vault holds one method per account, buyer
 * (`method.buyer?.id`, or none) and fingerprint: the same card stored twice for a buyer is one.
 */
export const VaultedPaymentMethod = t.type({
  method: PaymentMethod,
  sealed_number: str,
})
export type VaultedPaymentMethod = t.TypeOf<typeof VaultedPaymentMethod>

/** What `PaymentMethodVault.list` keeps: each given filter narrows (statuses: any of them). */
export interface PaymentMethodFilter {
  readonly buyer_id?: string
  readonly status?: readonly PaymentMethodStatus[]
  readonly external_identifier?: string
}

/** The properties a `PUT` or a renewed card may change; absent leaves one as it is. */
export type PaymentMethodChanges = Partial<
  Pick<
    PaymentMethod,
    'expiration_date' | 'external_identifier' | 'scheme_transaction_id' | 'scheme_transaction_id_scheme' | 'transaction_link_id'
  >
>

/**
 * What the service that authorized a stored card's first payment told of the card: its funding
 * type (`details.card_type`) and the scheme's id of that authorization (`scheme_transaction_id`).
 */
export interface StoredCardFacts {
  readonly cardType: string | null
  readonly schemeTransactionId: string | null
  /** The card's scheme: the scheme of that id. */
  readonly scheme: t.TypeOf<typeof CardScheme> | null
}

/**
 * The stored method's fields what was `learned` sets, in the API's shape: only what the service
 * told (a null leaves its field as it was).
 */
export const learnedFacts = (
  m: Pick<PaymentMethod, 'details'>,
  learned: StoredCardFacts | undefined,
): Partial<Pick<PaymentMethod, 'details' | 'scheme_transaction_id' | 'scheme_transaction_id_scheme'>> => ({
  ...(learned?.cardType == null ? {} : { details: { bin: m.details?.bin ?? null, ...m.details, card_type: learned.cardType } }),
  ...(learned?.schemeTransactionId == null
    ? {}
    : { scheme_transaction_id: learned.schemeTransactionId, scheme_transaction_id_scheme: learned.scheme }),
})

export interface PaymentMethodVault {
  /** The method with this id, if the account stores it. */
  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedPaymentMethod>>
  /** The method the account stores for this buyer (null: for no buyer) and card fingerprint. */
  findByFingerprint(
    merchantAccountId: string,
    owner: string | null,
    fingerprint: string,
  ): TE.TaskEither<Unavailable, O.Option<VaultedPaymentMethod>>
  /** `Duplicate` with the stored method's id when the account holds this (owner, fingerprint) or this id. Atomic. */
  insert(method: VaultedPaymentMethod): TE.TaskEither<Duplicate | Unavailable, void>
  /** Keyset read of one account's methods in descending (created_at, id) order: newest first. */
  list(merchantAccountId: string, filter: PaymentMethodFilter, seek: Seek): TE.TaskEither<Unavailable, readonly PaymentMethod[]>
  /** The buyer's methods of these statuses, newest first, at most `limit`. */
  forBuyer(
    merchantAccountId: string,
    buyerId: string,
    statuses: readonly PaymentMethodStatus[],
    limit: number,
  ): TE.TaskEither<Unavailable, readonly PaymentMethod[]>
  /** Applies `changes` and stamps `updated_at: at`; the method as it now is, none when the account holds no such method. */
  update(
    merchantAccountId: string,
    id: string,
    changes: PaymentMethodChanges,
    at: string,
  ): TE.TaskEither<Unavailable, O.Option<PaymentMethod>>
  /**
   * The outcome of the payment that stored the card (`store: true`): `succeeded` from any
   * status, `failed` only from `processing` (a card that paid once stays usable). False when
   * the account holds no such method or its status stays as it was. Idempotent. A settle to
   * `succeeded` also keeps what the service told of the card (`learned`, the values not null).
   */
  settle(
    merchantAccountId: string,
    id: string,
    outcome: 'succeeded' | 'failed',
    at: string,
    learned?: StoredCardFacts,
  ): TE.TaskEither<Unavailable, boolean>
  /**
   * One more successful use at `at`: `usage_count` + 1 and `last_used_at`, and the `cit_` pair
   * when the buyer started the payment, in one atomic update. False when there is no such method.
   */
  recordUse(merchantAccountId: string, id: string, at: string, customerInitiated: boolean): TE.TaskEither<Unavailable, boolean>
  /** Removes the method, its sealed number with it (nothing is kept). False when the account holds no such method. */
  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean>
  /** Removes every method the account stores for this buyer, as `delete` does; how many were removed. */
  deleteByBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, number>
}
export const PaymentMethodVault = token<PaymentMethodVault>('PaymentMethodVault')
