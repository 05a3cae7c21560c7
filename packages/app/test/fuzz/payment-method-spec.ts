import type { FuzzRequest } from './requests'
import type { CardSpec, KeySpec, ListParam, Prop } from './transaction-spec'

/**
 * What a generated request to the payment method routes (issue 26) means, for the model to
 * predict what it gets (payment-method-model.ts): storing a card (`POST /payment-methods`, by
 * card or from a checkout session), reading, changing and deleting one the run stored (or an
 * unknown, deleted, foreign or malformed id), and the two lists. Like a transaction spec, it is
 * symbolic where its value depends on the run: the method it names, the model's buyer.
 */

/** Who sends it: a token and the merchant account it names (`adminAcme`: an instance-wide key acting in `acme`). */
export type PmAuth =
  | 'admin'
  | 'adminAcme'
  | 'readOnly'
  | 'narrow'
  | 'giftCardOperator'
  | 'none'
  | 'expired'
  /** A fresh embed token with no buyer claim (each its own rate-limit identity). */
  | 'embed'
  /** A fresh embed token whose claim names the model's buyer of the account. */
  | 'embedBuyer'

/**
 * Whom a card is stored for: the model's buyer (by id, upper-case id or external identifier),
 * none (absent, or both names null), a buyer the account does not have, or a faulty name.
 */
export type OwnerSpec =
  | 'none'
  | 'nulls'
  | 'buyerId'
  | 'buyerIdUpper'
  | 'buyerExternal'
  | 'unknownId'
  | 'unknownExternal'
  /** Both names given: the schema's rule refuses it (422). */
  | 'both'
  | 'badId'
  | 'badExternal'

/** What a store sends: a card, a card the run stored before (again, or renewed), a checkout session's card, or a method no schema takes. */
export type StoreSource =
  | { readonly k: 'card'; readonly card: CardSpec }
  /** A stored card of the account sent again for its own buyer (or none), its expiry `months` from now. */
  | { readonly k: 'again'; readonly pick: number; readonly months: number }
  | {
      readonly k: 'session'
      readonly state: 'fresh' | 'empty' | 'unknown' | 'otherAccount' | 'malformed'
      readonly card: CardSpec
    }
  /** `method` absent or not one of the two: a 422 at `method`. */
  | { readonly k: 'badMethod'; readonly method: unknown }

export interface StoreSpec {
  readonly op: 'store'
  readonly source: StoreSource
  readonly owner: OwnerSpec
  /** `external_identifier`, `card_type`, unknown keys: accepted or a fault at their key. */
  readonly extras: readonly Prop[]
}

/** Which method a request names. */
export type PmTarget =
  | { readonly k: 'pooled'; readonly pick: number; readonly upper: boolean }
  | { readonly k: 'deleted'; readonly pick: number }
  | { readonly k: 'unknown'; readonly id: string }
  | { readonly k: 'otherAccount'; readonly pick: number }
  | { readonly k: 'malformed'; readonly segment: string }

export interface GetSpec {
  readonly op: 'get'
  readonly target: PmTarget
}
export interface UpdateSpec {
  readonly op: 'update'
  readonly target: PmTarget
  readonly props: readonly Prop[]
}
export interface DeleteSpec {
  readonly op: 'delete'
  readonly target: PmTarget
}
/** `GET /payment-methods`; a `Slot` value names the model's buyer or a method's external identifier. */
export interface PmListSpec {
  readonly op: 'list'
  readonly params: readonly ListParam[]
}
/** `GET /buyers/payment-methods`. */
export interface BuyerListSpec {
  readonly op: 'buyerList'
  readonly params: readonly ListParam[]
}

export type PmSpec = StoreSpec | GetSpec | UpdateSpec | DeleteSpec | PmListSpec | BuyerListSpec

export interface PmTransport {
  readonly auth: PmAuth
  readonly key: Extract<KeySpec, 'none' | 'fresh' | 'bad' | 'replay'>
  readonly escape: 'plain' | 'ascii' | 'all'
  readonly spaced: boolean
  readonly chunked: boolean
  readonly trailingSlash: boolean
  readonly headerCase: FuzzRequest['headerCase']
}

/** A generated payment method request: what the suite sends once the model made it (`pm.spec`). */
export interface PmFuzzRequest extends FuzzRequest {
  readonly pm: { readonly spec: PmSpec; readonly transport: PmTransport }
}

export const isPmRequest = (q: FuzzRequest): q is PmFuzzRequest => 'pm' in q
