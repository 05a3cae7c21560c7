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
const NOT_SUMMARISED = [
  'status',
  'buyer',
  'external_identifier',
  'scheme_transaction_id',
  'scheme_transaction_id_scheme',
  'transaction_link_id',
  'created_at',
  'updated_at',
]

/** A PaymentMethod as `GET /buyers/payment-methods` shows it. */
export const summaryOf = (m: object): Record<string, unknown> =>
  Object.fromEntries(Object.entries(m).filter(([k]) => !NOT_SUMMARISED.includes(k)))
