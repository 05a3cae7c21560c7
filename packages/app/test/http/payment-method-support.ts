/** `body` with its Luhn check digit appended. */
export const withCheckDigit = (body: string): string => {
  let sum = 0
  for (let i = 0; i < body.length; i++) {
    let d = Number(body[body.length - 1 - i])
    if (i % 2 === 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2
    sum += d
  }
  return `${body}${(10 - (sum % 10)) % 10}`
}

/** The properties of a stored PaymentMethod that the list of a buyer's usable cards leaves out. */
const NOT_SUMMARISED = ['status', 'buyer', 'external_identifier', 'transaction_link_id', 'created_at', 'updated_at']

/** A PaymentMethod as `GET /buyers/payment-methods` shows it. */
export const summaryOf = (m: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !NOT_SUMMARISED.includes(k)))

/**
 * The whole PaymentMethod a card `number` expiring 12/30, stored for no buyer at `at` (an ISO
 * instant), answers: `succeeded`, never used; its id and fingerprint taken from `m`.
 */
export const methodBody = (
  m: { readonly id: string; readonly fingerprint: string },
  number: string,
  at: string,
  o: Record<string, unknown> = {},
): Record<string, unknown> => ({
  type: 'payment-method',
  id: m.id,
  merchant_account_id: 'default',
  method: 'card',
  status: 'succeeded',
  usage_count: 0,
  cit_usage_count: 0,
  has_replacement: false,
  scheme_transaction_id: null,
  scheme_transaction_id_scheme: null,
  created_at: at,
  updated_at: at,
  mode: 'card',
  label: number.slice(-4),
  scheme: 'visa',
  additional_schemes: null,
  expiration_date: '12/30',
  fingerprint: m.fingerprint,
  details: { bin: number.slice(0, 6), card_type: null },
  approval_url: null,
  country: null,
  currency: null,
  last_replaced_at: null,
  transaction_link_id: null,
  buyer: null,
  external_identifier: null,
  last_used_at: null,
  cit_last_used_at: null,
  ...o,
})
