import * as fc from 'fast-check'
import { luhnValid } from '@orka/domain'
import { Obj, Secret } from './model'
import { CardSpec, CreateSpec, ExpirySpec, PaymentMethodSpec, Prop, Slot, StoredPick } from './transaction-spec'
import {
  amountProp,
  bad,
  buyerExternalProp,
  buyerIdProp,
  currencyProp,
  guestBuyer,
  ISO,
  metadataProp,
  mockAmount,
  ok,
  oneof,
  prop,
  serviceProp,
  text,
  unknownProp,
  unsupportedProp,
  giftCardsProp,
  storeProp,
  w,
  word,
} from './transaction-values'

/** Cards, payment methods and whole payments (`POST /transactions` bodies), valid and hostile. */

/** Luhn-valid card numbers of every scheme's prefix (and none), 13-19 digits; the mock's declined test cards. */
const withCheckDigit = (n: string) => {
  for (let d = 0; d < 10; d++) if (luhnValid(`${n.slice(0, -1)}${d}`)) return `${n.slice(0, -1)}${d}`
  return n
}
export const cardDigits = oneof(
  w(
    12,
    fc
      .tuple(
        fc.constantFrom('4', '51', '55', '2221', '34', '37', '36', '3530', '6011', '65', '62', '50', '9', '1'),
        fc.integer({ min: 13, max: 19 }),
        fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 19, maxLength: 19 }),
      )
      .map(([prefix, length, ds]) => withCheckDigit((prefix + ds.join('')).slice(0, length))),
  ),
  w(2, fc.constantFrom('4000000000000002', '4000000000009995')),
  w(1, fc.constantFrom('4111111111111111', '4242424242424242')),
)
const expiry: fc.Arbitrary<ExpirySpec> = oneof(
  w(
    10,
    fc.integer({ min: 0, max: 120 }).map((months) => ({ months })),
  ),
  w(
    2,
    fc.integer({ min: -30, max: -1 }).map((months) => ({ months })),
  ),
  w(
    2,
    fc.constantFrom<unknown>('13/30', '00/30', '1/30', '12/2035', '12-30', '', null, 1230, '12/3\u0000').map((b) => ({ bad: b })),
  ),
)
const cvv = oneof(
  w(
    6,
    fc.constantFrom<unknown>(undefined, null, '123', '1234', '222', '333', '987').map((v) => ({ cvv: v, cvvOk: true })),
  ),
  w(
    1,
    fc.constantFrom<unknown>('12', '12345', 'abc', 123, '\uff11\uff12\uff13', '1\u00002').map((v) => ({ cvv: v, cvvOk: false })),
  ),
)
export const card: fc.Arbitrary<CardSpec> = fc
  .tuple(
    oneof(
      w(
        12,
        cardDigits.map((d) => ({ number: new Secret('card', d), numberOk: true, digits: d })),
      ),
      w(
        2,
        cardDigits.chain((d) =>
          fc
            .constantFrom(
              `${d.slice(0, -1)}${(Number(d.at(-1)) + 1) % 10}`,
              d.replace(/(\d{4})(?=\d)/g, '$1 '),
              `${d}\u0000`,
              d.slice(0, 12),
              `${d}1234`.slice(0, 20),
              `\ud800${d}`,
            )
            .map((n) => ({ number: new Secret('card', n), numberOk: false, digits: null })),
        ),
      ),
      w(
        1,
        fc.constantFrom<unknown>(4111111111111111, null, '').map((n) => ({ number: n, numberOk: false, digits: null })),
      ),
    ),
    expiry,
    cvv,
  )
  .map(([n, e, c]) => ({ ...n, expiry: e, ...c }))
/** A card a session can hold (Secure Fields refuse the others): valid number and code, not expired. */
export const sessionCard: fc.Arbitrary<CardSpec> = fc
  .tuple(cardDigits, fc.integer({ min: 0, max: 60 }), fc.constantFrom<unknown>(null, '123', '1234', '222', '333'))
  .map(([d, months, code]) => ({ number: new Secret('card', d), numberOk: true, digits: d, expiry: { months }, cvv: code, cvvOk: true }))

const pmExtra = (keys: readonly string[]) =>
  fc
    .tuple(fc.constantFrom(...keys), fc.boolean())
    .map(([k, set]): Prop => (set ? { key: k, tree: 'x', effect: '400', value: 'x' } : ok(k, null)))
const pmExtras = (keys: readonly string[], unknown: readonly string[]) =>
  oneof(
    w(6, fc.constant<Prop[]>([])),
    w(2, fc.array(pmExtra(keys), { minLength: 1, maxLength: 2 })),
    w(
      1,
      fc.constantFrom(...unknown).map((k) => [bad(k, 'x', ['payment_method', k])]),
    ),
  )
/** A stored method by id (`{method: "id", id, security_code?}`): one the run stored, or an id that names none. */
const stored: fc.Arbitrary<PaymentMethodSpec> = fc
  .record({
    pick: oneof(
      w(6, fc.constant<StoredPick>('usable')),
      w(3, fc.constant<StoredPick>('any')),
      w(1, fc.constantFrom<StoredPick>('unknown', 'malformed', 'otherAccount')),
    ),
    n: fc.nat(1 << 20),
    code: cvv,
    extras: oneof(
      w(8, fc.constant<Prop[]>([])),
      w(1, fc.constantFrom<Prop[]>([ok('redirect_url', null)], [{ key: 'redirect_url', tree: 'x', effect: '400', value: 'x' }])),
      w(
        1,
        fc.constantFrom('zz', 'number', 'buyer_id').map((k) => [bad(k, 'x', ['payment_method', k])]),
      ),
    ),
  })
  .map(({ pick, n, code, extras }) => ({ kind: 'stored' as const, pick, n, cvv: code.cvv, cvvOk: code.cvvOk, extras }))

