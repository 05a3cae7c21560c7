import { AvsResponseCode, CvvResponseCode } from '@orka/domain'

/**
 * Adyen's refusal reasons (`refusalReasonCode`, `refusalReason`: docs.adyen.com,
 * development-resources/refusal-reasons) as the original API's `error_code`s, the same the
 * Stripe connector answers. Any other is `issuer_decline`.
 */
const REFUSALS: readonly (readonly [code: string, reason: string, errorCode: string])[] = [
  ['2', 'Refused', 'issuer_decline'],
  ['3', 'Referral', 'issuer_decline'],
  ['4', 'Acquirer Error', 'service_decline'],
  ['5', 'Blocked Card', 'refused_transaction'],
  ['6', 'Expired Card', 'expired_payment_method'],
  ['7', 'Invalid Amount', 'invalid_amount'],
  ['8', 'Invalid Card Number', 'invalid_payment_method'],
  ['9', 'Issuer Unavailable', 'service_decline'],
  ['10', 'Not supported', 'unsupported_transaction'],
  ['11', '3D Not Authenticated', 'requires_buyer_authentication'],
  ['12', 'Not enough balance', 'insufficient_funds'],
  ['14', 'Acquirer Fraud', 'suspected_fraud'],
  ['15', 'Cancelled', 'refused_transaction'],
  ['16', 'Shopper Cancelled', 'cancelled_buyer_approval'],
  ['20', 'FRAUD', 'suspected_fraud'],
  ['21', 'Not Submitted', 'service_decline'],
  ['22', 'FRAUD-CANCELLED', 'suspected_fraud'],
  ['23', 'Transaction Not Permitted', 'unsupported_transaction'],
  ['24', 'CVC Declined', 'incorrect_cvv'],
  ['25', 'Restricted Card', 'refused_transaction'],
  ['26', 'Revocation Of Auth', 'refused_transaction'],
  ['27', 'Declined Non Generic', 'issuer_decline'],
  ['28', 'Withdrawal amount exceeded', 'refused_transaction'],
  ['29', 'Withdrawal count exceeded', 'refused_transaction'],
  ['31', 'Issuer Suspected Fraud', 'suspected_fraud'],
  ['32', 'AVS Declined', 'incorrect_billing_address'],
  ['34', 'No checking account available on Card', 'unavailable_payment_method'],
  ['35', 'No savings account available on Card', 'unavailable_payment_method'],
  ['38', 'Authentication required', 'requires_buyer_authentication'],
  ['42', '3DS Authentication Error', 'requires_buyer_authentication'],
  ['46', 'Transaction blocked by Adyen to prevent excessive retry fees', 'refused_transaction'],
]
const BY_CODE = new Map(REFUSALS.map(([code, , errorCode]) => [code, errorCode]))
const BY_REASON = new Map(REFUSALS.map(([, reason, errorCode]) => [reason.toLowerCase(), errorCode]))

/** Orka's code for a refusal: by Adyen's code when it gave one (an API answer), else by its reason (a notification). */
export const declineCodeOf = (code: string | null, reason: string | null): string =>
  BY_CODE.get(code ?? '') ?? BY_REASON.get(reason?.toLowerCase() ?? '') ?? 'issuer_decline'

/** Orka's code for a refusal by its reason alone, if Adyen's reason is one of its refusal reasons. */
export const refusalOfReason = (reason: string | null): string | undefined => BY_REASON.get(reason?.toLowerCase() ?? '')

/** The number an Adyen result starts with (`"4 AVS not supported for this card type"`). */
const leading = (result: string | null): number | undefined => {
  const m = /^(\d{1,2})(?:\s|$)/.exec(result ?? '')
  return m === null ? undefined : Number(m[1])
}

/** Adyen's AVS results (docs.adyen.com, AVS), by the number each starts with. */
const AVS: readonly (AvsResponseCode | null)[] = [
  'unavailable', // 0 Unknown
  'partial_match_address', // 1 Address matches, postal code doesn't
  'no_match', // 2 Neither postal code nor address match
  'unavailable', // 3 AVS unavailable
  'unavailable', // 4 AVS not supported for this card type
  null, // 5 No AVS data provided: nothing was checked
  'partial_match_postcode', // 6 Postal code matches, address doesn't
  'match', // 7 Both postal code and address match
  'unavailable', // 8 Address not checked, postal code unknown
  'partial_match_address', // 9 Address matches, postal code unknown
  'no_match', // 10 Address doesn't match, postal code unknown
  'unavailable', // 11 Postal code not checked, address unknown
  'partial_match_address', // 12 Address matches, postal code not checked
  'no_match', // 13 Address doesn't match, postal code not checked
  'partial_match_postcode', // 14 Postal code matches, address unknown
  'partial_match_postcode', // 15 Postal code matches, address not checked
  'no_match', // 16 Postal code doesn't match, address unknown
  'no_match', // 17 Postal code doesn't match, address not checked
  'unavailable', // 18 Neither postal code nor address were checked
  'partial_match_postcode', // 19 Name and postal code match
  'match', // 20 Name, address and postal code match
  'partial_match_address', // 21 Name and address match
  'unavailable', // 22 Name matches: nothing said of the address
  'partial_match_postcode', // 23 Postal code matches, name doesn't
  'match', // 24 Postal code and address match, name doesn't
  'partial_match_address', // 25 Address matches, name doesn't
  'no_match', // 26 Neither postal code, address nor name match
]
/** Adyen's CVC results (`"1 Matches"`), by their number. */
const CVV: readonly CvvResponseCode[] = [
  'unavailable', // 0 Unknown
  'match', // 1 Matches
  'no_match', // 2 Does not match
  'unavailable', // 3 Not checked
  'not_provided', // 4 No CVC/CVV provided, but was required
  'unavailable', // 5 Issuer not certified for CVC/CVV
  'not_provided', // 6 No CVC/CVV provided
]

export const avsOf = (avsResult: string | null): AvsResponseCode | null => AVS[leading(avsResult) ?? -1] ?? null
export const cvvOf = (cvcResult: string | null): CvvResponseCode | null => CVV[leading(cvcResult) ?? -1] ?? null
