/** Card numbers, schemes and expiry dates: pure rules, no card data kept. */

/** The Luhn checksum every card number carries in its last digit. */
export const luhnValid = (digits: string): boolean => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48
    if (i % 2 === 1) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
  }
  return sum % 10 === 0
}

/** The original API's `CardScheme` values Orka recognises from a number's leading digits. */
type Scheme = 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners-club' | 'unionpay' | 'maestro'

/** The one table of schemes: which leading digits name each (first match wins), and its name. */
const SCHEMES: readonly (readonly [Scheme, RegExp, string])[] = [
  ['amex', /^3[47]/, 'American Express'],
  ['diners-club', /^3(0[0-5]|[68])/, 'Diners Club'],
  ['jcb', /^35(2[89]|[3-8])/, 'JCB'],
  ['visa', /^4/, 'Visa'],
  ['mastercard', /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/, 'Mastercard'],
  ['discover', /^(6011|65|64[4-9])/, 'Discover'],
  ['unionpay', /^62/, 'UnionPay'],
  ['maestro', /^(5[06-9]|6\d)/, 'Maestro'],
]

/** Every scheme Orka recognises, with its display name, in the table's order. */
export const CARD_SCHEMES: readonly { readonly id: Scheme; readonly displayName: string }[] = SCHEMES.map(([id, , displayName]) => ({
  id,
  displayName,
}))

export const cardSchemeOf = (number: string): Scheme | null => SCHEMES.find(([, re]) => re.test(number))?.[0] ?? null

/** `MM/YY` as the month it names; null when it is not a month. */
export const expiryMonth = (mmYY: string): { readonly year: number; readonly month: number } | null => {
  const m = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(mmYY)
  return m === null ? null : { year: 2000 + Number(m[2]), month: Number(m[1]) }
}

/** A card is good through the last day of its expiry month (UTC). */
export const expiredAt = (mmYY: string, now: Date): boolean => {
  const e = expiryMonth(mmYY)
  if (e === null) return true
  return now.getUTCFullYear() * 12 + now.getUTCMonth() > e.year * 12 + (e.month - 1)
}

/** What may be shown of a card: never more than its first 6 and last 4 digits. */
export const cardSummary = (number: string) => ({
  bin: number.slice(0, 6),
  last4: number.slice(-4),
  scheme: cardSchemeOf(number),
})
