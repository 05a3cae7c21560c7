import * as fc from 'fast-check'
import { Obj, Raw } from './model'
import { Prop, Slot } from './transaction-spec'

/**
 * The values of a transaction request's properties, each with what the server makes of it
 * (`Prop`: accepted and what it decodes to, a schema fault, or an unsupported value), for the
 * generators of transaction-cards.ts and transaction-requests.ts.
 */

export const oneof = ((...args: unknown[]) =>
  (fc.oneof as (...a: unknown[]) => unknown)({ withCrossShrink: true }, ...args)) as typeof fc.oneof
export const w = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary })
// eslint-disable-next-line @typescript-eslint/no-misused-spread -- an ASCII-only literal: each code point is one character
const ALNUM = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789']
export const word = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...ALNUM), minLength: min, maxLength: max })

export const ok = (key: string, tree: unknown, value: unknown = tree): Prop => ({ key, tree, effect: 'ok', value })
export const bad = (key: string, tree: unknown, loc?: readonly (string | number)[]): Prop => ({
  key,
  tree,
  effect: '422',
  ...(loc ? { loc } : {}),
})
export const prop = (key: string, good: fc.Arbitrary<unknown>, faulty: fc.Arbitrary<unknown>, faultWeight = 1): fc.Arbitrary<Prop> =>
  oneof(
    w(
      6,
      good.map((v) => ok(key, v)),
    ),
    w(
      faultWeight,
      faulty.map((v) => bad(key, v)),
    ),
  )

/** Free text of at most `max` code points, nullable: odd but valid, and every way of breaking it. */
export const text = (key: string, max: number) =>
  prop(
    key,
    oneof(
      w(4, word(1, 16)),
      w(1, fc.constantFrom(null, 'a.b', '$set', '__proto__', '\u{1f600}'.repeat(max), 'x'.repeat(max), '\u00e9\u0301', '\u202e')),
    ),
    fc.constantFrom('', 'x'.repeat(max + 1), 'a\u0000b', '\u0000', 'a\ud800b', '\udc00', '\ud83d', 5, true, ['x'], new Obj([['a', 1]])),
  )

const DECLINED = Array.from({ length: 22 }, (_, i) => 200001 + i)
const FAILED = [...Array.from({ length: 15 }, (_, i) => 300001 + i), 400000, 400042, 400099]
/** Amounts the mock card service answers by, or any other: declines, service errors, the slow one and the unanswered one (both time out here). */
export const mockAmount = oneof(
  w(10, fc.integer({ min: 1, max: 199_999 })),
  w(4, fc.integer({ min: 500_000, max: 9_999_999 })),
  w(1, fc.constant(0)),
  w(2, fc.constantFrom(...DECLINED)),
  w(2, fc.constantFrom(...FAILED)),
  w(1, fc.integer({ min: 10_000_000, max: 99_999_999 })),
)
export const amountProp: fc.Arbitrary<Prop> = oneof(
  w(
    24,
    mockAmount.map((a) => ok('amount', a)),
  ),
  w(
    1,
    fc.constantFrom(300_998, 300_999).map((a) => ok('amount', a)),
  ),
  w(
    1,
    fc
      .constantFrom<[string, number]>(['1.0', 1], ['1E2', 100], ['-0', 0], ['1e-400', 0], ['250.000', 250])
      .map(([t, v]) => ok('amount', new Raw(t), v)),
  ),
  w(
    3,
    fc
      .constantFrom<unknown>(
        12.5,
        -1,
        100_000_000,
        '5000',
        null,
        true,
        [1],
        new Obj([]),
        2 ** 53,
        ...['1e400', '123456789012345678901234567890', '9007199254740993', '0.5', '5e-324'].map((t) => new Raw(t)),
      )
      .map((v) => bad('amount', v)),
  ),
)
export const ISO = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'SEK', 'KWD', 'XOF', 'BRL']
export const currencyProp = prop(
  'currency',
  fc.constantFrom(...ISO),
  fc.constantFrom('usd', 'XYZ', 'US', '', 'US\u0000', 'U\ud800D', 'USDD', 840, null),
)

