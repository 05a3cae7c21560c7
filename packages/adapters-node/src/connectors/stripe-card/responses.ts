import {
  AuthorizeResult,
  AvsResponseCode,
  CardConnectorError,
  CardType,
  CvvResponseCode,
  OperationResult,
  serviceFailed,
} from '@orka/domain'
import { StripeAnswer } from './client'

export type Obj = Readonly<Record<string, unknown>>
export const obj = (v: unknown): Obj | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null)
export const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v.slice(0, 200) : null)

/** Stripe's decline codes (and card error codes), as the original API's `error_code`s; any other is `issuer_decline`. */
const DECLINES: Readonly<Record<string, string>> = {
  insufficient_funds: 'insufficient_funds',
  expired_card: 'expired_payment_method',
  incorrect_cvc: 'incorrect_cvv',
  invalid_cvc: 'incorrect_cvv',
  incorrect_number: 'invalid_payment_method',
  invalid_number: 'invalid_payment_method',
  invalid_expiry_month: 'incorrect_expiry_date',
  invalid_expiry_year: 'incorrect_expiry_date',
  incorrect_zip: 'incorrect_billing_address',
  do_not_honor: 'issuer_decline',
  generic_decline: 'issuer_decline',
  call_issuer: 'issuer_decline',
  fraudulent: 'suspected_fraud',
  stolen_card: 'suspected_fraud',
  lost_card: 'suspected_fraud',
  merchant_blacklist: 'suspected_fraud',
  pickup_card: 'refused_transaction',
  restricted_card: 'refused_transaction',
  card_not_supported: 'unsupported_payment_method',
  currency_not_supported: 'incorrect_currency',
  duplicate_transaction: 'duplicate_transaction',
  authentication_required: 'requires_buyer_authentication',
  card_velocity_exceeded: 'refused_transaction',
}
/** Answers that say the request was not processed, by HTTP status: routing may move on. */
const NOT_PROCESSED: Readonly<Record<number, string>> = {
  400: 'invalid_service_configuration',
  401: 'invalid_service_credentials',
  403: 'insufficient_service_permissions',
  404: 'invalid_service_configuration',
  429: 'service_error',
}

/** Stripe's error object of an answer, if it has one. */
const errorOf = (a: StripeAnswer): Obj | null => obj(obj(a.body)?.error)

/** The decline's code as Stripe gave it (decline code first), for `raw_response_code`. */
const rawCode = (e: Obj | null): string | null => text(e?.decline_code) ?? text(e?.code) ?? text(e?.type)

const AVS: Readonly<Record<string, AvsResponseCode>> = {
  pass: 'match',
  fail: 'no_match',
  unavailable: 'unavailable',
  unchecked: 'unavailable',
}
const CVV: Readonly<Record<string, CvvResponseCode>> = {
  pass: 'match',
  fail: 'no_match',
  unavailable: 'unavailable',
  unchecked: 'unavailable',
}

/** The card checks of a PaymentIntent's charge (`expand[]=latest_charge`), or of the charge of a decline. */
const checksOf = (charge: Obj | null) => {
  const checks = obj(obj(obj(charge?.payment_method_details)?.card)?.checks)
  const postal = text(checks?.address_postal_code_check)
  const cvc = text(checks?.cvc_check)
  return { avs: postal === null ? null : (AVS[postal] ?? null), cvv: cvc === null ? 'not_provided' : (CVV[cvc] ?? null) } as const
}

const FUNDING: Readonly<Record<string, CardType>> = { credit: 'credit', debit: 'debit', prepaid: 'prepaid' }
/** The card's funding as Stripe tells it on the charge (`unknown`: none). */
const cardTypeOf = (charge: Obj | null): CardType | null =>
  FUNDING[text(obj(obj(charge?.payment_method_details)?.card)?.funding) ?? ''] ?? null

/** What the outcome of a call says when the answer says nothing (a 5xx, a 409 for a key in use, garbage). */
export const unknown = (a: StripeAnswer): CardConnectorError => serviceFailed(`Stripe answered ${String(a.status)}`, 'card')

/** A card error: declined, unless Stripe says it could not process the card. */
export const declineOrFailure = (e: Obj | null) => {
  const raw = rawCode(e)
  const rawResponseDescription = text(e?.message)
  if (raw === 'processing_error')
    return { _tag: 'Failed', errorCode: 'service_error', rawResponseCode: raw, rawResponseDescription } as const
  return { _tag: 'Declined', errorCode: DECLINES[raw ?? ''] ?? 'issuer_decline', rawResponseCode: raw, rawResponseDescription } as const
}

