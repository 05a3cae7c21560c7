import { boundedString, Checked, oneOf, closed, nullable, str } from '../shared/codecs'
import { luhnValid } from './card-number'

/** 13-19 digits that pass the Luhn check. */
export const CardNumber = new Checked<string>(
  'CardNumber',
  (u): u is string => typeof u === 'string' && /^\d{13,19}$/.test(u) && luhnValid(u),
  (u) =>
    typeof u !== 'string'
      ? { type: 'string_type' }
      : !/^\d{13,19}$/.test(u)
        ? { type: 'string_pattern_mismatch', ctx: { pattern: '^\\d{13,19}$' } }
        : luhnValid(u)
          ? undefined
          : { type: 'value_error', rule: 'number is not a valid card number (its check digit is wrong)' },
  { type: 'string', pattern: '^\\d{13,19}$', description: '13-19 digits with a valid Luhn check digit.' },
)
export const ExpirationDate = boundedString('expiration_date', { pattern: /^(0[1-9]|1[0-2])\/\d{2}$/ })
export const SecurityCode = boundedString('security_code', { pattern: /^\d{3,4}$/ })

export const CardScheme = oneOf('CardScheme', ['visa', 'mastercard', 'amex', 'discover', 'jcb', 'diners-club', 'unionpay', 'maestro'])

export const PaymentMethodDetailsCard = closed('PaymentMethodDetailsCard', {}, { bin: nullable(str), card_type: nullable(str) })