/** The metadata map: up to 20 keys of 1-40 characters, string values up to 255; and each way past that. */
export const metadataProp = oneof(
  w(
    6,
    fc
      .array(fc.tuple(word(1, 12), oneof(word(0, 12), fc.constantFrom('a.b', '$gt', '\u{1f600}', 'x'.repeat(255)))), { maxLength: 4 })
      .map((es) => ok('metadata', new Obj(es), Object.fromEntries(es))),
  ),
  w(1, fc.constant(ok('metadata', null))),
  w(
    2,
    fc
      .constantFrom<unknown>(
        new Obj(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])),
        new Obj([['', 'v']]),
        new Obj([['k'.repeat(41), 'v']]),
        new Obj([['k', 1]]),
        new Obj([['k', 'x'.repeat(256)]]),
        new Obj([['k', 'a\u0000']]),
        new Obj([['k\ud800', 'v']]),
        ['k', 'v'],
        'k=v',
      )
      .map((v) => bad('metadata', v)),
  ),
)

export const guestBuyer = oneof(
  w(
    3,
    fc
      .constantFrom('Ada Lovelace', '\u00c9mile', 'x'.repeat(200))
      .map((n) => ok('buyer', new Obj([['display_name', n]]), { postal: null })),
  ),
  w(
    3,
    fc
      .constantFrom('SW1A 1AA', 'AB77', '88-1', 'X99', '12345')
      .map((p) => ok('buyer', new Obj([['billing_details', new Obj([['address', new Obj([['postal_code', p]])]])]]), { postal: p })),
  ),
  w(1, fc.constant(ok('buyer', new Obj([['shipping_details', null]]), { postal: null }))),
  w(
    1,
    fc.constant<Prop>({
      key: 'buyer',
      tree: new Obj([['shipping_details', new Obj([['first_name', 'Ada']])]]),
      effect: '400',
      loc: ['buyer', 'shipping_details'],
    }),
  ),
  w(1, fc.constant(bad('buyer', new Obj([['display_name', 'a\u0000']]), ['buyer', 'display_name']))),
  w(1, fc.constant(bad('buyer', new Obj([['zz', 1]]), ['buyer', 'zz']))),
  w(1, fc.constant(bad('buyer', 'Ada'))),
)

const UNSUPPORTED: readonly (readonly [string, unknown])[] = [
  ['merchant_initiated', false],
  ['is_subsequent_payment', false],
  ['async_capture', false],
  ['allow_partial_authorization', false],
  ['account_funding_transaction', false],
  ['three_d_secure_data', null],
  ['airline', null],
  ['browser_info', null],
  ['statement_descriptor', null],
  ['tax_amount', null],
  ['approval_expires_at', null],
]
export const unsupportedProp = fc.tuple(fc.constantFrom(...UNSUPPORTED), fc.nat(4)).map(([[key, dflt], n]): Prop => {
  if (n === 0) return ok(key, dflt)
  if (n === 1) return ok(key, null)
  const v = typeof dflt === 'boolean' ? [true, 'yes', 1][n - 2] : [new Obj([]), 'x', []][n - 2]
  return { key, tree: v, effect: '400', value: v }
})
/** `store`: keep the card that pays for the transaction's buyer (docs/payments.md, "Cards on file"); a boolean, not null. */
export const storeProp: fc.Arbitrary<Prop> = oneof(
  w(3, fc.constant(ok('store', true))),
  w(2, fc.constant(ok('store', false))),
  w(
    1,
    fc.constantFrom<unknown>(null, 'yes', 1, 'true').map((v) => bad('store', v)),
  ),
)

/**
 * `gift_cards`: none or an empty list is no gift card; a malformed one a 422 at the fault. (The
 * checks of well-formed ones, a 400 naming the item, have their own HTTP test.)
 */
