import * as t from 'io-ts'
import {
  bool,
  boundedList,
  boundedString,
  Checked,
  closed,
  codePointLength,
  explainCharacters,
  Explanation,
  intRange,
  nullable,
  oneOf,
} from '../shared/codecs'
import { ISO_4217 } from './currencies'

const text = (name: string, max: number) => boundedString(name, { min: 1, max })
const nullableText = (name: string, max: number) => nullable(text(name, max))
export const MAX_AMOUNT = 99_999_999
export const Amount = intRange('amount', 0, MAX_AMOUNT)

const CURRENCIES: ReadonlySet<string> = new Set(ISO_4217)
/** A real ISO 4217 code: three capitals are not enough (`XYZ` is no currency). */
export const Currency = new Checked<string>(
  'Currency',
  (u): u is string => typeof u === 'string' && CURRENCIES.has(u),
  (u) =>
    typeof u !== 'string'
      ? { type: 'string_type' }
      : CURRENCIES.has(u)
        ? undefined
        : { type: 'value_error', rule: 'currency must be an ISO 4217 currency code in circulation, such as USD' },
  { type: 'string', enum: [...ISO_4217] },
)
export const Country = boundedString('country', { pattern: /^[A-Z]{2}$/ })

const MAX_METADATA_KEYS = 20
const metadataFault = (u: unknown): Explanation | undefined => {
  if (typeof u !== 'object' || u === null || Array.isArray(u)) return { type: 'model_type' }
  const entries = Object.entries(u)
  if (entries.length > MAX_METADATA_KEYS) return { type: 'value_error', rule: `metadata holds at most ${MAX_METADATA_KEYS} keys` }
  for (const [k, v] of entries) {
    if (explainCharacters(k) !== undefined || codePointLength(k) < 1 || codePointLength(k) > 40)
      return { type: 'value_error', rule: 'metadata keys are 1-40 characters' }
    if (typeof v !== 'string') return { type: 'value_error', rule: 'metadata values are strings' }
    if (explainCharacters(v) !== undefined || codePointLength(v) > 255)
      return { type: 'value_error', rule: 'metadata values are at most 255 characters' }
  }
  return undefined
}
/** The merchant's own key-value pairs, stored and shown as sent. */
export const Metadata = new Checked<Readonly<Record<string, string>>>(
  'Metadata',
  (u): u is Readonly<Record<string, string>> => metadataFault(u) === undefined,
  metadataFault,
  {
    type: 'object',
    maxProperties: MAX_METADATA_KEYS,
    propertyNames: { minLength: 1, maxLength: 40 },
    additionalProperties: { type: 'string', maxLength: 255 },
  },
)
export type Metadata = t.TypeOf<typeof Metadata>

const ProductType = oneOf('ProductType', [
  'physical',
  'discount',
  'shipping_fee',
  'sales_tax',
  'digital',
  'gift_card',
  'store_credit',
  'surcharge',
])
const smallAmount = (name: string) => nullable(intRange(name, 0, MAX_AMOUNT))

export const CartItem = closed(
  'CartItem',
  { name: text('name', 255), quantity: intRange('quantity', 1, MAX_AMOUNT), unit_amount: intRange('unit_amount', 0, MAX_AMOUNT) },
  {
    discount_amount: smallAmount('discount_amount'),
    tax_amount: smallAmount('tax_amount'),
    external_identifier: nullableText('external_identifier', 200),
    sku: nullableText('sku', 200),
    upc: nullableText('upc', 200),
    product_url: nullableText('product_url', 2083),
    image_url: nullableText('image_url', 2083),
    categories: nullable(boundedList(text('category', 50), 100)),
    product_type: nullable(ProductType),
    seller_country: nullable(Country),
    tax_exempt: nullable(bool),
    unit_of_measure: nullableText('unit_of_measure', 50),
    commodity_code: nullableText('commodity_code', 50),
    description: nullableText('description', 255),
    duty_amount: smallAmount('duty_amount'),
    shipping_amount: smallAmount('shipping_amount'),
  },
)
export type CartItem = t.TypeOf<typeof CartItem>
export const CartItems = boundedList(CartItem, 249)
