import { AuthorizeResult, CardConnectorError, CardType, OperationResult, serviceFailed } from '@orka/domain'
import { AdyenAnswer } from './client'
import { avsOf, cvvOf, declineCodeOf } from './codes'

type Obj = Readonly<Record<string, unknown>>
const obj = (v: unknown): Obj | null => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : null)
export const text = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v.slice(0, 200) : null)

/** Adyen's funding sources (`additionalData.fundingSource`) as Orka's card types. */
const FUNDING: Readonly<Record<string, CardType>> = {
  CREDIT: 'credit',
  CHARGE: 'credit',
  DEBIT: 'debit',
  DEFERRED_DEBIT: 'debit',
  // Adyen's own spelling in its document.
  DEFFERED_DEBIT: 'debit',
  PREPAID: 'prepaid',
  PREPAID_RELOADABLE: 'prepaid',
  PREPAID_NONRELOADABLE: 'prepaid',
}

/** 3D Secure asks for the shopper, whom Orka's API call does not have: nothing is authorised. */
const NEEDS_SHOPPER = new Set(['RedirectShopper', 'IdentifyShopper', 'ChallengeShopper'])

/** Answers that say the request was not processed, by HTTP status: nothing was done, routing may move on. */
const NOT_PROCESSED: Readonly<Record<number, string>> = {
  400: 'invalid_service_configuration',
  401: 'invalid_service_credentials',
  403: 'insufficient_service_permissions',
  404: 'invalid_service_configuration',
  422: 'invalid_service_configuration',
  429: 'service_error',
}
/** Adyen's error codes that say more than the status: about the card, or the merchant account. */
const ERROR_CODES: Readonly<Record<string, string>> = {
  '101': 'invalid_payment_method',
  '102': 'invalid_payment_method',
  '103': 'incorrect_cvv',
  '129': 'incorrect_expiry_date',
  '137': 'invalid_amount',
  '138': 'incorrect_currency',
  '901': 'invalid_service_configuration',
}
/** "Request already processed or in progress": another call under the same key is running. */
const IN_PROGRESS = '704'

/** What the outcome of a call is when the answer says nothing (a 5xx, a key in use, garbage). */
const unknown = (a: AdyenAnswer): CardConnectorError => serviceFailed(`Adyen answered ${String(a.status)}`, 'card')

/**
 * A refusal of the request itself (Adyen's `ServiceError`): nothing was done, so a failure; or
 * undefined when the answer is no such refusal, or leaves the outcome unknown (a transient
 * error, a key in use, a 5xx).
 */
const notProcessed = (a: AdyenAnswer) => {
  const e = obj(a.body)
  const code = text(e?.errorCode)
  const byStatus = NOT_PROCESSED[a.status]
  if (byStatus === undefined || a.transient || code === IN_PROGRESS) return undefined
  // A refused key is refused whatever the body says: nothing ran. Any other refusal must be Adyen's own.
  if (e === null && a.status !== 401 && a.status !== 403) return undefined
  return {
    _tag: 'Failed',
    errorCode: ERROR_CODES[code ?? ''] ?? byStatus,
    rawResponseCode: code,
    rawResponseDescription: text(e?.message),
  } as const
}

/**
 * A `/payments` answer as an authorization (`captured` when it asked for an immediate capture):
 * authorised, refused (a decline, with Orka's code and Adyen's kept), failed, or unknown.
 */
export const authorizeResultOf = (a: AdyenAnswer, captured: boolean): AuthorizeResult | CardConnectorError => {
  const failure = notProcessed(a)
  if (failure !== undefined) return failure
  const p = obj(a.body)
  if (a.status !== 200 || p === null) return unknown(a)
  const result = text(p.resultCode)
  const data = obj(p.additionalData)
  const avs = avsOf(text(data?.avsResult))
  const cvv = cvvOf(text(data?.cvcResult))
  const reason = text(p.refusalReason)
  const psp = text(p.pspReference)
  if (result === 'Authorised' && psp !== null)
    return {
      _tag: 'Authorized',
      serviceTransactionId: psp,
      captured,
      authCode: text(data?.authCode),
      avs,
      cvv,
      cardType: FUNDING[text(data?.fundingSource)?.toUpperCase() ?? ''] ?? null,
      // The scheme's id of the authorization, when the account has Adyen return it: what later payments with a stored card refer to.
      schemeTransactionId: text(data?.networkTxReference),
      rawResponseCode: result,
      rawResponseDescription: null,
    }
  const code = text(p.refusalReasonCode)
  if (result === 'Refused')
    return {
      _tag: 'Declined',
      errorCode: declineCodeOf(code, reason),
      avs,
      cvv,
      rawResponseCode: code ?? result,
      rawResponseDescription: reason,
    }
  if (result === 'Error' || result === 'Cancelled')
    return { _tag: 'Failed', errorCode: 'service_error', rawResponseCode: code ?? result, rawResponseDescription: reason }
  if (result !== null && NEEDS_SHOPPER.has(result))
    return { _tag: 'Failed', errorCode: 'requires_buyer_authentication', rawResponseCode: result, rawResponseDescription: reason }
  // Received, Pending, PartiallyAuthorised (never asked for), a code Adyen adds later: not known to be anything.
  return unknown(a)
}

/**
 * A capture, cancel or refund: Adyen answers `received` and settles it later by a notification
 * (`serviceId`: the modification's pspReference); a refused request is a failure; anything else
 * leaves the outcome unknown.
 */
export const operationResultOf = (a: AdyenAnswer): OperationResult | CardConnectorError => {
  const failure = notProcessed(a)
  if (failure !== undefined) return failure
  const m = obj(a.body)
  const psp = text(m?.pspReference)
  if (a.status !== 201 || m?.status !== 'received' || psp === null) return unknown(a)
  return { _tag: 'Received', serviceId: psp, rawResponseCode: 'received', rawResponseDescription: null }
}

/**
 * What a refused `/paymentMethods` call says of the settings: the field it names, if it names one
 * (a merchant account Adyen does not know, or the key may not use), or undefined when the
 * answer is no refusal of them.
 */
export const refusedField = (a: AdyenAnswer): { readonly field: string; readonly reason: string } | undefined => {
  const e = obj(a.body)
  const message = text(e?.message) ?? ''
  if ((a.status === 403 || a.status === 422) && (text(e?.errorCode) === '901' || /merchant account/i.test(message)))
    return { field: 'merchant_account', reason: 'Adyen does not let the key use this merchant account' }
  if (a.status === 401) return { field: 'api_key', reason: 'Adyen refused the API key' }
  if (a.status === 403) return { field: 'api_key', reason: 'The API key may not make payments' }
  return undefined
}
