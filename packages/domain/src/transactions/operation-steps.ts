import { CardConnectorError, OperationResult } from '../payments/card-connector.ports'
import { TransactionStatus } from './transaction.codecs'
import { CaptureRecord, isOpen, isUnsettled, RefundRecord, TransactionRecord, VoidRecord } from './transaction'
import { next, rawOf, statusEvent, StepContext } from './transaction-steps'

/**
 * The steps of a capture, a void and a refund, as pure functions from one version to the next
 * (as `transaction-steps.ts` has those of an authorization): each recorded before its call, and
 * settled by the service's answer or, for one it received, by its notification.
 */

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
      return {
        status: answer._tag === 'Succeeded' ? 'succeeded' : 'received',
        service_id: answer.serviceId,
        error_code: null,
        ...rawOf(answer),
      }
    case 'Declined':
    case 'Failed':
      return {
        status: answer._tag === 'Declined' ? 'declined' : 'failed',
        service_id: null,
        error_code: answer.errorCode,
        ...rawOf(answer),
      }
    case 'ServiceFailed':
    case 'ServiceTimeout':
      return null
  }
}

/** What a record keeps of an outcome: a received one stays `open` (pending, processing) and is marked awaited. */
const recorded = <Open extends 'pending' | 'processing'>(o: Outcome, open: Open, now: string) => ({
  status: o.status === 'received' ? open : o.status,
  error_code: o.error_code,
  raw_response_code: o.raw_response_code,
  raw_response_description: o.raw_response_description,
  ...(o.status === 'received' ? { received_at: now } : {}),
})

/** Extra context of the events of a version a provider's notification wrote (none for an answer). */
export type Source = Readonly<Record<string, unknown>>

/**
 * The status a capture's or void's outcome leaves: `done`, `awaited` while the service has it,
 * or (refused) back to authorized from awaiting it; otherwise as it was.
 */
const statusAfter = (r: TransactionRecord, o: Outcome, done: TransactionStatus, awaited: TransactionStatus): TransactionStatus =>
  o.status === 'succeeded' ? done : o.status === 'received' ? awaited : r.status === awaited ? 'authorization_succeeded' : r.status

export const captureRequested = (r: TransactionRecord, ctx: StepContext, capture: CaptureRecord): TransactionRecord =>
  next(r, ctx, { captures: [...r.captures, capture] }, [
    { name: 'transaction-event', context: { step: 'capture-requested', capture_id: capture.id, amount: capture.amount } },
  ])

/** The capture `id` came to `o`: captured, refused (a pending one falls back to authorized), or received. */
export const captureSettled = (r: TransactionRecord, ctx: StepContext, id: string, o: Outcome, source: Source = {}): TransactionRecord => {
  const status = statusAfter(r, o, 'capture_succeeded', 'capture_pending')
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
    {
      name: `payment-connector-response-transaction-capture-${o.status}`,
      context: { capture_id: id, error_code: o.error_code, ...source },
    },
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
  const status = statusAfter(r, o, 'authorization_voided', 'authorization_void_pending')
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
