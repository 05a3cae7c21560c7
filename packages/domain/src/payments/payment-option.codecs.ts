import * as t from 'io-ts'
import { Amount, CartItems, Country, Currency, Metadata } from '../order/order.codecs'
import { bool, boundedString, closed, literal, nullable, str } from '../shared/codecs'

/** What a checkout asks about: the cart it is for; every property optional (none: every method the account could take). */
export const PaymentOptionRequest = closed(
  'PaymentOptionRequest',
  {},
  {
    metadata: nullable(Metadata),
    country: nullable(Country),
    currency: nullable(Currency),
    amount: nullable(Amount),
    locale: boundedString('locale', { min: 2, max: 35, pattern: /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/ }),
    cart_items: nullable(CartItems),
  },
)
export type PaymentOptionRequest = t.TypeOf<typeof PaymentOptionRequest>

/** One way the buyer can pay for that cart. */
export const PaymentOption = closed(
  'PaymentOption',
  {
    type: literal('payment-option'),
    method: str,
    icon_url: nullable(str),
    mode: str,
    label: nullable(str),
    can_store_payment_method: bool,
    can_delay_capture: bool,
    context: t.null,
  },
  {},
)
export type PaymentOption = t.TypeOf<typeof PaymentOption>

export const PaymentOptions = closed('PaymentOptions', { items: t.readonlyArray(PaymentOption) }, {})
export type PaymentOptions = t.TypeOf<typeof PaymentOptions>
