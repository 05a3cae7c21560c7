import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import {
  AuthorizeRequest,
  AuthorizeResult,
  CaptureRequest,
  CardConnector,
  CardConnectorError,
  CredentialsRefused,
  fieldOf,
  OperationResult,
  PaymentServiceField,
  ProviderEvent,
  ProviderNotification,
  ProviderWebhook,
  RefundRequest,
  serviceFailed,
  serviceTimeout,
  VoidRequest,
  WebhookRefused,
} from '@orka/domain'
import { withTimeout } from '../../with-timeout'
import { CallSlots, DEFAULT_MAX_CONNECTIONS } from '../call-slots'
import { isConnectorError, NotSent } from '../provider-http'
import { AdyenAnswer, AdyenCall, callAdyen } from './client'
import { adyenBaseUrl } from './definition'
import { readAdyenNotification } from './notification'
import { captureCall, cancelCall, paymentCall, paymentMethodsCall, refundCall } from './requests'
import { authorizeResultOf, operationResultOf, refusedField } from './responses'

export interface AdyenCardConnectorOptions {
  /** The operator's stand-in for Adyen (`CONNECTOR_ENDPOINTS`), if any: else each service's own endpoint, test or live. */
  readonly baseUrl: string | undefined
  /** Every call not answered within this many ms is a ServiceTimeout (its outcome unknown). */
  readonly timeoutMs: number
  /** Calls in flight to Adyen at most (the others wait their turn within their bound). Default `DEFAULT_MAX_CONNECTIONS`. */
  readonly maxConnections?: number
}

type Fields = readonly PaymentServiceField[]

/** What a call that never reached Adyen answers, for an operation that then did nothing there: routing moves on. */
const UNREACHABLE = {
  _tag: 'Failed',
  errorCode: 'service_error',
  rawResponseCode: 'unreachable',
  rawResponseDescription: 'Adyen could not be reached',
} as const
/** What a call answers for a live URL prefix that is not one Adyen gives: nothing is sent anywhere. */
const BAD_PREFIX = {
  _tag: 'Failed',
  errorCode: 'invalid_service_configuration',
  rawResponseCode: 'live_url_prefix',
  rawResponseDescription: 'The live URL prefix is not one Adyen gives',
} as const

/** The answer with any raw text that quotes `secret` dropped: an echo of a key never leaves the connector. */
const scrubbed = <A extends object>(answer: A, secret: string): A =>
  secret === ''
    ? answer
    : (Object.fromEntries(Object.entries(answer).map(([k, v]) => [k, typeof v === 'string' && v.includes(secret) ? null : v])) as A)

/**
 * Cards through Adyen's Checkout API (`adyen-card`, v71). An authorization is one `/payments`
 * call (held unless the intent captures); a capture, cancel or refund names the payment's
 * pspReference and is answered `received`: Adyen settles it later and says how by a signed
 * notification, which `readNotification` reads. Every call carries Orka's reference as its
 * idempotency key. The card goes to Adyen and nowhere else: nothing is kept or logged.
 */
export class AdyenCardConnector implements CardConnector {
  private readonly slots: CallSlots

  constructor(private readonly o: AdyenCardConnectorOptions) {
    this.slots = new CallSlots(o.maxConnections ?? DEFAULT_MAX_CONNECTIONS)
  }

  authorize(req: AuthorizeRequest): TE.TaskEither<CardConnectorError, AuthorizeResult> {
    return this.bounded<AuthorizeResult>(req.service.fields, { unreachable: UNREACHABLE, badPrefix: BAD_PREFIX }, async (call, merchant) =>
      authorizeResultOf(await call(paymentCall(req, merchant)), req.capture),
    )
  }

  capture(req: CaptureRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    return this.bounded<OperationResult>(req.service.fields, { unreachable: UNREACHABLE, badPrefix: BAD_PREFIX }, async (call, merchant) =>
      operationResultOf(await call(captureCall(req, merchant))),
    )
  }

