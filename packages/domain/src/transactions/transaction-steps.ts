import { AuthorizeResult, OperationResult } from '../payments/card-connector.ports'
import { CardConnectorError } from '../payments/card-connector.ports'
import { TransactionEvent, TransactionPaymentService, TransactionStatus } from './transaction.codecs'
import { Attempt, CaptureRecord, isPending, redemptionsOf, TransactionRecord } from './transaction'

/**
 * The steps of a transaction's flows as pure functions from one version to the next. Each
 * is written as one version (`TransactionStore.put`): the record of a call is written before
 * the call, its outcome after it. What the version did is its `events` (the events log).
 */
export interface StepContext {
  readonly now: string
  readonly newId: () => string
}

type Event = Omit<TransactionEvent, 'type' | 'id' | 'created_at'>

/** The next version: the changes, its events, the time, and whether a call is left open. */
export const next = (
  r: TransactionRecord,
  ctx: StepContext,
  change: Partial<TransactionRecord>,
  events: readonly Event[],
): TransactionRecord => {
  const changed = { ...r, ...change }
  return {
    ...changed,
    version: r.version + 1,
    updated_at: ctx.now,
    pending: isPending(changed),
    events: events.map((e) => ({ type: 'transaction-event', id: ctx.newId(), created_at: ctx.now, ...e })),
  }
}

export const statusEvent = (from: TransactionStatus, to: TransactionStatus): Event[] =>
  from === to ? [] : [{ name: 'transaction-updated-status', context: { from, to } }]

export const rawOf = (r: { readonly rawResponseCode: string | null; readonly rawResponseDescription: string | null }) => ({
  raw_response_code: r.rawResponseCode,
  raw_response_description: r.rawResponseDescription,
})

/** A new attempt at `service`, recorded before the authorization is asked for. */
export const attemptRequested = (service: TransactionPaymentService, reference: string, now: string): Attempt => ({
  reference,
  payment_service: service,
  requested_at: now,
  outcome: 'pending',
  voided: false,
  answered_at: null,
  error_code: null,
  raw_response_code: null,
  raw_response_description: null,
})

const replaceLast = <A>(xs: readonly A[], f: (a: A) => A): A[] => xs.map((x, i) => (i === xs.length - 1 ? f(x) : x))

