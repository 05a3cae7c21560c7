import { AuthorizeResult, OperationResult } from '../payments/card-connector.ports'
import { CardConnectorError } from '../payments/card-connector.ports'
import { TransactionEvent, TransactionPaymentService, TransactionStatus } from './transaction.codecs'
import { Attempt, CaptureRecord, isOpen, isPending, isUnsettled, redemptionsOf, RefundRecord, TransactionRecord, VoidRecord } from './transaction'

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

const rawOf = (r: { readonly rawResponseCode: string | null; readonly rawResponseDescription: string | null }) => ({
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

/** The unknown outcome of the last attempt was voided at its service (or could not be: it stays open). */
export const attemptVoided = (r: TransactionRecord, ctx: StepContext, answer: OperationResult | CardConnectorError): TransactionRecord => {
  const attempt = r.attempts.at(-1)
  if (attempt === undefined) throw new Error('a void without an attempt')
  const done = answer._tag === 'Succeeded'
  return next(r, ctx, { attempts: replaceLast(r.attempts, (a) => ({ ...a, voided: done })) }, [
    {
      name: done ? 'payment-connector-response-transaction-void-succeeded' : 'payment-connector-response-transaction-void-failed',
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

/**
 * A capture's, void's or refund's outcome, in the shape their records share: settled, or
 * `received` (the service took it and settles it later: awaited, no longer open).
 */
export interface Outcome {
  readonly status: 'succeeded' | 'declined' | 'failed' | 'received'
  readonly service_id: string | null
  readonly error_code: string | null
  readonly raw_response_code: string | null
  readonly raw_response_description: string | null
}

/** The service's answer as an outcome; null when it gave none (the call stays open, to be asked again). */
const outcomeOf = (answer: OperationResult | CardConnectorError): Outcome | null => {
  switch (answer._tag) {
    case 'Succeeded':
    case 'Received':
      return { status: answer._tag === 'Succeeded' ? 'succeeded' : 'received', service_id: answer.serviceId, error_code: null, ...rawOf(answer) }
    case 'Declined':
    case 'Failed':
      return { status: answer._tag === 'Declined' ? 'declined' : 'failed', service_id: null, error_code: answer.errorCode, ...rawOf(answer) }
    case 'ServiceFailed':
    case 'ServiceTimeout':
      return null
  }
}

/** What a record keeps of an outcome: a received one stays `open` (pending, processing) and is marked awaited. */
const recorded = <Open extends 'pending' | 'processing'>(o: Outcome, open: Open, now: string) => ({
  status: o.status === 'received' ? open : (o.status as Exclude<Outcome['status'], 'received'>),
  error_code: o.error_code,
  raw_response_code: o.raw_response_code,
  raw_response_description: o.raw_response_description,
  ...(o.status === 'received' ? { received_at: now } : {}),
})

/** Extra context of the events of a version a provider's notification wrote (none for an answer). */
export type Source = Readonly<Record<string, unknown>>

export const captureRequested = (r: TransactionRecord, ctx: StepContext, capture: CaptureRecord): TransactionRecord =>
  next(r, ctx, { captures: [...r.captures, capture] }, [
    { name: 'transaction-event', context: { step: 'capture-requested', capture_id: capture.id, amount: capture.amount } },
  ])

/** The capture `id` came to `o`: captured, refused (a pending one falls back to authorized), or received. */
export const captureSettled = (r: TransactionRecord, ctx: StepContext, id: string, o: Outcome, source: Source = {}): TransactionRecord => {
  const status: TransactionStatus =
    o.status === 'succeeded'
      ? 'capture_succeeded'
      : o.status === 'received'
        ? 'capture_pending'
        : r.status === 'capture_pending'
          ? 'authorization_succeeded'
          : r.status
  const captures = r.captures.map((c) =>
    c.id === id
      ? {
          ...c,
          ...recorded(o, 'pending', ctx.now),
          updated_at: ctx.now,
          captured_at: o.status === 'succeeded' ? ctx.now : null,
          service_capture_id: o.service_id ?? c.service_capture_id,
        }
      : c,
  )
  return next(r, ctx, { status, captures }, [
    { name: `payment-connector-response-transaction-capture-${o.status}`, context: { capture_id: id, error_code: o.error_code, ...source } },
    ...statusEvent(r.status, status),
  ])
}

/** The outcome of the open capture; an unknown one leaves it open for the next try. */
export const captureAnswered = (
  r: TransactionRecord,
  ctx: StepContext,
  answer: OperationResult | CardConnectorError,
): TransactionRecord | null => {
  const o = outcomeOf(answer)
  const open = r.captures.find(isOpen)
  return o === null || open === undefined ? null : captureSettled(r, ctx, open.id, o)
}

export const voidRequested = (r: TransactionRecord, ctx: StepContext, reference: string): TransactionRecord => {
  const requested: VoidRecord = {
    reference,
    status: 'pending',
    requested_at: ctx.now,
    answered_at: null,
    error_code: null,
    raw_response_code: null,
    raw_response_description: null,
  }
  return next(r, ctx, { void: requested }, [{ name: 'transaction-event', context: { step: 'void-requested' } }])
}

/** The void came to `o`: voided, refused (a pending one falls back to authorized), or received. */
export const voidSettled = (r: TransactionRecord & { readonly void: VoidRecord }, ctx: StepContext, o: Outcome, source: Source = {}) => {
  const status: TransactionStatus =
    o.status === 'succeeded'
      ? 'authorization_voided'
      : o.status === 'received'
        ? 'authorization_void_pending'
        : r.status === 'authorization_void_pending'
          ? 'authorization_succeeded'
          : r.status
  const done: VoidRecord = { ...r.void, ...recorded(o, 'pending', ctx.now), answered_at: ctx.now }
  return next(r, ctx, { status, void: done }, [
    { name: `payment-connector-response-transaction-void-${o.status}`, context: { error_code: o.error_code, ...source } },
    ...statusEvent(r.status, status),
  ])
}

export const voidAnswered = (
  r: TransactionRecord,
  ctx: StepContext,
  answer: OperationResult | CardConnectorError,
): TransactionRecord | null => {
  const o = outcomeOf(answer)
  const v = r.void
  return o === null || v === null || !isOpen(v) ? null : voidSettled({ ...r, void: v }, ctx, o)
}

export const refundRequested = (r: TransactionRecord, ctx: StepContext, refunds: readonly RefundRecord[]): TransactionRecord =>
  next(
    r,
    ctx,
    { refunds: [...r.refunds, ...refunds] },
    refunds.map((x) => ({
      name: 'transaction-event',
      context: {
        step: 'refund-requested',
        refund_id: x.id,
        amount: x.amount,
        ...(x.redemption_id === undefined ? {} : { gift_card_redemption_id: x.redemption_id }),
      },
    })),
  )

/** The refund `refundId` came to `o` (its events name a settled refund as Orka's webhooks read them). */
export const refundSettled = (r: TransactionRecord, ctx: StepContext, refundId: string, o: Outcome, source: Source = {}) => {
  const refunds = r.refunds.map((x) =>
    x.id === refundId && isUnsettled(x)
      ? { ...x, ...recorded(o, 'processing', ctx.now), updated_at: ctx.now, service_refund_id: o.service_id ?? x.service_refund_id }
      : x,
  )
  const toGiftCard = r.refunds.some((x) => x.id === refundId && x.redemption_id !== undefined)
  return next(r, ctx, { refunds }, [
    { name: `${toGiftCard ? 'gift-card-' : ''}refund-${o.status}`, context: { refund_id: refundId, error_code: o.error_code, ...source } },
  ])
}

export const refundAnswered = (
  r: TransactionRecord,
  ctx: StepContext,
  refundId: string,
  answer: OperationResult | CardConnectorError,
): TransactionRecord | null => {
  const o = outcomeOf(answer)
  return o === null || !r.refunds.some((x) => x.id === refundId && isOpen(x)) ? null : refundSettled(r, ctx, refundId, o)
}