export const giftCardsProp: fc.Arbitrary<Prop> = oneof(
  w(
    2,
    fc.constantFrom<unknown>(null, []).map((v) => ok('gift_cards', v)),
  ),
  w(
    1,
    fc.constantFrom<unknown>('x', new Obj([])).map((v) => bad('gift_cards', v)),
  ),
  w(
    1,
    fc.constant(
      bad(
        'gift_cards',
        [
          new Obj([
            ['number', '412345554123456'],
            ['pin', '1234'],
            ['amount', 1],
          ]),
        ],
        ['gift_cards', 0, 'number'],
      ),
    ),
  ),
  w(
    1,
    fc.constant(
      bad(
        'gift_cards',
        [
          new Obj([
            ['id', 'x'],
            ['amount', 1],
          ]),
        ],
        ['gift_cards', 0, 'id'],
      ),
    ),
  ),
  w(
    1,
    fc.constant(
      bad(
        'gift_cards',
        [
          new Obj([
            ['number', '4123455541234561001'],
            ['amount', 1],
          ]),
        ],
        ['gift_cards', 0, 'pin'],
      ),
    ),
  ),
)
/** Properties no schema names: refused (422) whatever their value, `__proto__` and `constructor` included. */
const unknownKey = oneof(
  word(1, 8).map((s) => `zz_${s}`),
  fc.constantFrom('__proto__', 'constructor', 'toString', 'Amount', 'CURRENCY', 'payment-method', 'amount '),
)
export const unknownProp = fc
  .tuple(unknownKey, fc.constantFrom<unknown>(1, 'x', null, new Obj([['polluted', 'yes']])))
  .map(([k, v]) => bad(k, v))

export const uuid = fc.uuid({ version: 4 })
export const buyerIdProp = oneof(
  w(
    4,
    fc.constantFrom(new Slot('buyerId'), new Slot('buyerIdUpper')).map((s) => ok('buyer_id', s, 'known')),
  ),
  w(
    2,
    uuid.map((u) => ok('buyer_id', u, 'unknown')),
  ),
  w(1, fc.constant(ok('buyer_id', null, null))),
  w(
    1,
    fc.constantFrom('x', '', 'null', '{11111111-1111-4111-8111-111111111111}', 7).map((v) => bad('buyer_id', v)),
  ),
)
export const buyerExternalProp = oneof(
  w(4, fc.constant(ok('buyer_external_identifier', new Slot('buyerExternal'), 'known'))),
  w(
    2,
    word(1, 12).map((s) => ok('buyer_external_identifier', `nobody-${s}`, 'unknown')),
  ),
  w(1, fc.constant(ok('buyer_external_identifier', null, null))),
  w(
    1,
    fc.constantFrom('', 'a\u0000', 'x'.repeat(201)).map((v) => bad('buyer_external_identifier', v)),
  ),
)
export const serviceProp = oneof(
  w(3, fc.constant(ok('payment_service_id', new Slot('serviceId'), 'known'))),
  w(1, fc.constant(ok('payment_service_id', new Slot('otherServiceId'), 'unknown'))),
  w(
    1,
    uuid.map((u) => ok('payment_service_id', u, 'unknown')),
  ),
  w(1, fc.constant(ok('payment_service_id', null, null))),
  w(1, fc.constant(bad('payment_service_id', 'mock-card'))),
)

/** A caller drawn by weight from `table`. */
export const authOf = <A extends string>(table: readonly (readonly [number, A])[]): fc.Arbitrary<A> =>
  oneof(...table.map(([weight, a]) => w(weight, fc.constant(a))))

/** How a request goes on the wire, whatever it asks: escapes, spacing, chunks, a trailing slash, header case. */
export const WIRE = {
  escape: oneof(w(10, fc.constant('plain' as const)), w(1, fc.constantFrom('ascii' as const, 'all' as const))),
  spaced: oneof(w(9, fc.constant(false)), w(1, fc.constant(true))),
  chunked: oneof(w(9, fc.constant(false)), w(1, fc.constant(true))),
  trailingSlash: oneof(w(15, fc.constant(false)), w(1, fc.constant(true))),
  headerCase: oneof(w(8, fc.constant('lower' as const)), w(1, fc.constantFrom('title' as const, 'upper' as const, 'mixed' as const))),
}
