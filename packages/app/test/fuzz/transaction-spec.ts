import * as fc from 'fast-check'
import type { FuzzRequest } from './requests'

/**
 * What a generated transaction request means, for the model to predict what it gets
 * (transaction-model.ts). A spec is symbolic where its value depends on the run: the
 * transaction it names, an amount relative to what is left, an expiry date relative to today,
 * a checkout session made for it. The model makes the request from it when it is sent.
 */

/**
 * A value only the run knows, filled in when the request is made: the model's buyer (its id,
 * in upper case, its external identifier), the account's card service and another account's,
 * an external identifier and a checkout session the run used, and now plus `n` hours.
 */
export class Slot {
  constructor(
    readonly name: 'buyerId' | 'buyerIdUpper' | 'buyerExternal' | 'serviceId' | 'otherServiceId' | 'externalId' | 'sessionId' | 'now',
    readonly n = 0,
  ) {}
  [fc.toStringMethod](): string {
    return `Slot(${this.name}${this.n === 0 ? '' : `,${this.n}`})`
  }
}

/** Who sends it: a token and the merchant account it names (`adminAcme`: an instance-wide key acting in `acme`). */
export type TxAuth =
  | 'admin'
  | 'adminAcme'
  | 'acmeAdmin'
  | 'acmeAdminOnDefault'
  | 'readOnly'
  | 'giftCardOperator'
  | 'narrow'
  | 'none'
  | 'expired'
  | 'badSignature'
  /** A fresh embed token (never rate limited), with no claim; `embedPinned` pins an amount, `embedBuyer` the model's buyer. */
  | 'embed'
  | 'embedPinned'
  | 'embedBuyer'

/**
 * One property of a body and what the server makes of it: accepted (`value` is what it decodes
 * to), a schema fault (422 at `loc`, the property's own key when absent), or accepted by the
 * schema but refused as unsupported (400 naming it).
 */
export interface Prop {
  readonly key: string
  readonly tree: unknown
  readonly effect: 'ok' | '422' | '400'
  readonly value?: unknown
  readonly loc?: readonly (string | number)[]
}

/** An amount: a number, or one relative to what the transaction allows (`all`, a share, one more than allowed). */
export type AmountSpec =
  | { readonly k: 'absent' }
  | { readonly k: 'null' }
  | { readonly k: 'fixed'; readonly amount: number }
  | { readonly k: 'share'; readonly share: number }
  | { readonly k: 'over' }
  | { readonly k: 'bad'; readonly tree: unknown }

export type ExpirySpec = { readonly months: number } | { readonly bad: unknown }

export interface CardSpec {
  /** Luhn-valid digits, or a faulty value (`numberOk` false). */
  readonly number: unknown
  readonly numberOk: boolean
  readonly digits: string | null
  readonly expiry: ExpirySpec
  /** Absent (undefined), null, or a value: `cvvOk` says whether the schema takes it. */
  readonly cvv?: unknown
  readonly cvvOk: boolean
}

/** What a checkout session paid with holds: the card (`fresh`), a stored method Secure Fields named (`stored`), nothing, or it is no live session of the account. */
export type SessionCase = 'fresh' | 'stored' | 'empty' | 'used' | 'unknown' | 'otherAccount' | 'deleted' | 'malformed'

/** Which stored method a payment names: one that can pay, any the run stored (deleted, failed, expired ones too), an unknown or malformed id, another account's. */
export type StoredPick = 'usable' | 'any' | 'unknown' | 'malformed' | 'otherAccount'

export type PaymentMethodSpec =
  | { readonly kind: 'card'; readonly card: CardSpec; readonly extras: readonly Prop[] }
  | {
      readonly kind: 'session'
      readonly session: SessionCase
      readonly card: CardSpec
      readonly bad?: string
      readonly extras: readonly Prop[]
    }
  | {
      readonly kind: 'stored'
      readonly pick: StoredPick
      readonly n: number
      /** The security code typed for this payment: absent (undefined), null, or a value (`cvvOk`: whether the schema takes it). */
      readonly cvv?: unknown
      readonly cvvOk: boolean
      readonly extras: readonly Prop[]
    }
  /** Not a payment method the schema takes (`refined`: null, which only the rule that one is required refuses). */
  | { readonly kind: 'malformed'; readonly tree: unknown; readonly loc: readonly (string | number)[]; readonly refined?: boolean }

export type KeySpec = 'none' | 'fresh' | 'bad' | 'replay' | 'reuse'

export interface CreateSpec {
  readonly op: 'create'
  readonly props: readonly Prop[]
  readonly pm: PaymentMethodSpec
  /** `amount` written twice, something else first: the last one counts. */
  readonly duplicateAmount: unknown
}

/** Which transaction a request on one names. */
export type TargetSpec =
  | { readonly k: 'pooled'; readonly pick: number; readonly upper: boolean }
  | { readonly k: 'unknown'; readonly id: string }
  | { readonly k: 'otherAccount'; readonly pick: number }
  | { readonly k: 'malformed'; readonly segment: string }

export type OperationName = 'capture' | 'void' | 'refund' | 'refundAll' | 'update' | 'cancel'
export type ReadName = 'get' | 'events' | 'captures' | 'refunds' | 'refund' | 'refundById' | 'capture' | 'actions' | 'settlement'

export interface OperationSpec {
  readonly op: OperationName
  readonly target: TargetSpec
  readonly amount: AmountSpec
  /** The other properties of the body; `bodyless` sends none at all (the operations whose body is optional). */
  readonly props: readonly Prop[]
  readonly bodyless: boolean
  readonly prefer: boolean
}

export interface ReadSpec {
  readonly op: 'read'
  readonly read: ReadName
  readonly target: TargetSpec
  /** For a capture or refund by id: one of the transaction's, or any UUID. */
  readonly known: boolean
}

/**
 * One `name=value` of a list's query: its value (percent-encoded when sent; `encoded` is sent
 * as it is), and whether it is a fault (422 at `fault`) or a filter the items must match
 * (`filter`: what it means; a `Slot` when the run knows it).
 */
export interface ListParam {
  readonly name: string
  readonly value: string | Slot
  readonly encoded?: boolean
  readonly fault?: readonly (string | number)[]
  readonly filter?: unknown
  /** One of the original API's filters Orka does not offer: a 400 naming it, before anything else of the query. */
  readonly refused?: boolean
}

export interface ListSpec {
  readonly op: 'list'
  readonly params: readonly ListParam[]
  /** A cursor of an earlier page of the same list, of another list, or garbage. */
  readonly cursor: 'none' | 'same' | 'other' | 'garbage'
}

export type TxSpec = CreateSpec | OperationSpec | ReadSpec | ListSpec

/** The transport around the meaning: who, with which key, how it is written. */
export interface TxTransport {
  readonly auth: TxAuth
  readonly key: KeySpec
  readonly escape: 'plain' | 'ascii' | 'all'
  readonly spaced: boolean
  readonly chunked: boolean
  readonly trailingSlash: boolean
  readonly headerCase: FuzzRequest['headerCase']
}

/** A generated transaction request: what the suite sends once the model made it (`tx.spec`). */
export interface TxFuzzRequest extends FuzzRequest {
  readonly tx: { readonly spec: TxSpec; readonly transport: TxTransport }
}

export const isTxRequest = (q: FuzzRequest): q is TxFuzzRequest => 'tx' in q
