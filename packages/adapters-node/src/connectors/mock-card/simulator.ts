import { AvsResponseCode, CvvResponseCode } from '@orka/domain'

/**
 * The sandbox card service's rules, as the original API's card simulator documents them
 * (amounts 200001-300010, the postal codes and security codes), completed by Orka's own where
 * its table could not be found (300011-300015, 4000xx, the test card numbers, the slow and the
 * unanswered amounts). docs/payments.md lists them (a test checks the table).
 */

/** Amounts declined by the issuer, with the vendor's `error_code`. */
export const DECLINED_AMOUNTS: ReadonlyMap<number, string> = new Map([
  [200001, 'canceled_payment_method'],
  [200002, 'disputed_transaction'],
  [200003, 'duplicate_transaction'],
  [200004, 'expired_authorization'],
  [200005, 'expired_payment_method'],
  [200006, 'incorrect_billing_address'],
  [200007, 'incorrect_country'],
  [200008, 'incorrect_currency'],
  [200009, 'incorrect_cvv'],
  [200010, 'incorrect_expiry_date'],
  [200011, 'insufficient_funds'],
  [200012, 'issuer_decline'],
  [200013, 'other_decline'],
  [200014, 'requires_buyer_authentication'],
  [200015, 'refused_transaction'],
  [200016, 'service_decline'],
  [200017, 'suspected_fraud'],
  [200018, 'unavailable_payment_method'],
  [200019, 'unknown_payment_method'],
  [200020, 'unsupported_transaction'],
  [200021, 'unsupported_payment_method'],
  [200022, 'cancelled_buyer_approval'],
])

/** Amounts the service fails on (it holds nothing): the vendor's service errors, then Orka's. */
export const FAILED_AMOUNTS: ReadonlyMap<number, string> = new Map([
  [300001, 'insufficient_service_permissions'],
  [300002, 'invalid_amount'],
  [300003, 'invalid_payment_method'],
  [300004, 'invalid_service_configuration'],
  [300005, 'invalid_service_credentials'],
  [300006, 'invalid_service_response'],
  [300007, 'invalid_tax_identifier'],
  [300008, 'missing_billing_address'],
  [300009, 'missing_cvv'],
  [300010, 'missing_shipping_address'],
  [300011, 'service_error'],
  [300012, 'service_error'],
  [300013, 'service_error'],
  [300014, 'service_error'],
  [300015, 'service_error'],
])
/** 400000-400099: the service's internal error (Orka's code). */
export const INTERNAL_ERROR = 'internal_error'
const isInternalErrorAmount = (amount: number) => amount >= 400_000 && amount <= 400_099

/** Never answered: the connector gives up at its timeout. */
export const UNANSWERED_AMOUNT = 300_999
/** Answered (approved) after the connector's `slowMs`. */
export const SLOW_AMOUNT = 300_998

/** Test card numbers with a rule of their own; any other number is approved. */
export const DECLINED_CARDS: ReadonlyMap<string, string> = new Map([
  ['4000000000000002', 'issuer_decline'],
  ['4000000000009995', 'insufficient_funds'],
])

/** What the service does with an amount (authorize, capture, refund). */
export type AmountRule =
  | { readonly kind: 'approve' }
  | { readonly kind: 'decline'; readonly errorCode: string }
  | { readonly kind: 'fail'; readonly errorCode: string }
  | { readonly kind: 'slow' }
  | { readonly kind: 'unanswered' }

export const amountRule = (amount: number): AmountRule => {
  const declined = DECLINED_AMOUNTS.get(amount)
  if (declined !== undefined) return { kind: 'decline', errorCode: declined }
  const failed = FAILED_AMOUNTS.get(amount) ?? (isInternalErrorAmount(amount) ? INTERNAL_ERROR : undefined)
  if (failed !== undefined) return { kind: 'fail', errorCode: failed }
  if (amount === UNANSWERED_AMOUNT) return { kind: 'unanswered' }
  if (amount === SLOW_AMOUNT) return { kind: 'slow' }
  return { kind: 'approve' }
}

/** The vendor's AVS rule: by what the billing postal code contains; none given, no check (null). */
export const avsOf = (postalCode: string | null): AvsResponseCode | null => {
  if (postalCode === null) return null
  if (postalCode.includes('77')) return 'no_match'
  if (postalCode.includes('88')) return 'partial_match_postcode'
  if (postalCode.includes('99')) return 'partial_match_address'
  return 'match'
}

/** The vendor's CVV rule; no security code given is `not_provided` (Orka's). */
export const cvvOf = (securityCode: string | null): CvvResponseCode => {
  if (securityCode === null || securityCode === '222') return 'not_provided'
  if (securityCode === '333') return 'no_match'
  return 'match'
}