/** A PaymentIntent created and confirmed, as an authorization: held, captured, declined, or unknown. */
export const authorizeResultOf = (a: StripeAnswer): AuthorizeResult | CardConnectorError => {
  const e = errorOf(a)
  if (a.status === 402 || (e !== null && e.type === 'card_error')) {
    const d = declineOrFailure(e)
    const { avs, cvv } = checksOf(obj(obj(e?.payment_intent)?.latest_charge) ?? obj(e?.charge))
    return d._tag === 'Failed' ? d : { ...d, avs, cvv }
  }
  const notProcessed = NOT_PROCESSED[a.status]
  if (notProcessed !== undefined && e !== null && e.type !== 'idempotency_error')
    return { _tag: 'Failed', errorCode: notProcessed, rawResponseCode: rawCode(e), rawResponseDescription: text(e.message) }
  const intent = obj(a.body)
  const id = text(intent?.id)
  if (a.status !== 200 || intent === null || id === null) return unknown(a)
  const status = text(intent.status)
  const charge = obj(intent.latest_charge)
  const { avs, cvv } = checksOf(charge)
  const raw = { rawResponseCode: status, rawResponseDescription: null }
  const card = obj(obj(charge?.payment_method_details)?.card)
  if (status === 'requires_capture' || status === 'succeeded')
    return {
      _tag: 'Authorized',
      serviceTransactionId: id,
      captured: status === 'succeeded',
      authCode: text(card?.authorization_code),
      avs,
      cvv,
      cardType: cardTypeOf(charge),
      // What the scheme calls this authorization: later payments with a stored card refer to it.
      schemeTransactionId: text(card?.network_transaction_id),
      ...raw,
    }
  if (status === 'requires_action') return { _tag: 'Declined', errorCode: 'requires_buyer_authentication', avs, cvv, ...raw }
  if (status === 'requires_payment_method' || status === 'canceled') {
    const d = declineOrFailure(obj(intent.last_payment_error))
    return d._tag === 'Failed' ? d : { ...d, avs, cvv }
  }
  return unknown(a)
}

/**
 * A capture, cancel or refund: done (`serviceId`: the charge or refund), refused, or unknown. A
 * `200` is done, unless its object's status is one of `refusedStatuses` (a refund that failed)
 * or of `receivedStatuses` (a refund Stripe settles later, telling by a webhook).
 */
export const operationResultOf = (
  a: StripeAnswer,
  idOf: (body: Obj) => string | null,
  refusedStatuses: readonly string[] = [],
  receivedStatuses: readonly string[] = [],
): OperationResult | CardConnectorError => {
  const e = errorOf(a)
  if (e !== null && a.status >= 400 && a.status < 500 && a.status !== 409 && e.type !== 'idempotency_error') {
    const raw = { rawResponseCode: rawCode(e), rawResponseDescription: text(e.message) }
    return a.status === 402 || a.status === 400
      ? { _tag: 'Declined', errorCode: DECLINES[raw.rawResponseCode ?? ''] ?? 'refused_transaction', ...raw }
      : { _tag: 'Failed', errorCode: NOT_PROCESSED[a.status] ?? 'service_error', ...raw }
  }
  const body = obj(a.body)
  if (a.status !== 200 || body === null) return unknown(a)
  if (refusedStatuses.includes(String(body.status)))
    return {
      _tag: 'Declined',
      errorCode: 'refused_transaction',
      rawResponseCode: text(body.failure_reason) ?? text(body.status),
      rawResponseDescription: null,
    }
  const tag = receivedStatuses.includes(String(body.status)) ? 'Received' : 'Succeeded'
  return { _tag: tag, serviceId: idOf(body), rawResponseCode: text(body.status), rawResponseDescription: null }
}

/** A PaymentIntent search's first match's id (Orka's reference is in its metadata), if any. */
export const foundIntent = (a: StripeAnswer): string | null | undefined => {
  if (a.status !== 200) return undefined
  const data = obj(a.body)?.data
  if (!Array.isArray(data)) return undefined
  return data.length === 0 ? null : text(obj(data[0])?.id)
}

/**
 * What a lost authorization's probe says (a create under its idempotency key): the probe's own
 * intent when Stripe ran it (the key was unused: the attempt never reached Stripe), `KeyUsed`
 * when Stripe refused it as another request's key, else unknown (a key still in use, a 5xx).
 */
export const probeOutcome = (
  a: StripeAnswer,
): { readonly _tag: 'ProbeRan'; readonly intent: string } | { readonly _tag: 'KeyUsed' } | CardConnectorError => {
  const e = errorOf(a)
  if (a.status === 400 && e?.type === 'idempotency_error') return { _tag: 'KeyUsed' }
  const intent = a.status === 200 ? text(obj(a.body)?.id) : null
  return intent === null ? unknown(a) : { _tag: 'ProbeRan', intent }
}
