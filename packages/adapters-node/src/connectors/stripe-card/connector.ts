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
  LookupRequest,
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
import { isConnectorError } from '../provider-http'
import { callStripe, NotSent, StripeAnswer, StripeCall } from './client'
import { lookupEvents, readStripeNotification, REFERENCE_KEY } from './notifications'
import { authorizeResultOf, foundIntent, operationResultOf, probeOutcome } from './responses'

export interface StripeCardConnectorOptions {
  /** Stripe's API, or the operator's stand-in for it (`CONNECTOR_ENDPOINTS`). */
  readonly baseUrl: string
  /** Every call not answered within this many ms is a ServiceTimeout (its outcome unknown). */
  readonly timeoutMs: number
  /** Calls in flight to Stripe at most (the others wait their turn within their bound). Default `DEFAULT_MAX_CONNECTIONS`. */
  readonly maxConnections?: number
}

type Fields = Pick<{ fields: readonly PaymentServiceField[] }, 'fields'>

/** `MM/YY` as Stripe's month and four-digit year. */
const expiry = (mmYy: string) => ({ exp_month: Number(mmYy.slice(0, 2)), exp_year: 2000 + Number(mmYy.slice(3, 5)) })

/** What a call that never reached Stripe answers, for an operation that then did nothing there: routing moves on. */
const UNREACHABLE = {
  _tag: 'Failed',
  errorCode: 'service_error',
  rawResponseCode: 'unreachable',
  rawResponseDescription: 'Stripe could not be reached',
} as const

/** On the intent a lost answer's probe made (when the attempt never reached Stripe), under another key. */
const PROBE_KEY = 'orka_lost_answer_probe'

/**
 * Cards through Stripe's PaymentIntents (`stripe-card`). An authorization is two calls, each
 * with an idempotency key derived from Orka's reference: the card as a PaymentMethod, then a
 * PaymentIntent confirmed at once (`capture_method` manual unless the intent captures), Orka's
 * reference in its metadata. Captures, cancels and refunds name the PaymentIntent; captures and
 * cancels answer at once, a refund may be `pending` (Received), settled by a webhook or `lookup`.
 * The card goes to Stripe and nowhere else: nothing is kept or logged.
 */
export class StripeCardConnector implements CardConnector {
  private readonly slots: CallSlots

  constructor(private readonly o: StripeCardConnectorOptions) {
    this.slots = new CallSlots(o.maxConnections ?? DEFAULT_MAX_CONNECTIONS)
  }

  authorize(req: AuthorizeRequest): TE.TaskEither<CardConnectorError, AuthorizeResult> {
    return this.bounded(req.service, UNREACHABLE, async (call) => {
      const method = await call({
        method: 'POST',
        path: '/v1/payment_methods',
        idempotencyKey: `${req.reference}:payment_method`,
        params: {
          type: 'card',
          card: { number: req.card.number, ...expiry(req.card.expirationDate), cvc: req.card.securityCode },
          billing_details: req.billingPostalCode === null ? null : { address: { postal_code: req.billingPostalCode } },
        },
      })
      const methodId = method.status === 200 ? (method.body as { id?: unknown } | null)?.id : undefined
      // A card Stripe refuses as a PaymentMethod (a bad number, say) is a decline like any other.
      if (typeof methodId !== 'string') return authorizeResultOf(method)
      return authorizeResultOf(
        await call({
          method: 'POST',
          path: '/v1/payment_intents',
          idempotencyKey: req.reference,
          params: {
            amount: req.amount,
            currency: req.currency.toLowerCase(),
            payment_method: methodId,
            payment_method_types: ['card'],
            capture_method: req.capture ? 'automatic' : 'manual',
            confirm: true,
            error_on_requires_action: true,
            metadata: { [REFERENCE_KEY]: req.reference },
            expand: ['latest_charge'],
          },
        }),
      )
    })
  }

  capture(req: CaptureRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    return this.bounded(req.service, UNREACHABLE, async (call) =>
      operationResultOf(
        await call({
          method: 'POST',
          path: `/v1/payment_intents/${encodeURIComponent(req.serviceTransactionId)}/capture`,
          idempotencyKey: req.reference,
          params: { amount_to_capture: req.amount },
        }),
        (intent) => (typeof intent.latest_charge === 'string' ? intent.latest_charge : null),
      ),
    )
  }

  /**
   * Cancels the PaymentIntent. For an authorization whose answer was lost, the connector first
   * asks whether its key was ever used: it sends a harmless create (an unconfirmed intent, no
   * card) under the authorization's idempotency key. Stripe runs it only if that key is unused,
   * so the attempt never reached Stripe: nothing is held, and the probe's intent is cancelled.
   * Refused as another request's key, the attempt's intent exists: found by the reference in
   * its metadata and cancelled; Stripe's search can lag a minute behind, so not found yet (or a
   * key still in use) leaves the outcome unknown, for recovery to try again.
   */
  void(req: VoidRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    // Unreachable, a void is not done: what it was to release may still be held.
    return this.bounded(req.service, undefined, async (call) => {
      const intent = req.serviceTransactionId ?? (await this.lostIntent(call, req.authorization))
      if (typeof intent !== 'string') return intent
      return operationResultOf(
        await call({ method: 'POST', path: `/v1/payment_intents/${encodeURIComponent(intent)}/cancel`, idempotencyKey: req.reference }),
        (i) => (typeof i.id === 'string' ? i.id : null),
      )
    })
  }