const paymentMethod: fc.Arbitrary<PaymentMethodSpec> = oneof(
  w(
    10,
    fc.record({
      kind: fc.constant('card' as const),
      card,
      extras: pmExtras(['buyer_id', 'external_identifier', 'card_type', 'redirect_url'], ['zz', 'id', '__proto__']),
    }),
  ),
  w(
    6,
    fc.record({
      kind: fc.constant('session' as const),
      session: oneof(
        w(8, fc.constant('fresh' as const)),
        w(2, fc.constant('stored' as const)),
        w(1, fc.constantFrom('empty' as const, 'used' as const, 'unknown' as const, 'otherAccount' as const, 'deleted' as const)),
        w(1, fc.constant('malformed' as const)),
      ),
      card: sessionCard,
      bad: fc.constantFrom('x', '', 'null', '11111111-1111-4111-8111-11111111111', '11111111-1111-4111-8111-111111111111x'),
      extras: pmExtras(['external_identifier', 'buyer_id', 'redirect_url'], ['card_type', 'number']),
    }),
  ),
  w(4, stored),
  w(
    1,
    fc.constantFrom<PaymentMethodSpec>(
      { kind: 'malformed', tree: 'card', loc: ['payment_method'] },
      { kind: 'malformed', tree: [], loc: ['payment_method'] },
      { kind: 'malformed', tree: new Obj([['method', 'CARD']]), loc: ['payment_method', 'method'] },
      { kind: 'malformed', tree: new Obj([['method', 'paypal']]), loc: ['payment_method', 'method'] },
      { kind: 'malformed', tree: null, loc: ['payment_method'], refined: true },
    ),
  ),
)

export const absent = <T>(a: fc.Arbitrary<T>, present: number) =>
  oneof(
    w(
      present,
      a.map((x): T | null => x),
    ),
    w(10 - present, fc.constant(null)),
  )
export const createSpec: fc.Arbitrary<CreateSpec> = fc
  .record({
    amount: amountProp,
    currency: currencyProp,
    pm: paymentMethod,
    optional: fc.tuple(
      absent(prop('intent', fc.constantFrom('authorize', 'capture', 'capture'), fc.constantFrom<unknown>('sale', 'CAPTURE', null, 1)), 5),
      absent(text('external_identifier', 200), 3),
      absent(metadataProp, 3),
      absent(oneof(buyerIdProp, buyerExternalProp), 3),
      absent(fc.tuple(buyerIdProp, buyerExternalProp), 1),
      absent(guestBuyer, 2),
      absent(serviceProp, 2),
      absent(prop('country', fc.constantFrom('GB', 'US', null), fc.constantFrom<unknown>('gb', 'GBR', 1)), 1),
      absent(prop('payment_source', fc.constantFrom('ecommerce', 'moto', 'recurring'), fc.constantFrom<unknown>('web', null)), 1),
      fc.array(unsupportedProp, { maxLength: 2 }),
      absent(unknownProp, 1),
      absent(giftCardsProp, 1),
      absent(storeProp, 1),
    ),
    duplicateAmount: absent(fc.constantFrom<unknown>('x', -5, null, 1e9), 1),
  })
  .map(({ amount, currency, pm, optional, duplicateAmount }) => {
    const [intent, ext, meta, named, both, guest, service, country, source, unsupported, unknown, giftCards, store] = optional
    const props = [
      amount,
      currency,
      intent,
      ext,
      meta,
      named,
      ...(both ?? []),
      guest,
      service,
      country,
      source,
      ...unsupported,
      unknown,
      giftCards,
      store,
    ].filter((p): p is Prop => p !== null)
    const seen = new Set<string>()
    return {
      op: 'create' as const,
      props: props.filter((p) => !seen.has(p.key) && seen.add(p.key)),
      pm,
      duplicateAmount: duplicateAmount ?? undefined,
    }
  })

/** A payment the model expects to be made: every property valid (what it gets is the mock service's answer). */
export const cleanCreateSpec: fc.Arbitrary<CreateSpec> = fc
  .record({
    amount: oneof(w(30, mockAmount), w(1, fc.constantFrom(300_998, 300_999))),
    currency: fc.constantFrom(...ISO),
    intent: fc.constantFrom<string | null>(null, 'authorize', 'capture', 'capture'),
    ext: absent(word(1, 16), 3),
    pays: oneof(w(5, fc.constant('card' as const)), w(5, fc.constant('session' as const)), w(3, fc.constant('stored' as const))),
    // Cards on file: the card that pays kept for the model's buyer, or a payment with one kept before.
    keep: oneof(w(3, fc.constant(false)), w(1, fc.constant(true))),
    n: fc.nat(1 << 20),
    card: sessionCard,
  })
  .map(({ amount, currency, intent, ext, pays, keep, n, card: c }) => ({
    op: 'create' as const,
    props: [
      ok('amount', amount),
      ok('currency', currency),
      ...(intent === null || (intent === 'capture' && amount === 0) ? [] : [ok('intent', intent)]),
      ...(ext === null ? [] : [ok('external_identifier', `ext-${ext}`)]),
      ...(keep && pays !== 'stored' ? [ok('buyer_id', new Slot('buyerId'), 'known'), ok('store', true)] : []),
    ],
    pm:
      pays === 'session'
        ? { kind: 'session' as const, session: 'fresh' as const, card: c, extras: [] }
        : pays === 'stored'
          ? { kind: 'stored' as const, pick: 'usable' as const, n, cvv: c.cvv, cvvOk: true, extras: [] }
          : { kind: 'card' as const, card: c, extras: [] },
    duplicateAmount: undefined,
  }))