  /**
   * Cancels the payment. One whose authorization's answer was lost (no pspReference) is
   * cancelled by Orka's reference for it (Adyen's technical cancel): whatever the authorization
   * left at Adyen, if anything, is released, and a TECHNICAL_CANCEL notification says so.
   */
  void(req: VoidRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    // Unsent, a void is not done: what it was to release may still be held.
    return this.bounded(req.service.fields, {}, async (call, merchant) => operationResultOf(await call(cancelCall(req, merchant))))
  }

  refund(req: RefundRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    return this.bounded<OperationResult>(req.service.fields, { unreachable: UNREACHABLE, badPrefix: BAD_PREFIX }, async (call, merchant) =>
      operationResultOf(await call(refundCall(req, merchant))),
    )
  }

  readNotification(fields: Fields, webhook: ProviderWebhook): E.Either<WebhookRefused, ProviderNotification> {
    // No timestamp is signed: Adyen's items carry none to hold `now` against; a replay is one event id again.
    return readAdyenNotification(fieldOf({ fields }, 'hmac_key'), webhook.body)
  }

  /** Adyen's Checkout API has no read of a payment or its modifications: its notifications are the only word. */
  lookup(): TE.TaskEither<CardConnectorError, readonly ProviderEvent[]> {
    return TE.right([])
  }

  /** Lists the account's payment methods: the cheapest call Adyen authenticates, naming the merchant account. */
  verify(fields: Fields): TE.TaskEither<CredentialsRefused | CardConnectorError, void> {
    const refusal = (field: string, reason: string): CredentialsRefused => ({ _tag: 'CredentialsRefused', field, reason })
    if (adyenBaseUrl(fields, this.o.baseUrl) === undefined)
      return TE.left(refusal('live_url_prefix', 'The live URL prefix is not one Adyen gives: letters, digits and hyphens only'))
    return TE.flatMap((a: AdyenAnswer): TE.TaskEither<CredentialsRefused | CardConnectorError, void> => {
      if (a.status === 200) return TE.right(undefined)
      const refused = refusedField(a)
      return refused === undefined
        ? TE.left(serviceFailed(`Adyen answered ${String(a.status)}`, 'card'))
        : TE.left(refusal(refused.field, refused.reason))
    })(this.bounded(fields, {}, (call, merchant) => call(paymentMethodsCall(merchant))))
  }

  /**
   * Runs `work` with the service's key and merchant account, within the timeout. A call that
   * never reached Adyen, or could not be sent for a bad live prefix, answers what `otherwise`
   * gives for it when it gives something (nothing was done), else a failure.
   */
  private bounded<A extends object>(
    fields: Fields,
    otherwise: { readonly unreachable?: A; readonly badPrefix?: A },
    work: (call: (c: AdyenCall) => Promise<AdyenAnswer>, merchantAccount: string) => Promise<A | CardConnectorError>,
  ): TE.TaskEither<CardConnectorError, A> {
    const key = fieldOf({ fields }, 'api_key') ?? ''
    const base = adyenBaseUrl(fields, this.o.baseUrl)
    if (base === undefined)
      return TE.fromEither(
        otherwise.badPrefix === undefined
          ? E.left(serviceFailed('the live URL prefix is not one Adyen gives', 'card'))
          : E.right(otherwise.badPrefix),
      )
    const merchant = fieldOf({ fields }, 'merchant_account') ?? ''
    return withTimeout(
      this.o.timeoutMs,
      () => serviceTimeout('card'),
      async (signal) => {
        try {
          const r = await work((c) => this.slots.run(signal, () => callAdyen(base, key, c, signal)), merchant)
          return isConnectorError(r) ? E.left(r) : E.right(scrubbed(r, key))
        } catch (e) {
          if (e instanceof NotSent)
            return otherwise.unreachable === undefined
              ? E.left(serviceFailed('Adyen could not be reached', 'card'))
              : E.right(otherwise.unreachable)
          return E.left(serviceFailed('the call to Adyen failed', 'card'))
        }
      },
    )
  }
}