  /** The intent a lost authorization left, the probe's own when it left none, or why that is not known yet. */
  private async lostIntent(call: (c: StripeCall) => Promise<StripeAnswer>, reference: string): Promise<string | CardConnectorError> {
    const probe = await call({
      method: 'POST',
      path: '/v1/payment_intents',
      idempotencyKey: reference,
      params: { amount: 100, currency: 'usd', payment_method_types: ['card'], metadata: { [PROBE_KEY]: reference } },
    })
    const probed = probeOutcome(probe)
    if (probed._tag === 'ProbeRan') return probed.intent
    if (probed._tag !== 'KeyUsed') return probed
    const found = foundIntent(
      await call({
        method: 'GET',
        path: '/v1/payment_intents/search',
        params: { query: `metadata['${REFERENCE_KEY}']:'${reference.replace(/['\\]/g, '')}'`, limit: 1 },
      }),
    )
    if (found === undefined) return serviceFailed('Stripe did not answer the search', 'card')
    return found ?? serviceFailed('Stripe shows no payment for the reference yet', 'card')
  }

  refund(req: RefundRequest): TE.TaskEither<CardConnectorError, OperationResult> {
    return this.bounded(req.service, UNREACHABLE, async (call) =>
      operationResultOf(
        await call({
          method: 'POST',
          path: '/v1/refunds',
          idempotencyKey: req.reference,
          params: { payment_intent: req.serviceTransactionId, amount: req.amount, metadata: { [REFERENCE_KEY]: req.reference } },
        }),
        (refund) => (typeof refund.id === 'string' ? refund.id : null),
        ['failed', 'canceled'],
        ['pending', 'requires_action'],
      ),
    )
  }

  readNotification(
    fields: readonly PaymentServiceField[],
    webhook: ProviderWebhook,
    now: Date,
  ): E.Either<WebhookRefused, ProviderNotification> {
    return readStripeNotification(fields, webhook, now)
  }

  /** The intent's refunds (Stripe keeps Orka's reference on each) and the intent itself, read. */
  lookup(req: LookupRequest): TE.TaskEither<CardConnectorError, readonly ProviderEvent[]> {
    // Unreachable, nothing is known: the caller keeps waiting.
    return this.bounded(req.service, undefined, async (call) => {
      const refunds = await call({
        method: 'GET',
        path: '/v1/refunds',
        params: { payment_intent: req.serviceTransactionId, limit: 100 },
      })
      const intent = await call({ method: 'GET', path: `/v1/payment_intents/${encodeURIComponent(req.serviceTransactionId)}` })
      return lookupEvents(refunds, intent, req.awaited)
    })
  }

  /** Reads the account's balance: the cheapest call Stripe authenticates. */
  verify(fields: readonly PaymentServiceField[]): TE.TaskEither<CredentialsRefused | CardConnectorError, void> {
    return TE.flatMap((a: StripeAnswer): TE.TaskEither<CredentialsRefused | CardConnectorError, void> => {
      if (a.status === 200) return TE.right(undefined)
      if (a.status === 401 || a.status === 403) {
        const message = (a.body as { error?: { message?: unknown } } | null)?.error?.message
        const reason = a.status === 401 ? 'Stripe refused the key' : 'The key may not read the balance'
        return TE.left({
          _tag: 'CredentialsRefused',
          field: 'secret_key',
          reason: typeof message === 'string' && !message.includes('sk_') ? message.slice(0, 200) : reason,
        })
      }
      return TE.left(serviceFailed(`Stripe answered ${String(a.status)}`, 'card'))
    })(this.bounded({ fields }, undefined, (call) => call({ method: 'GET', path: '/v1/balance' })))
  }

  /**
   * Runs `work` with the service's key, within the timeout. A call that never reached Stripe
   * answers `unreachable` when there is such an answer (nothing was done), else a failure.
   */
  private bounded<A>(
    service: Fields,
    unreachable: A | undefined,
    work: (call: (c: StripeCall) => Promise<StripeAnswer>) => Promise<A | CardConnectorError>,
  ): TE.TaskEither<CardConnectorError, A> {
    const key = fieldOf(service, 'secret_key') ?? ''
    return withTimeout(
      this.o.timeoutMs,
      () => serviceTimeout('card'),
      async (signal) => {
        try {
          const r = await work((c) => this.slots.run(signal, () => callStripe(this.o.baseUrl, key, c, signal)))
          return isConnectorError(r) ? E.left(r) : E.right(r)
        } catch (e) {
          if (e instanceof NotSent)
            return unreachable === undefined ? E.left(serviceFailed('Stripe could not be reached', 'card')) : E.right(unreachable)
          return E.left(serviceFailed('the call to Stripe failed', 'card'))
        }
      },
    )
  }
}