/** What the service answered the last attempt, or that its outcome is unknown (`error`). */
export const attemptAnswered = (
  r: TransactionRecord,
  ctx: StepContext,
  answer: AuthorizeResult | CardConnectorError,
  amount: number,
): TransactionRecord => {
  const attempt = r.attempts.at(-1)
  if (attempt === undefined) throw new Error('an answer without an attempt')
  const service = { payment_service_id: attempt.payment_service.id, reference: attempt.reference }
  switch (answer._tag) {
    case 'Authorized': {
      // With gift cards still to redeem, the payment is not settled yet: no status (and no webhook) says so.
      const status: TransactionStatus =
        redemptionsOf(r).length > 0 ? 'processing' : answer.captured ? 'capture_succeeded' : 'authorization_succeeded'
      const captures: CaptureRecord[] = answer.captured
        ? [
            {
              id: ctx.newId(),
              reference: attempt.reference,
              amount,
              status: 'succeeded',
              external_identifier: null,
              created_at: ctx.now,
              updated_at: ctx.now,
              captured_at: ctx.now,
              service_capture_id: answer.serviceTransactionId,
              error_code: null,
              ...rawOf(answer),
            },
          ]
        : []
      return next(
        r,
        ctx,
        {
          status,
          attempts: replaceLast(r.attempts, (a) => ({ ...a, outcome: 'authorized', answered_at: ctx.now, ...rawOf(answer) })),
          authorization: {
            reference: attempt.reference,
            payment_service: attempt.payment_service,
            service_transaction_id: answer.serviceTransactionId,
            amount,
            at: ctx.now,
            auth_code: answer.authCode,
            avs: answer.avs,
            cvv: answer.cvv,
            ...(answer.schemeTransactionId == null ? {} : { scheme_transaction_id: answer.schemeTransactionId }),
          },
          captures,
          // The funding type the service told, on the card the transaction shows.
          ...(answer.cardType === null || r.payment_method === null
            ? {}
            : { payment_method: { ...r.payment_method, details: { ...r.payment_method.details, card_type: answer.cardType } } }),
          error_code: null,
          ...rawOf(answer),
        },
        [
          {
            name: answer.captured
              ? 'payment-connector-response-transaction-capture-succeeded'
              : 'payment-connector-response-transaction-authorization-succeeded',
            context: { ...service, payment_service_transaction_id: answer.serviceTransactionId, avs: answer.avs, cvv: answer.cvv },
          },
          ...statusEvent(r.status, status),
        ],
      )
    }
    case 'Declined':
      return next(
        r,
        ctx,
        {
          status: 'authorization_declined',
          attempts: replaceLast(r.attempts, (a) => ({
            ...a,
            outcome: 'declined',
            answered_at: ctx.now,
            avs: answer.avs,
            cvv: answer.cvv,
            error_code: answer.errorCode,
            ...rawOf(answer),
          })),
          error_code: answer.errorCode,
          ...rawOf(answer),
        },
        [
          { name: 'payment-connector-response-transaction-declined', context: { ...service, error_code: answer.errorCode } },
          ...statusEvent(r.status, 'authorization_declined'),
        ],
      )
    case 'Failed':
      return next(
        r,
        ctx,
        {
          attempts: replaceLast(r.attempts, (a) => ({
            ...a,
            outcome: 'failed',
            answered_at: ctx.now,
            error_code: answer.errorCode,
            ...rawOf(answer),
          })),
          error_code: answer.errorCode,
          ...rawOf(answer),
        },
        [{ name: 'payment-connector-response-transaction-authorization-failed', context: { ...service, error_code: answer.errorCode } }],
      )
    case 'ServiceFailed':
    case 'ServiceTimeout': {
      const errorCode = answer._tag === 'ServiceTimeout' ? 'service_network_error' : 'service_error'
      return next(
        r,
        ctx,
        {
          attempts: replaceLast(r.attempts, (a) => ({ ...a, outcome: 'unknown', answered_at: ctx.now, error_code: errorCode })),
          error_code: errorCode,
          raw_response_code: null,
          raw_response_description: null,
        },
        [
          {
            name: 'payment-connector-response-transaction-authorization-failed',
            context: { ...service, error_code: errorCode, outcome: 'unknown' },
          },
        ],
      )
    }
  }
}

/**
 * The unknown outcome of the last attempt was voided at its service (or could not be: it stays
 * open). A void the service received counts as done: it took on releasing whatever the attempt
 * left (Adyen's technical cancel), and its notification is kept in the events log.
 */
export const attemptVoided = (r: TransactionRecord, ctx: StepContext, answer: OperationResult | CardConnectorError): TransactionRecord => {
  const attempt = r.attempts.at(-1)
  if (attempt === undefined) throw new Error('a void without an attempt')
  const done = answer._tag === 'Succeeded' || answer._tag === 'Received'
  const word = answer._tag === 'Received' ? 'received' : done ? 'succeeded' : 'failed'
  return next(r, ctx, { attempts: replaceLast(r.attempts, (a) => ({ ...a, voided: done })) }, [
    {
      name: `payment-connector-response-transaction-void-${word}`,
      context: { payment_service_id: attempt.payment_service.id, reference: attempt.reference },
    },
  ])
}

/** Routing goes on at `service`; or ends, the transaction failed, when there is none left. */
export const routedTo = (
  r: TransactionRecord,
  ctx: StepContext,
  service: TransactionPaymentService | null,
  reference: string,
): TransactionRecord =>
  service === null
    ? next(r, ctx, { status: 'authorization_failed' }, statusEvent(r.status, 'authorization_failed'))
    : next(r, ctx, { attempts: [...r.attempts, attemptRequested(service, reference, ctx.now)] }, [
        { name: 'transaction-event', context: { step: 'authorization-requested', payment_service_id: service.id, reference } },
      ])
