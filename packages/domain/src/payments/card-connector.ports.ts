import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { ServiceFailed, ServiceTimeout } from '../shared/errors'
import { bool, literal, nullable, oneOf, str } from '../shared/codecs'
import { token } from '../shared/token'
import { PaymentServiceField, PaymentServiceRecord } from './payment-service'
import { CardDetails } from '../cards/card-details'
import { ProviderEvent, ProviderNotification, ProviderWebhook, WebhookRefused } from './provider-events'

/**
 * Every call names the authorization by `authorization`, the reference its authorize call
 * carried, and by `serviceTransactionId`, the id the service answered it with (null only for
 * the void of an authorization whose outcome is unknown: the service finds it by reference).
 * Each carries a `reference` of its own that the service deduplicates on: a call repeated with
 * the same reference (after a crash or a timeout) has its effect once and answers as the first
 * did. References are Orka's (the transaction id and the step).
 */
export interface AuthorizeRequest {
  readonly service: PaymentServiceRecord
  readonly reference: string
  /** Minor units. */
  readonly amount: number
  readonly currency: string
  /** Capture at once (the transaction's `intent: capture`). */
  readonly capture: boolean
  readonly card: CardDetails
  readonly billingPostalCode: string | null
}
export interface CaptureRequest {
  readonly service: PaymentServiceRecord
  readonly reference: string
  readonly authorization: string
  readonly serviceTransactionId: string
  readonly amount: number
  readonly currency: string
}
export interface VoidRequest {
  readonly service: PaymentServiceRecord
  readonly reference: string
  /** Voids whatever the authorization with this reference left at the service, if anything: also after a timeout, when its outcome is unknown. */
  readonly authorization: string
  readonly serviceTransactionId: string | null
}
export interface RefundRequest {
  readonly service: PaymentServiceRecord
  readonly reference: string
  readonly authorization: string
  readonly serviceTransactionId: string
  readonly amount: number
  readonly currency: string
}

/** The original API's AVS and CVV response codes. */
export const AvsResponseCode = oneOf('AVSResponseCode', [
  'no_match',
  'match',
  'unavailable',
  'partial_match_address',
  'partial_match_postcode',
])
export type AvsResponseCode = t.TypeOf<typeof AvsResponseCode>
export const CvvResponseCode = oneOf('CVVResponseCode', ['no_match', 'match', 'unavailable', 'not_provided'])
export type CvvResponseCode = t.TypeOf<typeof CvvResponseCode>

/** The card's funding type, as the service tells it (the original API's `card_type`). */
export const CardType = oneOf('CardType', ['credit', 'debit', 'prepaid'])
export type CardType = t.TypeOf<typeof CardType>

const raw = { rawResponseCode: nullable(str), rawResponseDescription: nullable(str) }

/**
 * What an authorization answers (decoded by the use case: a connector answering garbage is a
 * `ServiceFailed`). `Declined`: the card was refused, routing stops. `Failed`: the service could
 * not process it and holds no authorization, routing moves to the next service.
 */
export const AuthorizeResult = t.union([
  t.intersection([
    t.type({
      _tag: literal('Authorized'),
      serviceTransactionId: str,
      captured: bool,
      authCode: nullable(str),
      avs: nullable(AvsResponseCode),
      cvv: nullable(CvvResponseCode),
      cardType: nullable(CardType),
      ...raw,
    }),
    // The card scheme's id of this authorization (network transaction id), when the service tells it:
    // what later payments with the stored card refer to.
    t.partial({ schemeTransactionId: nullable(str) }),
  ]),
  t.type({ _tag: literal('Declined'), errorCode: str, avs: nullable(AvsResponseCode), cvv: nullable(CvvResponseCode), ...raw }),
  t.type({ _tag: literal('Failed'), errorCode: str, ...raw }),
])
export type AuthorizeResult = t.TypeOf<typeof AuthorizeResult>

/**
 * What a capture, void or refund answers; `serviceId` is the service's id for the capture or
 * refund. `Received`: the service took it and settles it later, by a notification (or when
 * asked, `lookup`): the operation is neither done nor open, it is awaited.
 */
export const OperationResult = t.union([
  t.type({ _tag: literal('Succeeded'), serviceId: nullable(str), ...raw }),
  t.type({ _tag: literal('Received'), serviceId: nullable(str), ...raw }),
  t.type({ _tag: literal('Declined'), errorCode: str, ...raw }),
  t.type({ _tag: literal('Failed'), errorCode: str, ...raw }),
])
export type OperationResult = t.TypeOf<typeof OperationResult>

/**
 * The outcome is unknown: the connector gave up within its own timeout (`ServiceTimeout`) or
 * failed in a way that says nothing of the service (`ServiceFailed`). The caller repeats the
 * call with the same reference, or voids the authorization, to settle it.
 */
export type CardConnectorError = ServiceFailed | ServiceTimeout

/** A provider's refusal of credentials: the field it names (if it names one) and its reason, never a value. */
export interface CredentialsRefused {
  readonly _tag: 'CredentialsRefused'
  readonly field: string | null
  readonly reason: string
}

/**
 * A card service. It must give up on its own within its timeout, honour every reference it is
 * given (the contract suite `cardConnectorContract` checks both), and never keep card data.
 */
export interface CardConnector {
  authorize(req: AuthorizeRequest): TE.TaskEither<CardConnectorError, AuthorizeResult>
  capture(req: CaptureRequest): TE.TaskEither<CardConnectorError, OperationResult>
  void(req: VoidRequest): TE.TaskEither<CardConnectorError, OperationResult>
  refund(req: RefundRequest): TE.TaskEither<CardConnectorError, OperationResult>
  /**
   * Whether the provider accepts a service's settings (its secrets opened): a cheap
   * authenticated call for a real provider, within the same timeout. Nothing is kept.
   */
  verify(fields: readonly PaymentServiceField[]): TE.TaskEither<CredentialsRefused | CardConnectorError, void>
  /**
   * Reads a webhook the provider sent to a service with these settings (secrets opened): its
   * events if it carries the service's signature (within the provider's tolerance of `now`),
   * else why not. Pure: no call, nothing kept.
   */
  readNotification(
    fields: readonly PaymentServiceField[],
    webhook: ProviderWebhook,
    now: Date,
  ): E.Either<WebhookRefused, ProviderNotification>
  /**
   * What the provider says now of an authorization and the calls on it, as events (for `sync`).
   * A provider with no way to be asked answers none: its notifications are the only word.
   */
  lookup(req: LookupRequest): TE.TaskEither<CardConnectorError, readonly ProviderEvent[]>
}
/** An authorization, and the references of the calls on it Orka awaits the outcome of. */
export interface LookupRequest {
  readonly service: PaymentServiceRecord
  readonly authorization: string
  readonly serviceTransactionId: string
  readonly awaited: readonly string[]
}

export interface CardConnectors {
  forDefinition(definitionId: string): O.Option<CardConnector>
}
export const CardConnectors = token<CardConnectors>('CardConnectors')
