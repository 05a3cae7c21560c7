import * as fc from 'fast-check'
import { luhnValid, ROLE_CATALOGUE } from '@orka/domain'
import { Escape, Obj, PoolName, Raw, Ref, Resolver, Secret, toJsonText } from './model'
import type { RawRequest } from './raw-http'
import { IDS } from '../support/harness'

// ---------------------------------------------------------------------------------------------
// What a generated request is
// ---------------------------------------------------------------------------------------------

/** A path segment: text already percent-encoded, something the server created, or a secret. */
export type Segment = string | Ref | Secret

/** One `name=value` of a query string (encoded when sent), or a raw fragment written as is. */
export type QueryPart = { readonly name: string; readonly value: string | Ref } | { readonly raw: string }

/** The tokens the suite mints (see fuzz.suite.ts); printed as `<token:name>`, never as they are. */
export type TokenName =
  | 'admin'
  | 'acmeAdmin'
  | 'readOnly'
  | 'giftCardOperator'
  | 'embed'
  | 'embed2'
  /** An embed token whose `embed` claim names the seeded default buyer. */
  | 'embedBuyer'
  | 'narrow'
  | 'expired'
  | 'badSignature'
  | 'truncated'
  | 'algNone'
  | 'huge'
  /** Minted for this request alone: its verification is never cached. */
  | 'fresh'

export type AuthSpec =
  | { readonly kind: 'none' }
  | { readonly kind: 'bearer'; readonly token: TokenName; readonly scheme: string }
  | { readonly kind: 'twice'; readonly first: TokenName; readonly second: TokenName }
  | { readonly kind: 'raw'; readonly value: string }

export type Wrap =
  | { readonly k: 'none' }
  | { readonly k: 'array' }
  | { readonly k: 'proto' }
  | { readonly k: 'nest'; readonly depth: number; readonly style: 'array' | 'object' }
  | { readonly k: 'whitespace'; readonly size: number }
  | { readonly k: 'padding'; readonly size: number }
  | { readonly k: 'replace'; readonly raw: string }

export type ByteMutation =
  | { readonly k: 'insert'; readonly at: number; readonly bytes: readonly number[] }
  | { readonly k: 'truncate'; readonly at: number }
  | { readonly k: 'bom' }
  | { readonly k: 'utf16' }

export interface BodySpec {
  readonly tree: unknown
  readonly escape: Escape
  readonly spaced: boolean
  readonly wrap: Wrap
  readonly bytes: readonly ByteMutation[]
  readonly chunked: boolean
}

export interface FuzzRequest {
  /** Which generator made it (for the histogram): usually the operation it aims at. */
  readonly family: string
  readonly method: string
  readonly path: readonly Segment[]
  readonly trailingSlash: boolean
  readonly query: readonly QueryPart[]
  readonly auth: AuthSpec
  readonly merchant: readonly string[]
  readonly contentType: readonly string[]
  readonly headers: readonly (readonly [string, string])[]
  readonly headerCase: 'lower' | 'title' | 'upper' | 'mixed'
  readonly body: BodySpec | null
}

/**
 * `fc.oneof` that shrinks across its options too, towards the first (the plainest) one: a failing
 * request then shrinks to no trailing slash, no extra header, the usual content type...
 */
const oneof = ((...args: unknown[]) => {
  const first = args[0]
  const isConstraints = typeof first === 'object' && first !== null && !('generate' in first) && !('arbitrary' in first)
  return isConstraints
    ? (fc.oneof as (...a: unknown[]) => unknown)({ withCrossShrink: true, ...first }, ...args.slice(1))
    : (fc.oneof as (...a: unknown[]) => unknown)({ withCrossShrink: true }, ...args)
}) as typeof fc.oneof

// ---------------------------------------------------------------------------------------------
// Strings
// ---------------------------------------------------------------------------------------------

// eslint-disable-next-line @typescript-eslint/no-misused-spread -- an ASCII-only literal: each code point is one character
const ASCII = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~ ']
const NASTY = [
  '\u0000',
  '\ud800',
  '\udbff',
  '\udc00',
  '\udfff',
  '\ud83d',
  '\ude00',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffe',
  '\uffff',
  '\u202e',
  '\u0301',
  '\u00e9',
  '\u{1f600}',
  '\u{1d54f}',
  '\u0007',
  '\u001f',
  '\u007f',
  '\t',
  '\n',
  '\r',
  '"',
  '\\',
  '/',
  '$',
  '.',
  '%',
  '{',
  '}',
  '<',
  '>',
  "'",
  '`',
  '\u00a0',
  '\u3000',
  '\u00df',
  '\u0130',
  '\ufb03',
  '\u0085',
  '\u200b',
  '+',
  '&',
  '=',
  '?',
  '#',
]
const unit: fc.Arbitrary<string> = oneof(
  { weight: 12, arbitrary: fc.constantFrom(...ASCII) },
  { weight: 4, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
)

/** Any string: NUL, lone surrogates, astral characters, line separators, lengths at the limits. */
export const nastyString: fc.Arbitrary<string> = oneof(
  { weight: 8, arbitrary: fc.string({ unit, maxLength: 24 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'a\udfffb',
      '\ud83d',
      '\ude00\ud83d',
      '$gt',
      '$where',
      'a.b',
      '__proto__',
      'constructor',
      'prototype',
      'null',
      'true',
      '0',
      '-1',
      '1e400',
      'NaN',
      '%00',
      '%ED%A0%80',
      '../../etc/passwd',
      '<script>',
      "' OR 1=1 --",
      '{"$ne":null}',
      '${x}',
      '\r\nX-Injected: 1',
      '\u{1f600}',
      '\ufeff',
      'default',
      'acme',
      'buyer-1',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom(1, 100, 199, 200, 201, 254, 255, 256, 320, 321, 1000, 1001, 2048, 2049, 5000),
        fc.constantFrom('a', '\u00e9', '\u0000', '\u{1f600}', '\ud800', ' '),
      )
      .map(([n, c]) => c.repeat(n)),
  },
)

/** The same, at most a few hundred characters: for the request head, which the HTTP parser caps at 16 KiB. */
const shortNasty: fc.Arbitrary<string> = oneof(
  { weight: 8, arbitrary: fc.string({ unit, maxLength: 24 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '\u0000',
      'a\u0000b',
      '\ud800',
      'a\udfffb',
      '\ud83d',
      '$gt',
      'a.b',
      '__proto__',
      'constructor',
      '%00',
      '%ED%A0%80',
      '1e400',
      '\r\nX-Injected: 1',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(100, 200, 201, 255, 256), fc.constantFrom('a', '\u00e9', '\u0000', '\u{1f600}', '\ud800'))
      .map(([n, c]) => c.repeat(n)),
  },
)

// eslint-disable-next-line @typescript-eslint/no-misused-spread -- an ASCII-only literal: each code point is one character
const alnum = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789']
const word = (min: number, max: number) => fc.string({ unit: fc.constantFrom(...alnum), minLength: min, maxLength: max })

/**
 * Pseudo-random characters from a small integer: secrets must look random even after fast-check
 * shrinks them (a shrunk digit string would be all zeros, and could then be found by chance in
 * an echoed amount).
 */
const scramble = (n: number, length: number, alphabet: string): string => {
  let x = (n ^ 0x9e3779b9) >>> 0
  let out = ''
  for (let i = 0; i < length; i++) {
    x = Math.imul(x ^ (x >>> 15), 0x2c1b3c6d) >>> 0
    x = (x ^ Math.imul(x ^ (x >>> 12), 0x297a2d39)) >>> 0
    x = (x ^ (x >>> 15)) >>> 0
    out += alphabet.charAt(x % alphabet.length)
  }
  return out
}
const entropy = fc.noBias(fc.integer({ min: 1, max: 0x7fffffff }))
/** Different salts, so that a PIN and a card number from the same draw share no digits. */
const SALT = { card: 0x2545f491, pin: 0x6c8e9cf5, password: 0x1b873593, cvv: 0x68e31da4 } as const

/** Card numbers 13-19 digits long; the last four sometimes ask the mock service to decline, fail or hang. */
export const cardNumber: fc.Arbitrary<string> = fc
  .tuple(
    entropy,
    oneof({ weight: 1, arbitrary: fc.integer({ min: 13, max: 15 }) }, { weight: 6, arbitrary: fc.integer({ min: 16, max: 19 }) }),
    oneof(
      { weight: 40, arbitrary: fc.constant(null) },
      { weight: 3, arbitrary: fc.constant('0002') },
      { weight: 1, arbitrary: fc.constant('0502') },
      { weight: 1, arbitrary: fc.constant('0504') },
    ),
  )
  .map(([n, length, last4]) => {
    const digits = scramble(n ^ SALT.card, length, '0123456789')
    return last4 === null ? digits : digits.slice(0, length - 4) + last4
  })

const pinDigits = fc.tuple(entropy, fc.integer({ min: 8, max: 12 })).map(([n, length]) => scramble(n ^ SALT.pin, length, '0123456789'))
/** Security codes of 3 or 4 digits, as random as the other secrets. */
const cvvValue = fc
  .tuple(entropy, fc.constantFrom(3, 4))
  .map(([n, length]) => new Secret('cvv', scramble(n ^ SALT.cvv, length, '0123456789')))

/** Passwords, client secrets and connector API keys: a marker the leak check can find in any text. */
export const PASSWORD_RE = /Z(?:p[wc]|sk)[A-Za-z0-9]{13}/g
const passwordValue = (prefix: 'Zpw' | 'Zpc' | 'Zsk') =>
  entropy.map((n) => new Secret('password', prefix + scramble(n ^ SALT.password, 13, alnum.join(''))))

// ---------------------------------------------------------------------------------------------
// JSON values
// ---------------------------------------------------------------------------------------------

const rawNumber = fc
  .constantFrom(
    '1e400',
    '-1e400',
    '-0',
    '1.0',
    '1E2',
    '1e-400',
    '5e-324',
    '0.1',
    '123456789012345678901234567890',
    '9007199254740993',
    '-9007199254740993',
    '99999999',
    '100000000',
    '-1',
    '0',
    '1.5',
    '10080',
    '10081',
    '1e1',
    '0.0000001',
    '00',
    '01',
    '+1',
    '.5',
    '5.',
    '0x10',
    'Infinity',
    'NaN',
  )
  .map((t) => new Raw(t))

const scalar: fc.Arbitrary<unknown> = oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 3, arbitrary: fc.integer() },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: rawNumber },
  { weight: 5, arbitrary: nastyString },
)

export const POLLUTION_KEYS = ['polluted', 'isAdmin', 'fuzzPolluted'] as const
const polluter = fc.constantFrom(
  new Obj([['polluted', 'yes']]),
  new Obj([
    ['isAdmin', true],
    ['fuzzPolluted', 1],
  ]),
  new Obj([['prototype', new Obj([['polluted', 'yes']])]]),
)

export const specialKey: fc.Arbitrary<string> = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  '$gt',
  '$where',
  '$set',
  'a.b',
  '',
  ' ',
  '\u0000',
  '\ud800',
  'number',
  'pin',
  'url',
  'password',
  'store',
  'type',
  'id',
  'merchant_account_id',
  'created_at',
)
const key: fc.Arbitrary<string> = oneof({ weight: 1, arbitrary: specialKey }, { weight: 2, arbitrary: nastyString })

/** Any JSON value, `__proto__`/`constructor` keys and duplicates included. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: oneof(
    { depthSize: 'small', maxDepth: 4 },
    { weight: 6, arbitrary: scalar },
    { weight: 1, arbitrary: fc.array(tie('value'), { maxLength: 3 }) },
    { weight: 1, arbitrary: fc.array(fc.tuple(key, tie('value')), { maxLength: 3 }).map((e) => new Obj(e)) },
    { weight: 1, arbitrary: polluter.map((p) => new Obj([['__proto__', p]])) },
  ),
})).value

/** A property's value: mostly realistic, sometimes anything. */
const field = (realistic: fc.Arbitrary<unknown>, odd = 1): fc.Arbitrary<unknown> =>
  oneof(
    { weight: 16, arbitrary: realistic },
    { weight: 2 * odd, arbitrary: nastyString },
    { weight: odd, arbitrary: anyJson },
    { weight: odd, arbitrary: fc.constant(null) },
  )

/**
 * Free text that passes every length rule yet is as odd as it gets (NUL, lone surrogates, `$`
 * and `.`, astral characters): mostly realistic, often odd-but-in-range, so that it reaches
 * storage, sometimes anything.
 */
const ODD_CHARACTERS = ['\u0000', '\ud800', '\udc00', '\ud83d', '\u2028', '\ufeff', '$', '.', '\u{1f600}', '\u0301', '\u202e', '%00']
const inRange = (max: number): fc.Arbitrary<string> =>
  oneof(
    { weight: 1, arbitrary: nastyString.filter((x) => x.length >= 1 && x.length <= max) },
    // A plain word with one odd character in it.
    {
      weight: 1,
      arbitrary: fc
        .tuple(word(1, 12), fc.constantFrom(...ODD_CHARACTERS), fc.nat(12))
        .map(([w, c, at]) => w.slice(0, at) + c + w.slice(at)),
    },
  )
const textField = (realistic: fc.Arbitrary<unknown>, max: number): fc.Arbitrary<unknown> =>
  oneof(
    { weight: 10, arbitrary: realistic },
    { weight: 6, arbitrary: inRange(max) },
    { weight: 1, arbitrary: nastyString },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.constant(null) },
  )

const ABSENT = Symbol('absent')
/** The key with probability `present` in 10. */
const opt = <T>(a: fc.Arbitrary<T>, present = 5): fc.Arbitrary<T | typeof ABSENT> =>
  oneof({ weight: present, arbitrary: a }, { weight: 10 - present, arbitrary: fc.constant(ABSENT) })
const obj = (model: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Obj> =>
  fc.record(model).map((r) => new Obj(Object.entries(r).filter(([, v]) => v !== ABSENT)))

type Mutation =
  | { readonly k: 'drop'; readonly i: number }
  | { readonly k: 'add'; readonly key: string | Secret; readonly value: unknown }
  | { readonly k: 'dup'; readonly i: number; readonly value: unknown; readonly before: boolean }
  | { readonly k: 'replace'; readonly i: number; readonly value: unknown }
  | { readonly k: 'proto'; readonly value: Obj }

const mutation = (extraKey: fc.Arbitrary<string | Secret>): fc.Arbitrary<Mutation> =>
  oneof(
    fc.record({ k: fc.constant('drop' as const), i: fc.nat(20) }),
    fc.record({ k: fc.constant('add' as const), key: oneof(key, extraKey), value: oneof(scalar, anyJson) }),
    fc.record({ k: fc.constant('dup' as const), i: fc.nat(20), value: oneof(scalar, anyJson), before: fc.boolean() }),
    fc.record({ k: fc.constant('replace' as const), i: fc.nat(20), value: oneof(scalar, anyJson) }),
    fc.record({ k: fc.constant('proto' as const), value: polluter }),
  )

const applyMutations = (o: Obj, ms: readonly Mutation[]): Obj => {
  let e = [...o.entries]
  for (const m of ms) {
    const n = e.length
    switch (m.k) {
      case 'drop':
        if (n > 0) e.splice(m.i % n, 1)
        break
      case 'add':
        e.push([m.key, m.value])
        break
      case 'dup':
        if (n > 0) {
          const at = m.i % n
          e.splice(m.before ? at : at + 1, 0, [e[at]![0], m.value])
        }
        break
      case 'replace':
        if (n > 0) e[m.i % n] = [e[m.i % n]![0], m.value]
        break
      case 'proto':
        e = [['__proto__', m.value], ...e]
        break
    }
  }
  return new Obj(e)
}

/** A realistic object, left alone half the time, else with keys dropped, added, duplicated or replaced. */
const mutated = (base: fc.Arbitrary<Obj>, extraKey: fc.Arbitrary<string | Secret> = key): fc.Arbitrary<Obj> =>
  fc
    .tuple(
      base,
      oneof(
        { weight: 3, arbitrary: fc.constant([] as Mutation[]) },
        { weight: 2, arbitrary: fc.array(mutation(extraKey), { minLength: 1, maxLength: 3 }) },
      ),
    )
    .map(([o, ms]) => applyMutations(o, ms))

// ---------------------------------------------------------------------------------------------
// Bodies
// ---------------------------------------------------------------------------------------------

const GARBAGE = [
  '',
  ' ',
  '{',
  '}',
  '[',
  ']',
  'nul',
  'null',
  'true',
  '0',
  '"x"',
  '{"a":',
  '{"a":1,}',
  '{,}',
  "{'a':1}",
  '{"a":1}{"b":2}',
  '{"a":1} x',
  'NaN',
  'undefined',
  '\u0000',
  '{"__proto__":',
  '\ufeff{}',
  '{"a":"\\u"}',
  '{"a":"\\ud800"}',
  '{"a":"\\x41"}',
  '[1,2',
  '<xml/>',
  'a=1&b=2',
  '{"a" 1}',
  '{"\\u0000":1}',
  '{"a":"\u0000"}',
  '{"a":01}',
  '{"a":.5}',
  '{"a":-}',
  '{"a":1e}',
  '{"a":[}',
  '\\',
  '"\\',
  '{}',
  '[]',
  '{"":""}',
]

const wrap: fc.Arbitrary<Wrap> = oneof(
  { weight: 40, arbitrary: fc.constant({ k: 'none' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'array' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'proto' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('nest' as const),
      depth: fc.integer({ min: 2, max: 40000 }),
      style: fc.constantFrom('array' as const, 'object' as const),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ k: fc.constant('whitespace' as const), size: fc.constantFrom(1000, 65000, 65535, 65536, 65537, 70000) }),
  },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('padding' as const), size: fc.integer({ min: 100, max: 70000 }) }) },
  { weight: 3, arbitrary: fc.record({ k: fc.constant('replace' as const), raw: oneof(fc.constantFrom(...GARBAGE), nastyString) }) },
)

const byteMutation: fc.Arbitrary<ByteMutation> = oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      k: fc.constant('insert' as const),
      at: fc.nat(1000),
      bytes: fc.constantFrom(
        [0xed, 0xa0, 0x80],
        [0xff],
        [0xc0, 0x80],
        [0x00],
        [0xef, 0xbb, 0xbf],
        [0xf4, 0x90, 0x80, 0x80],
        [0x80],
        [0xc3],
        [0xfe, 0xff],
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('truncate' as const), at: fc.nat(1000) }) },
  { weight: 1, arbitrary: fc.constant({ k: 'bom' as const }) },
  { weight: 1, arbitrary: fc.constant({ k: 'utf16' as const }) },
)

const body = (tree: fc.Arbitrary<unknown>): fc.Arbitrary<BodySpec> =>
  fc.record({
    tree,
    escape: oneof(
      { weight: 12, arbitrary: fc.constant('plain' as const) },
      { weight: 1, arbitrary: fc.constantFrom('ascii' as const, 'all' as const, 'literal' as const) },
    ),
    spaced: oneof({ weight: 8, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    wrap,
    bytes: oneof(
      { weight: 14, arbitrary: fc.constant([] as ByteMutation[]) },
      { weight: 1, arbitrary: fc.array(byteMutation, { minLength: 1, maxLength: 2 }) },
    ),
    chunked: oneof({ weight: 9, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
  })

// ---------------------------------------------------------------------------------------------
// Bodies of each operation, from realistic shapes
// ---------------------------------------------------------------------------------------------

const ref = (pool: PoolName, transforms: readonly Ref['transform'][] = ['none']) =>
  fc.tuple(fc.nat(10000), fc.constantFrom(...transforms)).map(([i, t]) => new Ref(pool, i, t))

const card: fc.Arbitrary<unknown> = oneof(
  { weight: 20, arbitrary: cardNumber.map((n) => new Secret('card', n)) },
  { weight: 4, arbitrary: ref('card') },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', n.replace(/(\d{4})(?=\d)/g, '$1 '))) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', n.replace(/(\d{4})(?=\d)/g, '$1-'))) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', `${n}\u0000`)) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', `\ud800${n}`)) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', ` ${n} `)) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', `${n}0`.repeat(2))) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', `\u0661${n.slice(1)}`)) },
  { weight: 1, arbitrary: cardNumber.map((n) => [new Secret('card', n)]) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Obj([[new Secret('card', n), 1]])) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Obj([['number', new Secret('card', n)]])) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Obj([['__proto__', new Secret('card', n)]])) },
  { weight: 1, arbitrary: oneof(nastyString, anyJson) },
)
const pin: fc.Arbitrary<unknown> = oneof(
  { weight: 12, arbitrary: pinDigits.map((p) => new Secret('pin', p)) },
  { weight: 1, arbitrary: pinDigits.map((p) => [new Secret('pin', p)]) },
  { weight: 1, arbitrary: pinDigits.map((p) => new Obj([[new Secret('pin', p), new Secret('pin', p)]])) },
  { weight: 1, arbitrary: pinDigits.map((p) => new Secret('pin', `${p}\u0000`)) },
  { weight: 1, arbitrary: fc.constantFrom('', '1234', null, '\u0000', ' ') },
  { weight: 1, arbitrary: oneof(nastyString, anyJson) },
)
const amount = oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0, max: 99999999 }) },
  { weight: 2, arbitrary: fc.constantFrom(-1, 100000000, 0.5, 2 ** 53, '5000') },
  { weight: 1, arbitrary: rawNumber },
)
const currency = oneof(
  { weight: 10, arbitrary: fc.constantFrom('USD', 'EUR', 'GBP', 'JPY') },
  { weight: 2, arbitrary: fc.constantFrom('usd', 'US', 'USDD', '', '\u0000SD', '\u00dcSD', 'US\ud800', 'U S') },
)
const uuidish = oneof(
  { weight: 4, arbitrary: ref('buyer', ['none', 'none', 'none', 'upper', 'tamper', 'suffix']) },
  { weight: 2, arbitrary: fc.uuid({ version: 4 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
      '{11111111-1111-4111-8111-111111111111}',
      '11111111111141118111111111111111',
      'urn:uuid:11111111-1111-4111-8111-111111111111',
    ),
  },
  { weight: 1, arbitrary: nastyString },
)
const externalId = oneof(
  { weight: 4, arbitrary: word(1, 16).map((w) => `ext-${w}`) },
  { weight: 2, arbitrary: inRange(200) },
  { weight: 1, arbitrary: nastyString },
)
const buyerExternal = oneof({ weight: 3, arbitrary: ref('buyerExternalId') }, { weight: 2, arbitrary: externalId })

/** Activation bodies: valid ones (with or without the vault), and any combination of the properties. */
const activation: fc.Arbitrary<Obj> = mutated(
  oneof(
    { weight: 3, arbitrary: obj({ number: card, money: opt(fc.tuple(amount, currency), 6) }).map(spreadMoney) },
    {
      weight: 2,
      arbitrary: obj({
        number: card,
        pin,
        store: fc.constant(true),
        buyer_id: opt(uuidish, 3),
        buyer_external_identifier: opt(buyerExternal, 3),
        external_identifier: opt(externalId, 3),
        money: opt(fc.tuple(amount, currency), 5),
      }).map(spreadMoney),
    },
    {
      weight: 3,
      arbitrary: obj({
        number: opt(field(card), 9),
        pin: opt(field(pin)),
        amount: opt(field(amount)),
        currency: opt(field(currency)),
        external_identifier: opt(field(externalId), 3),
        store: opt(field(fc.boolean())),
        buyer_id: opt(field(uuidish), 3),
        buyer_external_identifier: opt(field(buyerExternal), 3),
      }),
    },
  ),
  oneof(
    key,
    cardNumber.map((n) => new Secret('card', n)),
    pinDigits.map((p) => new Secret('pin', p)),
  ),
)
/** Bodies of `POST /gift-cards`: valid ones (for no buyer or one), and any combination of the properties. */
const giftCardCreate: fc.Arbitrary<Obj> = mutated(
  oneof(
    {
      weight: 3,
      arbitrary: obj({ number: card, pin, buyer_id: opt(uuidish, 3), buyer_external_identifier: opt(buyerExternal, 3) }),
    },
    {
      weight: 2,
      arbitrary: obj({
        number: opt(field(card), 9),
        pin: opt(field(pin), 7),
        buyer_id: opt(field(uuidish), 3),
        buyer_external_identifier: opt(field(buyerExternal), 3),
      }),
    },
  ),
  oneof(
    key,
    cardNumber.map((n) => new Secret('card', n)),
    pinDigits.map((p) => new Secret('pin', p)),
  ),
)

/** Items of `POST /gift-cards/balances`: by number and PIN, by stored id, or anything. */
const balanceItem: fc.Arbitrary<unknown> = oneof(
  { weight: 4, arbitrary: mutated(obj({ number: card, pin })) },
  {
    weight: 3,
    arbitrary: mutated(
      obj({ id: oneof({ weight: 3, arbitrary: ref('giftCard', ['none', 'upper', 'tamper']) }, { weight: 1, arbitrary: uuidish }) }),
    ),
  },
  { weight: 1, arbitrary: mutated(obj({ id: ref('giftCard'), number: card, pin })) },
  { weight: 1, arbitrary: oneof(nastyString, anyJson) },
)
/** Bodies of `POST /gift-cards/balances`: up to the bound of 10 items, and past it. */
const balanceRequest: fc.Arbitrary<Obj> = mutated(
  obj({
    items: oneof(
      { weight: 8, arbitrary: fc.array(balanceItem, { maxLength: 10 }) },
      { weight: 1, arbitrary: fc.array(balanceItem, { minLength: 11, maxLength: 14 }) },
      { weight: 1, arbitrary: oneof(nastyString, anyJson) },
    ),
  }),
  oneof(
    key,
    cardNumber.map((n) => new Secret('card', n)),
  ),
)

/** `money: [amount, currency]` to the two properties (they go together). */
function spreadMoney(o: Obj): Obj {
  return new Obj(
    o.entries.flatMap(([k, v]): (readonly [string | Secret, unknown])[] =>
      k === 'money'
        ? [
            ['amount', (v as unknown[])[0]],
            ['currency', (v as unknown[])[1]],
          ]
        : [[k, v]],
    ),
  )
}

const text = (min: number, max: number) => textField(word(min, max), max === 20 || max === 30 ? 255 : max)
const address = obj({
  city: opt(textField(word(1, 20), 100)),
  country: opt(field(fc.constantFrom('GB', 'US', 'DE', 'gb', 'GBR', 'G'))),
  postal_code: opt(textField(word(1, 10), 50)),
  state: opt(text(1, 20)),
  state_code: opt(field(fc.constantFrom('GB-LND', 'US-CA', 'US-', 'XX-ABCD'))),
  house_number_or_name: opt(textField(word(1, 10), 255)),
  line1: opt(text(1, 30)),
  line2: opt(text(1, 30)),
  organization: opt(text(1, 30)),
})
const taxId = obj({
  value: opt(textField(word(1, 20), 50), 8),
  kind: opt(field(fc.constantFrom('gb.vat', 'eu.vat', 'us.ein', 'xx.unknown', 'GB.VAT')), 8),
})
const billing = obj({
  first_name: opt(text(1, 20)),
  last_name: opt(text(1, 20)),
  email_address: opt(field(fc.constantFrom('ada@mail.example', 'not-an-email', 'a@b', `${'a'.repeat(310)}@mail.example`))),
  phone_number: opt(field(fc.constantFrom('+442071838750', '+1', '0044207', '+0123', '+12345678901234567'))),
  address: opt(field(address), 4),
  tax_id: opt(field(taxId), 3),
})
const buyerBody: fc.Arbitrary<Obj> = mutated(
  obj({
    display_name: opt(textField(fc.constantFrom('Ada Lovelace', 'Grace Hopper', '\u00c9mile', '\u{1f600}'), 200)),
    external_identifier: opt(field(buyerExternal)),
    billing_details: opt(field(billing), 4),
    account_number: opt(textField(word(1, 20), 200), 3),
  }),
)

/** A buyer's shipping details: the billing details' person and address, without a tax id (sent anyway now and then: a 422). */
const shippingBody: fc.Arbitrary<Obj> = mutated(
  obj({
    first_name: opt(oneof({ weight: 4, arbitrary: text(1, 20) }, { weight: 1, arbitrary: fc.constant(null) })),
    last_name: opt(text(1, 20)),
    email_address: opt(field(fc.constantFrom('ada@mail.example', 'not-an-email', `${'a'.repeat(310)}@mail.example`))),
    phone_number: opt(field(fc.constantFrom('+442071838750', '+1', '0044207', '+12345678901234567'))),
    address: opt(oneof({ weight: 4, arbitrary: field(address) }, { weight: 1, arbitrary: fc.constant(null) }), 4),
    tax_id: opt(field(taxId), 1),
  }),
)

/** Buyer updates: the creation's properties, each also sent as null (which clears it). */
const buyerUpdate: fc.Arbitrary<Obj> = mutated(
  obj({
    display_name: opt(
      oneof(
        { weight: 4, arbitrary: textField(fc.constantFrom('Ada King', 'Grace', '\u00c9mile'), 200) },
        { weight: 1, arbitrary: fc.constant(null) },
      ),
    ),
    external_identifier: opt(oneof({ weight: 4, arbitrary: field(buyerExternal) }, { weight: 1, arbitrary: fc.constant(null) })),
    billing_details: opt(oneof({ weight: 3, arbitrary: field(billing) }, { weight: 1, arbitrary: fc.constant(null) }), 4),
    account_number: opt(oneof({ weight: 3, arbitrary: textField(word(1, 20), 200) }, { weight: 1, arbitrary: fc.constant(null) }), 3),
  }),
)
/** A card number with its Luhn check digit put right: Secure Fields refuse the others (422) before anything is stored. */
const withCheckDigit = (n: string): string => {
  const body = n.slice(0, -1)
  for (let d = 0; d < 10; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`
  return n
}
/** Metadata: keys that mean something to storage (`.`, `$`, `__proto__`) among plain ones. */
const metadata = fc
  .array(
    fc.tuple(
      oneof({ weight: 4, arbitrary: word(1, 12) }, { weight: 1, arbitrary: fc.constantFrom('a.b', '$set', '__proto__', '', '.') }),
      textField(word(0, 20), 255),
    ),
    { maxLength: 5 },
  )
  .map((entries) => new Obj(entries))
const cartItem = mutated(
  obj({
    name: text(1, 30),
    quantity: field(fc.integer({ min: 1, max: 5 })),
    unit_amount: field(amount),
    sku: opt(textField(word(1, 10), 200), 3),
    product_type: opt(field(fc.constantFrom('physical', 'digital', 'gift_card', 'PHYSICAL')), 3),
    categories: opt(field(fc.array(text(1, 20), { maxLength: 3 })), 2),
  }),
)
/** Checkout session bodies (create and update): every property optional, `expires_in` about its bounds. */
const sessionBody: fc.Arbitrary<Obj> = mutated(
  obj({
    amount: opt(field(amount), 4),
    currency: opt(field(currency), 4),
    metadata: opt(field(metadata), 4),
    cart_items: opt(field(fc.array(cartItem, { maxLength: 3 })), 3),
    buyer: opt(
      field(
        obj({
          display_name: opt(textField(fc.constantFrom('Ada Lovelace', '\u00c9mile'), 200)),
          billing_details: opt(field(billing), 3),
          shipping_details: opt(field(obj({ first_name: opt(text(1, 20)) })), 1),
        }),
      ),
      3,
    ),
    payment_service_id: opt(field(uuidish), 1),
    airline: opt(field(anyJson), 1),
    expires_in: opt(field(oneof(fc.integer({ min: 3600, max: 86400 }), fc.constantFrom(3599, 86401, 0, -1, '3600', 3600.5))), 4),
  }),
)
/** Secure Fields bodies: Luhn-valid cards with good and bad expiry dates, stored methods, and any shape. */
const sessionFields: fc.Arbitrary<Obj> = mutated(
  obj({
    payment_method: field(
      mutated(
        obj({
          method: opt(field(fc.constantFrom('card', 'card', 'card', 'id', 'CARD')), 9),
          number: opt(
            oneof({ weight: 6, arbitrary: cardNumber.map((n) => new Secret('card', withCheckDigit(n))) }, { weight: 2, arbitrary: card }),
            9,
          ),
          expiration_date: opt(field(fc.constantFrom('12/35', '01/30', '13/30', '12/20', '1/30', '12/2035')), 9),
          security_code: opt(field(oneof(cvvValue, fc.constantFrom('123', '1234', '12', 'abc'))), 6),
          id: opt(field(oneof(word(1, 10), ref('paymentMethod', ['none', 'none', 'upper', 'tamper']))), 2),
        }),
        oneof(
          key,
          cardNumber.map((n) => new Secret('card', n)),
        ),
      ),
    ),
  }),
)

/** Expiry dates: `MM/YY` in the future and the past, and every other form. */
const expirationDate = oneof(
  { weight: 6, arbitrary: fc.constantFrom('12/35', '01/30', '06/28', '12/99') },
  {
    weight: 2,
    arbitrary: fc.constantFrom('01/20', '12/24', '00/30', '13/30', '1/30', '12/2035', '12-30', '1230', ' 12/35', '12/35\u0000'),
  },
)
/** Card numbers for a card on file: Luhn-valid ones, and others: failing Luhn, 12 digits long, formatted, or no text at all. */
const storedCardNumber: fc.Arbitrary<unknown> = oneof(
  { weight: 8, arbitrary: cardNumber.map((n) => new Secret('card', withCheckDigit(n))) },
  { weight: 2, arbitrary: card },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', withCheckDigit(n).slice(0, 12))) },
  { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', withCheckDigit(n.slice(0, 15)).replace(/(\d{4})(?=\d)/g, '$1 '))) },
)
const securityCode: fc.Arbitrary<unknown> = oneof(
  { weight: 6, arbitrary: cvvValue },
  { weight: 2, arbitrary: fc.constantFrom<unknown>('12', '12345', 'abc', 123, '\uff11\uff12\uff13', null, '') },
)
/** Bodies of `POST /payment-methods`: valid cards (for no buyer or one), a checkout session's card, and any combination of the properties. */
const paymentMethodCreate: fc.Arbitrary<Obj> = mutated(
  oneof(
    {
      weight: 4,
      arbitrary: obj({
        method: fc.constant('card'),
        number: storedCardNumber,
        expiration_date: expirationDate,
        security_code: opt(securityCode, 6),
        buyer_id: opt(uuidish, 3),
        buyer_external_identifier: opt(buyerExternal, 2),
        external_identifier: opt(externalId, 3),
      }),
    },
    {
      weight: 1,
      arbitrary: obj({
        method: fc.constant('checkout-session'),
        id: oneof(ref('session', ['none', 'none', 'upper', 'tamper']), uuidish),
        buyer_id: opt(uuidish, 2),
        external_identifier: opt(externalId, 2),
      }),
    },
    {
      weight: 3,
      arbitrary: obj({
        method: opt(field(fc.constantFrom('card', 'card', 'checkout-session', 'CARD', 'id', 'paypal', 'network-token')), 8),
        number: opt(field(storedCardNumber), 8),
        expiration_date: opt(field(expirationDate), 8),
        security_code: opt(field(securityCode), 5),
        card_type: opt(field(fc.constantFrom(null, 'credit', 'debit')), 1),
        id: opt(field(oneof(ref('session'), uuidish)), 2),
        buyer_id: opt(field(uuidish), 3),
        buyer_external_identifier: opt(field(buyerExternal), 3),
        external_identifier: opt(field(externalId), 3),
      }),
    },
  ),
  oneof(
    key,
    cardNumber.map((n) => new Secret('card', n)),
  ),
)
/** Bodies of `PUT /payment-methods/{id}`: each property absent, null (cleared) or set, and hostile values. */
const paymentMethodUpdate: fc.Arbitrary<Obj> = mutated(
  obj({
    expiration_date: opt(field(expirationDate), 5),
    external_identifier: opt(oneof({ weight: 4, arbitrary: field(externalId) }, { weight: 1, arbitrary: fc.constant(null) }), 4),
    scheme_transaction_id: opt(
      oneof({ weight: 3, arbitrary: textField(word(1, 20), 200) }, { weight: 1, arbitrary: fc.constant(null) }),
      3,
    ),
    scheme_transaction_id_scheme: opt(field(fc.constantFrom('visa', 'mastercard', 'amex', null, 'VISA', 'unknown')), 3),
    transaction_link_id: opt(oneof({ weight: 3, arbitrary: textField(word(1, 20), 200) }, { weight: 1, arbitrary: fc.constant(null) }), 3),
  }),
)
/** Payments that store the card that pays, or pay with a stored one (`store`, `{method: "id"}`), among hostile values. */
const storingPayment: fc.Arbitrary<Obj> = mutated(
  obj({
    amount: field(amount),
    currency: field(currency),
    store: opt(field(fc.constantFrom<unknown>(true, false, 'true', 1)), 8),
    buyer_id: opt(field(uuidish), 5),
    buyer_external_identifier: opt(field(buyerExternal), 2),
    payment_method: field(
      oneof(
        obj({
          method: fc.constant('card'),
          number: storedCardNumber,
          expiration_date: expirationDate,
          security_code: opt(securityCode, 6),
        }),
        obj({
          method: fc.constant('id'),
          id: oneof(ref('paymentMethod', ['none', 'none', 'upper', 'tamper', 'suffix']), uuidish),
          security_code: opt(securityCode, 6),
        }),
      ),
    ),
  }),
  oneof(
    key,
    cardNumber.map((n) => new Secret('card', n)),
  ),
)

/** Search values: parts of names and identifiers in any case, pattern characters, and odd text. */
const buyerSearch = oneof(
  { weight: 3, arbitrary: fc.constantFrom('ada', 'ADA', 'grace', 'fuzz', 'ext-', 'buyer-1', '\u00e9mile', 'setup') },
  { weight: 2, arbitrary: fc.constantFrom('.*', '^', '$', '(', '[a-z]+', '\\', '|', '?', '{1}', '%', '$where', 'a.b', '\\Q', '(?i)') },
  { weight: 1, arbitrary: ref('buyerExternalId') },
  { weight: 1, arbitrary: shortNasty },
)

/** Webhook URLs: public-looking hosts under `.example` (they never resolve), and every kind of refused address. */
const webhookUrl = oneof(
  {
    weight: 6,
    arbitrary: fc
      .tuple(word(1, 12), fc.constantFrom('/hooks', '/', '/a/b?c=d', '/%00', '/\u00e9'))
      .map(([w, p]) => `https://${w.toLowerCase()}.hooks.example${p}`),
  },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      'http://127.0.0.1:1/hook',
      'https://localhost/x',
      'http://localhost.:8080/',
      'https://[::1]/',
      'https://169.254.169.254/latest/meta-data',
      'https://10.0.0.1/',
      'https://192.168.1.1/',
      'https://172.16.0.1/',
      'https://100.64.0.1/',
      'https://0.0.0.0/',
      'https://[fe80::1]/',
      'https://[::ffff:127.0.0.1]/',
      'https://2130706433/',
      'https://0x7f.1/',
      'https://127.1/',
      'https://017700000001/',
      'https://224.0.0.1/',
      'https://user:pass@a.hooks.example/',
      'ftp://a.hooks.example/',
      'https://a.hooks.example:99999/',
      'https://a.hooks.example:0/',
      'https:/a',
      'https://',
      'https:///x',
      'HTTPS://A.HOOKS.EXAMPLE/',
      'https://\u4f8b\u3048.example/',
      'https://xn--r8jz45g.example/',
      'javascript:alert(1)',
      'https://a.hooks.example/ x',
      'https://a.hooks.example\u0000.b.example/',
      'https://a.hooks.example#frag',
      'https://a..example/',
      'https://-a.example/',
      `https://a.hooks.example/${'a'.repeat(2020)}`,
      `https://a.hooks.example/${'a'.repeat(2030)}`,
      'http://[::]/',
      'https://[::1',
      'https://a.hooks.example\\@127.0.0.1/',
    ),
  },
  { weight: 1, arbitrary: nastyString },
)
const webhookAuthentication = oneof(
  { weight: 2, arbitrary: fc.constant(null) },
  {
    weight: 2,
    arbitrary: obj({ kind: field(fc.constant('basic')), username: textField(word(1, 12), 1000), password: field(passwordValue('Zpw')) }),
  },
  {
    weight: 2,
    arbitrary: obj({
      kind: field(fc.constant('oauth_client_credentials')),
      client_id: textField(word(1, 12), 1000),
      client_secret: field(passwordValue('Zpc')),
      token_url: field(webhookUrl),
      scope: opt(field(fc.constantFrom('read', 'events:write', null))),
    }),
  },
  {
    weight: 1,
    arbitrary: obj({
      kind: field(fc.constant('oauth_password')),
      client_id: textField(word(1, 12), 1000),
      client_secret: field(passwordValue('Zpc')),
      token_url: field(webhookUrl),
      username: textField(word(1, 12), 1000),
      password: field(passwordValue('Zpw')),
      scope: opt(field(fc.constantFrom('read', null))),
    }),
  },
  {
    weight: 1,
    arbitrary: obj({
      kind: field(fc.constantFrom('digest', 'Basic', '', 'basic ')),
      username: opt(field(word(1, 12))),
      password: opt(field(passwordValue('Zpw'))),
    }),
  },
)
const webhookCreate: fc.Arbitrary<Obj> = mutated(
  obj({
    url: opt(field(webhookUrl), 9),
    // Most subscriptions are inactive, so that deliveries do not grow with the square of the run.
    active: opt(field(oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) })), 8),
    authentication: opt(field(webhookAuthentication), 4),
  }),
)
const webhookUpdate: fc.Arbitrary<Obj> = mutated(
  obj({
    url: opt(field(webhookUrl), 4),
    active: opt(field(fc.constantFrom(true, false, false, null)), 6),
    authentication: opt(field(webhookAuthentication), 3),
  }),
)
const rotation: fc.Arbitrary<Obj> = mutated(
  obj({
    delta: opt(field(oneof(fc.integer({ min: 0, max: 10080 }), fc.constantFrom(-1, 10081, 1.5, '5', 2 ** 31)) as fc.Arbitrary<unknown>), 7),
  }),
)

/** Merchant account ids: new ones (mostly), taken ones, and ones breaking the pattern or the length. */
const accountId = oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9_-]{3,20}$/) },
  { weight: 1, arbitrary: fc.constantFrom('default', 'acme') },
  { weight: 1, arbitrary: fc.constantFrom('-lead', 'has space', 'x'.repeat(65), 'a/b', '%00', '') },
)
const accountSettings = {
  account_updater_enabled: opt(field(fc.constantFrom(true, false, 'yes', null)), 2),
  async_network_tokens_enabled: opt(field(fc.constantFrom(true, false)), 2),
  over_capture_amount: opt(field(fc.constantFrom(0, 500, -1, 1.5, null, 10 ** 9)), 2),
  over_capture_percentage: opt(field(fc.constantFrom(0, 15, 100, 101, null)), 2),
  visa_network_tokens_requestor_id: opt(text(1, 20), 2),
  loon_accepted_schemes: opt(field(fc.constantFrom(['visa'], [], null, ['visa', 7])), 2),
  // Secrets: never answered, never logged.
  loon_secret_key: opt(field(passwordValue('Zsk')), 2),
  account_updater_request_encryption_key: opt(field(passwordValue('Zpc')), 2),
}
const merchantAccountCreate: fc.Arbitrary<Obj> = mutated(
  obj({ id: opt(field(accountId), 9), display_name: opt(textField(word(1, 20), 200), 9), ...accountSettings }),
)
const merchantAccountUpdate: fc.Arbitrary<Obj> = mutated(obj({ display_name: opt(textField(word(1, 20), 200), 3), ...accountSettings }))

/** A P-521 public key: registered once per run, then a 409 each time it comes back. */
const P521_PUBLIC_KEY =
  '-----BEGIN PUBLIC KEY-----\nMIGbMBAGByqGSM49AgEGBSuBBAAjA4GGAAQAE6l7wOJljvA8S+hN4JYcQtmXzRMo\nOW/5PLH6N17pzJ02H5nIwNkP7vZwQIs8B0wRB8zmNv5h7cBTFRoeV1zaqbcBb6wV\n' +
  'ZKoQBjjbEjXzEZcI3++o0O9LCq4U7XYQQsXfq5YVTDoTykIQhdvhu3Ry1GyW3niQ\nRjBUHTpGZTybi6hgeyI=\n-----END PUBLIC KEY-----\n'
const roleIds = field(
  fc.array(
    oneof({ weight: 6, arbitrary: fc.constantFrom(...ROLE_CATALOGUE.map((r) => r.id)) }, { weight: 1, arbitrary: fc.uuid({ version: 4 }) }),
    {
      maxLength: 3,
    },
  ),
)
const keyAccounts = field(fc.array(fc.constantFrom('default', 'acme', 'nope'), { maxLength: 2 }))
const apiKeyPairCreate: fc.Arbitrary<Obj> = mutated(
  obj({
    display_name: opt(textField(word(1, 20), 200), 9),
    role_ids: opt(roleIds, 9),
    merchant_account_ids: opt(keyAccounts, 3),
    active: opt(field(fc.boolean()), 2),
    algorithm: opt(field(fc.constantFrom('ECDSA', 'RSA')), 2),
    public_key: opt(field(fc.constantFrom(P521_PUBLIC_KEY, P521_PUBLIC_KEY.replace('PUBLIC', 'PRIVATE'), 'not a key')), 2),
  }),
)
const apiKeyPairUpdate: fc.Arbitrary<Obj> = mutated(
  obj({
    display_name: opt(textField(word(1, 20), 200), 4),
    active: opt(field(fc.boolean()), 4),
    role_ids: opt(roleIds, 2),
    merchant_account_ids: opt(keyAccounts, 2),
  }),
)

// ---------------------------------------------------------------------------------------------
// Query strings, path ids, headers, tokens
// ---------------------------------------------------------------------------------------------

const RAW_QUERY = [
  '%00',
  '%ED%A0%80',
  '%',
  '%zz',
  '%C0%80',
  '%FF',
  '+',
  '&&',
  '=',
  '==',
  '%26',
  'limit[]=1',
  'limit[a]=1',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  ';',
  '%2',
  'limit=%00',
  'cursor=%ED%A0%80',
  'limit=1&limit=2',
  'cursor=a&cursor=b',
  'external_identifier=%00',
  'status=%ED%A0%80',
  'limit',
  'cursor=',
  'limit=',
]
const limitValue = oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 100 }).map(String) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0',
      '101',
      '-1',
      '1.5',
      '1e2',
      'abc',
      '',
      ' 5',
      '5 ',
      '0x10',
      '007',
      '+5',
      '99999999999999999999',
      '1000000000000000',
      'NaN',
      'Infinity',
      '\u0968',
    ),
  },
)
const cursorValue = oneof(
  { weight: 5, arbitrary: ref('cursor', ['none', 'none', 'none', 'tamper', 'truncate', 'suffix', 'upper']) },
  { weight: 2, arbitrary: shortNasty },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(1000), 'a'.repeat(1001), 'eyJhIjoxfQ', 'null', '__proto__') },
)
const param = (name: string, value: fc.Arbitrary<string | Ref>): fc.Arbitrary<QueryPart> => value.map((v) => ({ name, value: v }))
const randomParam: fc.Arbitrary<QueryPart> = oneof(
  fc.tuple(oneof(specialKey, shortNasty), shortNasty).map(([name, value]) => ({ name, value })),
  fc.constantFrom(...RAW_QUERY).map((raw) => ({ raw })),
)
const query = (specific: readonly fc.Arbitrary<QueryPart>[]): fc.Arbitrary<readonly QueryPart[]> =>
  oneof(
    { weight: 2, arbitrary: fc.constant([]) },
    {
      weight: 6,
      arbitrary: fc.array(
        oneof(
          { weight: 3, arbitrary: param('limit', limitValue) },
          { weight: 3, arbitrary: param('cursor', cursorValue) },
          ...specific.map((arbitrary) => ({ weight: 3, arbitrary })),
          { weight: 2, arbitrary: randomParam },
        ),
        { minLength: 1, maxLength: 4 },
      ),
    },
  )
const noQuery = oneof(
  { weight: 19, arbitrary: fc.constant([] as QueryPart[]) },
  { weight: 1, arbitrary: fc.array(randomParam, { minLength: 1, maxLength: 2 }) },
)

const RAW_SEGMENTS = [
  '%00',
  '%ED%A0%80',
  '%',
  '%zz',
  '%2F',
  '%2e%2e',
  '..',
  '.',
  '%C0%AF',
  '%FF',
  '%20',
  '+',
  ';',
  ':',
  '@',
  '!',
  '*',
  "'",
  '(',
  ')',
  ',',
  '$',
  '&',
  '=',
  '~',
]
/** `status` of the payment method list: one or several (repeated, or separated by commas), in any case, and odd text. */
const methodStatus = oneof(
  { weight: 4, arbitrary: fc.constantFrom('succeeded', 'failed', 'processing', 'succeeded,failed', 'paused,buyer_approval_required') },
  { weight: 2, arbitrary: fc.constantFrom('SUCCEEDED', '', ',', 'succeeded,', 'succeeded,nope', '%00') },
  { weight: 1, arbitrary: shortNasty },
)

/** A path segment from any string: UTF-8 percent-encoded (a lone surrogate becomes U+FFFD's bytes). */
export const encodeComponent = (s: string): string => {
  let out = ''
  for (const b of Buffer.from(s, 'utf8'))
    out += /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`
  return out
}
const idSegment = (pool: PoolName): fc.Arbitrary<Segment> =>
  oneof(
    { weight: 10, arbitrary: ref(pool) },
    { weight: 3, arbitrary: ref(pool, ['upper', 'suffix', 'tamper', 'truncate']) },
    { weight: 2, arbitrary: fc.uuid({ version: 4 }) },
    { weight: 1, arbitrary: fc.uuid({ version: 4 }).map((u) => u.toUpperCase()) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '00000000-0000-0000-0000-000000000000',
        'ffffffff-ffff-ffff-ffff-ffffffffffff',
        '11111111111141118111111111111111',
        '%7B11111111-1111-4111-8111-111111111111%7D',
        'null',
        'undefined',
        '__proto__',
        'constructor',
      ),
    },
    { weight: 2, arbitrary: shortNasty.filter((s) => s !== '').map(encodeComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.integer({ min: 37, max: 5000 }), fc.constantFrom('a', '1', '%00', '%E2%82%AC'))
        .map(([n, c]) => c.repeat(Math.ceil(n / c.length))),
    },
    { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', n, 'log')) },
  )

/** An account a path names: the seeded ones mostly (one the run created is as good), or any id. */
const knownAccount: fc.Arbitrary<Segment> = oneof(
  { weight: 3, arbitrary: fc.constantFrom<Segment>('default', 'acme') },
  { weight: 1, arbitrary: accountId.filter((a) => a !== '').map(encodeComponent) },
)

/** The buyer a shipping details route names: mostly the seeded default buyer, whose shipping details the run's pool holds. */
const shippingBuyer: fc.Arbitrary<Segment> = oneof(
  { weight: 4, arbitrary: fc.constant<Segment>(IDS.defaultBuyer) },
  { weight: 1, arbitrary: idSegment('buyer') },
)

const TOKENS: readonly TokenName[] = [
  'fresh',
  'fresh',
  'acmeAdmin',
  'readOnly',
  'giftCardOperator',
  'embed',
  'embed2',
  'embedBuyer',
  'narrow',
  'expired',
  'badSignature',
  'truncated',
  'algNone',
  'huge',
]
const authArb: fc.Arbitrary<AuthSpec> = oneof(
  { weight: 60, arbitrary: fc.constant({ kind: 'bearer' as const, token: 'admin' as const, scheme: 'Bearer' }) },
  { weight: 12, arbitrary: fc.constantFrom(...TOKENS).map((token) => ({ kind: 'bearer' as const, token, scheme: 'Bearer' })) },
  { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom<TokenName>('admin', 'embed'),
        fc.constantFrom('bearer', 'BEARER', 'Bearer  ', 'Bearer\t', 'Basic', 'Token', ''),
      )
      .map(([token, scheme]) => ({ kind: 'bearer' as const, token, scheme })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom<TokenName>('admin', 'readOnly'), fc.constantFrom<TokenName>('admin', 'expired', 'acmeAdmin'))
      .map(([first, second]) => ({ kind: 'twice' as const, first, second })),
  },
  {
    weight: 2,
    arbitrary: oneof(
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Bearer a.b.c',
        'Bearer ..',
        'Basic dXNlcjpwYXNz',
        'Bearer eyJhbGciOiJub25lIn0.e30.',
        'Bearer \u00ff\u00fe',
      ),
      shortNasty.map((s) => `Bearer ${s}`),
    ).map((value) => ({ kind: 'raw' as const, value })),
  },
)

const merchantArb: fc.Arbitrary<readonly string[]> = oneof(
  { weight: 12, arbitrary: fc.constant([]) },
  { weight: 6, arbitrary: fc.constantFrom(['default'], ['acme']) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ['frozen'],
      ['nope'],
      [''],
      ['DEFAULT'],
      [' default '],
      ['acme', 'default'],
      ['default', 'default'],
      ['a'.repeat(300)],
      ['d\u00e9fault'],
      ['__proto__'],
      ['constructor'],
      ['$gt'],
    ),
  },
  { weight: 1, arbitrary: shortNasty.map((v) => [v]) },
)

const CONTENT_TYPES = [
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/json; charset=utf-16',
  'application/json;charset=latin1',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/xml',
  '*/*',
  'json',
  '',
  ';',
  'application/',
  'application/json, text/plain',
  'application/json; boundary="',
  'application/json; charset="utf-8"',
  'application/jsonx',
  'application/json;;;',
  'application/json ; charset=UTF-8',
  'application/problem+json',
  'application/+json',
  'application/json\u00ff',
]
const contentType: fc.Arbitrary<readonly string[]> = oneof(
  { weight: 14, arbitrary: fc.constant(['application/json']) },
  { weight: 3, arbitrary: fc.constant([]) },
  { weight: 4, arbitrary: fc.constantFrom(...CONTENT_TYPES).map((t) => [t]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      ['application/json', 'text/plain'],
      ['text/plain', 'application/json'],
      ['application/json', 'application/json'],
    ),
  },
)

/** A header value the HTTP parser accepts: any string as UTF-8 bytes, control characters replaced (those are the transport property's). */
export const headerSafe = (s: string): string =>
  Buffer.from(s, 'utf8')
    .toString('latin1')
    // eslint-disable-next-line no-control-regex -- matching control characters is the point: the HTTP parser refuses them in a header
    .replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '?')
const headerValue = shortNasty.map(headerSafe)
const headerName = oneof(
  fc.constantFrom(
    'x-fuzz',
    'accept',
    'accept-encoding',
    'accept-language',
    'cookie',
    'origin',
    'referer',
    'user-agent',
    'x-forwarded-for',
    'x-forwarded-host',
    'forwarded',
    'x-http-method-override',
    'prefer',
    'if-none-match',
    'range',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'x-orka-merchant-account-id',
    'idempotency-key',
    'authorization',
    'content-type',
    'x-request-id',
    'content-encoding',
    'ratelimit',
    'x-orka-webhook-signatures',
  ),
  word(1, 20).map((w) => `x-${w}`),
)
const extraHeader: fc.Arbitrary<readonly [string, string]> = oneof(
  {
    weight: 2,
    arbitrary: fc.tuple(
      fc.constant('x-request-id'),
      oneof(word(1, 40), fc.constantFrom('a'.repeat(128), 'a'.repeat(129), '', 'a b', '\u00ff', '{"json":1}', 'line\\nbreak'), headerValue),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constant('accept'),
      fc.constantFrom('application/json', '*/*', 'text/html', 'application/xml', '', 'application/json;q=0'),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(
      fc.constant('content-encoding'),
      fc.constantFrom('gzip', 'identity', 'br', 'deflate, gzip', 'IDENTITY', '', 'x\u00ff'),
    ),
  },
  { weight: 3, arbitrary: fc.tuple(headerName, oneof(headerValue, word(0, 20))) },
)
const extraHeaders = oneof(
  { weight: 6, arbitrary: fc.constant([] as (readonly [string, string])[]) },
  { weight: 2, arbitrary: fc.array(extraHeader, { minLength: 1, maxLength: 3 }) },
)
const idempotencyKey: fc.Arbitrary<readonly (readonly [string, string])[]> = oneof(
  { weight: 8, arbitrary: fc.constant([]) },
  { weight: 4, arbitrary: fc.constantFrom('key-1', 'key-2', 'key-3').map((k) => [['idempotency-key', k] as const]) },
  { weight: 4, arbitrary: fc.uuid({ version: 4 }).map((k) => [['idempotency-key', k] as const]) },
  {
    weight: 2,
    arbitrary: oneof(fc.constantFrom('', ' ', 'a'.repeat(255), 'a'.repeat(256), '\u00ff'), headerValue).map((k) => [
      ['idempotency-key', k] as const,
    ]),
  },
  { weight: 1, arbitrary: fc.constant([['idempotency-key', 'key-1'] as const, ['idempotency-key', 'key-2'] as const]) },
)
const headerCase = oneof(
  { weight: 8, arbitrary: fc.constant('lower' as const) },
  { weight: 1, arbitrary: fc.constantFrom('title' as const, 'upper' as const, 'mixed' as const) },
)

// ---------------------------------------------------------------------------------------------
// Requests of each family
// ---------------------------------------------------------------------------------------------

interface Parts {
  readonly family: string
  readonly method: fc.Arbitrary<string>
  readonly path: fc.Arbitrary<readonly Segment[]>
  readonly query?: fc.Arbitrary<readonly QueryPart[]>
  readonly body?: fc.Arbitrary<BodySpec | null>
  readonly headers?: fc.Arbitrary<readonly (readonly [string, string])[]>
  readonly auth?: fc.Arbitrary<AuthSpec>
}

const request = (p: Parts): fc.Arbitrary<FuzzRequest> =>
  fc
    .record({
      method: p.method,
      path: p.path,
      trailingSlash: oneof({ weight: 15, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
      query: p.query ?? noQuery,
      auth: p.auth ?? authArb,
      merchant: merchantArb,
      contentType,
      headers: fc.tuple(p.headers ?? fc.constant([] as readonly (readonly [string, string])[]), extraHeaders).map(([a, b]) => [...a, ...b]),
      headerCase,
      body: p.body ?? oneof({ weight: 15, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: body(anyJson) }),
    })
    .map((r) => ({
      family: p.family,
      ...r,
      contentType: r.body === null && r.contentType.length === 1 && r.contentType[0] === 'application/json' ? [] : r.contentType,
    }))

const seg = (...s: (Segment | fc.Arbitrary<Segment>)[]): fc.Arbitrary<Segment[]> =>
  fc.tuple<Segment[]>(...s.map((x) => (typeof x === 'string' || x instanceof Ref || x instanceof Secret ? fc.constant(x) : x)))
const is = (m: string) => fc.constant(m)
const optionalBody = (tree: fc.Arbitrary<unknown>) =>
  oneof({ weight: 2, arbitrary: fc.constant(null) }, { weight: 3, arbitrary: body(tree) })

const deliverySegments: fc.Arbitrary<Segment[]> = fc
  .tuple(
    fc.nat(10000),
    oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: idSegment('subscription') }),
    oneof({ weight: 4, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: idSegment('delivery') }),
  )
  .map(([i, sub, del]) => [
    'webhook-subscriptions',
    sub ?? new Ref('deliverySubscription', i),
    'deliveries',
    del ?? new Ref('delivery', i),
    'redeliver',
  ])

const UNKNOWN_WORDS = [
  'gift-cards',
  'activations',
  'roles',
  'buyers',
  'webhook-subscriptions',
  'deliveries',
  'redeliver',
  'rotate-secret',
  'x',
  'ROLES',
  'api',
  'v1',
  'transactions',
  'balances',
  'checkout',
  'sessions',
  'fields',
  'openapi.json',
  'healthz',
  'docs',
  'admin',
  '.env',
  'Roles',
  'webhook_subscriptions',
  'payment-methods',
  'network-tokens',
  'payment-service-tokens',
  'cryptogram',
]
const unknownPath: fc.Arbitrary<Segment[]> = fc.array(
  oneof(
    { weight: 6, arbitrary: fc.constantFrom(...UNKNOWN_WORDS) },
    { weight: 2, arbitrary: shortNasty.map(encodeComponent) },
    { weight: 1, arbitrary: fc.constantFrom(...RAW_SEGMENTS, '') },
    { weight: 1, arbitrary: cardNumber.map((n) => new Secret('card', n, 'log')) },
    { weight: 1, arbitrary: ref('subscription') },
  ),
  { minLength: 0, maxLength: 5 },
)
/**
 * A payment service's settings: the mock's fields, one it does not know, and a secret `api_key`
 * (a credential: never in a response or a log line).
 */
const serviceField: fc.Arbitrary<unknown> = oneof(
  {
    weight: 4,
    arbitrary: obj({
      key: field(fc.constantFrom('merchant_id', 'mode')),
      value: textField(fc.constantFrom('test', 'down', 'timeout', ''), 4096),
    }),
  },
  { weight: 3, arbitrary: obj({ key: field(fc.constant('api_key')), value: field(passwordValue('Zsk')) }) },
  { weight: 1, arbitrary: obj({ key: textField(word(1, 12), 100), value: textField(word(0, 12), 4096) }) },
)
const serviceSettings = {
  fields: field(fc.array(serviceField, { maxLength: 4 })),
  accepted_currencies: field(fc.array(fc.constantFrom('USD', 'EUR', 'usd', 'XTS', 'US'), { maxLength: 3 })),
  accepted_countries: field(fc.array(fc.constantFrom('US', 'GB', 'us', 'XX', 'USA'), { maxLength: 3 })),
  position: opt(field(fc.constantFrom(0, 1, 5, 999, 1000, -1, 2.5))),
}
/**
 * Services the fuzzer creates are never routed to (`active` is always false, never mutated
 * away): the transaction model predicts where payments go from the seeded services alone.
 */
const serviceCreate: fc.Arbitrary<Obj> = obj({
  display_name: textField(fc.constantFrom('Mock card service', 'Backup', '\u{1f600}'), 200),
  payment_service_definition_id: field(fc.constantFrom('mock-card', 'paypal-card', '')),
  ...serviceSettings,
  active: fc.constant(false),
  three_d_secure_enabled: opt(fc.constantFrom(false, true, null), 2),
})
const serviceUpdate: fc.Arbitrary<Obj> = obj({
  display_name: opt(textField(fc.constantFrom('Renamed', ''), 200)),
  fields: opt(serviceSettings.fields),
  accepted_currencies: opt(serviceSettings.accepted_currencies),
  accepted_countries: opt(serviceSettings.accepted_countries),
  position: serviceSettings.position,
  active: opt(fc.constantFrom(false, null)),
})
const verifyBody: fc.Arbitrary<Obj> = obj({
  payment_service_definition_id: field(fc.constantFrom('mock-card', 'paypal-card')),
  fields: serviceSettings.fields,
  payment_service_id: opt(oneof(ref('paymentService'), fc.uuid({ version: 4 }), fc.constant(null))),
})
const paymentOptions: fc.Arbitrary<Obj> = obj({
  currency: opt(field(fc.constantFrom('USD', 'EUR', 'usd'))),
  country: opt(field(fc.constantFrom('US', 'GB', 'u'))),
  amount: opt(field(fc.constantFrom(1299, 0, -1, 2 ** 53))),
  locale: opt(field(fc.constantFrom('en', 'en-US', 'x'))),
})

/** The payment service routes, their definitions, payment options and card schemes (issue 36). */
const paymentServiceRequests: fc.Arbitrary<FuzzRequest> = oneof(
  {
    weight: 3,
    arbitrary: request({ family: 'create_payment_service', method: is('POST'), path: seg('payment-services'), body: body(serviceCreate) }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'list_payment_services',
      method: is('GET'),
      path: seg('payment-services'),
      query: query([param('method', fc.constantFrom('card', 'paypal', '')), param('deleted', fc.constantFrom('true', 'false', 'yes'))]),
    }),
  },
  {
    weight: 2,
    arbitrary: request({ family: 'get_payment_service', method: is('GET'), path: seg('payment-services', idSegment('paymentService')) }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'update_payment_service',
      method: is('PUT'),
      path: seg('payment-services', idSegment('paymentService')),
      body: body(serviceUpdate),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'delete_payment_service',
      method: is('DELETE'),
      path: seg('payment-services', idSegment('paymentService')),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'verify_payment_service_credentials',
      method: is('POST'),
      path: seg('payment-services', 'verify'),
      body: body(verifyBody),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'create_payment_service_session',
      method: is('POST'),
      path: seg('payment-services', idSegment('paymentService'), 'sessions'),
      body: optionalBody(anyJson),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'list_payment_service_definitions',
      method: is('GET'),
      path: seg('payment-service-definitions'),
      query: query([]),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'get_payment_service_definition',
      method: is('GET'),
      path: seg('payment-service-definitions', fc.constantFrom('mock-card', 'MOCK-CARD', 'stripe-card', '%00', 'x'.repeat(60))),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'create_payment_service_definition_session',
      method: is('POST'),
      path: seg('payment-service-definitions', fc.constantFrom('mock-card', 'stripe-card'), 'sessions'),
      body: optionalBody(anyJson),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'list_payment_options',
      method: is('POST'),
      path: seg('payment-options'),
      body: optionalBody(paymentOptions),
    }),
  },
  { weight: 1, arbitrary: request({ family: 'list_card_scheme_definitions', method: is('GET'), path: seg('card-scheme-definitions') }) },
)

const KNOWN_PATHS: fc.Arbitrary<Segment[]> = oneof(
  fc.constantFrom<Segment[]>(
    ['gift-cards', 'activations'],
    ['gift-cards', 'balances'],
    ['gift-cards'],
    ['roles'],
    ['buyers'],
    ['buyers', 'gift-cards'],
    ['webhook-subscriptions'],
    ['payment-methods'],
    ['buyers', 'payment-methods'],
    ['payment-services'],
    ['payment-service-definitions'],
    ['payment-options'],
    ['card-scheme-definitions'],
    ['merchant-accounts'],
    ['api-key-pairs'],
  ),
  idSegment('paymentService').map((id) => ['payment-services', id]),
  idSegment('apiKeyPair').map((id) => ['api-key-pairs', id]),
  idSegment('paymentMethod').map((id) => ['payment-methods', id]),
  idSegment('paymentMethod').map((id) => ['payment-methods', id, 'network-tokens']),
  idSegment('buyer').map((id) => ['buyers', id]),
  shippingBuyer.map((id) => ['buyers', id, 'shipping-details']),
  fc.tuple(shippingBuyer, idSegment('shippingDetails')).map(([b, id]) => ['buyers', b, 'shipping-details', id]),
  idSegment('subscription').map((id) => ['webhook-subscriptions', id]),
  idSegment('giftCard').map((id) => ['gift-cards', id]),
  idSegment('subscription').map((id) => ['webhook-subscriptions', id, 'rotate-secret']),
  idSegment('subscription').map((id) => ['webhook-subscriptions', id, 'deliveries']),
  deliverySegments,
  fc.constant<Segment[]>(['checkout', 'sessions']),
  idSegment('session').map((id) => ['checkout', 'sessions', id]),
  idSegment('session').map((id) => ['checkout', 'sessions', id, 'fields']),
)
const ANY_METHOD = fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE')

/**
 * Well-formed requests (administrator token, JSON, valid shapes) whose free text is odd but in
 * range: these reach storage, where NUL, lone surrogates, `$` and `.` have their own meaning.
 */
const oddText = (max: number) => oneof({ weight: 3, arbitrary: inRange(max) }, { weight: 1, arbitrary: word(1, 12) })
const storedText = (family: string, path: Segment[], tree: fc.Arbitrary<Obj>): fc.Arbitrary<FuzzRequest> =>
  fc.tuple(tree, fc.constantFrom<readonly string[]>([], ['acme'])).map(([t, merchant]) => ({
    family,
    method: 'POST',
    path,
    trailingSlash: false,
    query: [],
    auth: { kind: 'bearer', token: 'admin', scheme: 'Bearer' },
    merchant,
    contentType: ['application/json'],
    headers: [],
    headerCase: 'lower',
    body: { tree: t, escape: 'plain', spaced: false, wrap: { k: 'none' }, bytes: [], chunked: false },
  }))
const storedOddText: fc.Arbitrary<FuzzRequest> = oneof(
  storedText(
    'add_buyer (odd text)',
    ['buyers'],
    obj({
      display_name: opt(oddText(200), 7),
      external_identifier: opt(oddText(200), 7),
      account_number: opt(oddText(200), 3),
      billing_details: opt(
        obj({
          first_name: opt(oddText(255)),
          last_name: opt(oddText(255)),
          address: opt(obj({ city: opt(oddText(100)), line1: opt(oddText(255)) })),
        }),
        3,
      ),
    }),
  ),
  storedText(
    'create_webhook_subscription (odd text)',
    ['webhook-subscriptions'],
    fc.tuple(word(1, 12), oddText(1000), passwordValue('Zpw'), fc.constantFrom('/h', '/\u00e9', '/a%00b', '/$x.y')).map(
      ([host, username, password, p]) =>
        new Obj([
          ['url', `https://${host.toLowerCase()}.hooks.example${p}`],
          ['active', false],
          [
            'authentication',
            new Obj([
              ['kind', 'basic'],
              ['username', username],
              ['password', password],
            ]),
          ],
        ]),
    ),
  ),
  storedText(
    'activate_gift_card (odd text)',
    ['gift-cards', 'activations'],
    fc
      .tuple(
        cardNumber.filter((n) => n.length >= 16),
        pinDigits,
        oddText(200),
        opt(oddText(200), 3),
      )
      .map(
        ([n, p, ext, buyerExt]) =>
          new Obj([
            ['number', new Secret('card', n)],
            ['pin', new Secret('pin', p)],
            ['store', true],
            ['external_identifier', ext],
            ...(buyerExt === ABSENT ? [] : [['buyer_external_identifier', buyerExt] as const]),
          ]),
      ),
  ),
)

/** Every family, weighted roughly by how much there is to find in it. */
export const fuzzRequest: fc.Arbitrary<FuzzRequest> = oneof(
  {
    weight: 10,
    arbitrary: request({
      family: 'activate_gift_card',
      method: is('POST'),
      path: seg('gift-cards', 'activations'),
      body: body(activation),
      headers: idempotencyKey,
    }),
  },
  {
    weight: 6,
    arbitrary: request({
      family: 'create_gift_card',
      method: is('POST'),
      path: seg('gift-cards'),
      body: body(giftCardCreate),
      headers: idempotencyKey,
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'list_gift_cards',
      method: is('GET'),
      path: seg('gift-cards'),
      query: query([
        param('buyer_id', oneof(ref('buyer'), uuidish, shortNasty)),
        param('buyer_external_identifier', oneof(ref('buyerExternalId'), shortNasty)),
      ]),
    }),
  },
  {
    weight: 5,
    arbitrary: request({
      family: 'list_gift_card_balances',
      method: is('POST'),
      path: seg('gift-cards', 'balances'),
      body: body(balanceRequest),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'list_buyer_gift_cards',
      method: is('GET'),
      path: seg('buyers', 'gift-cards'),
      query: query([
        param('buyer_id', oneof(ref('buyer'), uuidish, shortNasty)),
        param('buyer_external_identifier', oneof(ref('buyerExternalId'), shortNasty)),
        param('sort_by', oneof(fc.constantFrom('last_used_at', 'usage_count', 'cit_last_used_at', 'cit_usage_count'), shortNasty)),
        param('order_by', oneof(fc.constantFrom('asc', 'desc'), shortNasty)),
      ]),
    }),
  },
  { weight: 2, arbitrary: request({ family: 'get_gift_card', method: is('GET'), path: seg('gift-cards', idSegment('giftCard')) }) },
  { weight: 2, arbitrary: request({ family: 'delete_gift_card', method: is('DELETE'), path: seg('gift-cards', idSegment('giftCard')) }) },
  {
    weight: 5,
    arbitrary: request({
      family: 'create_payment_method',
      method: is('POST'),
      path: seg('payment-methods'),
      body: body(paymentMethodCreate),
      headers: idempotencyKey,
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'list_payment_methods',
      method: is('GET'),
      path: seg('payment-methods'),
      query: query([
        param('buyer_id', oneof(ref('buyer'), uuidish, shortNasty)),
        param('buyer_external_identifier', oneof(ref('buyerExternalId'), shortNasty)),
        param('status', methodStatus),
        param(
          'external_identifier',
          oneof(
            externalId.filter((x) => x.length < 100),
            shortNasty,
          ),
        ),
      ]),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'list_buyer_payment_methods',
      method: is('GET'),
      path: seg('buyers', 'payment-methods'),
      query: query([
        param('buyer_id', oneof(ref('buyer'), uuidish, shortNasty)),
        param('buyer_external_identifier', oneof(ref('buyerExternalId'), shortNasty)),
        param('sort_by', oneof(fc.constantFrom('last_used_at', 'usage_count', 'LAST_USED_AT'), shortNasty)),
        param('order_by', oneof(fc.constantFrom('asc', 'desc', 'ASC'), shortNasty)),
        param('country', oneof(fc.constantFrom('US', 'GB', 'gb', 'GBR'), shortNasty)),
        param('currency', oneof(fc.constantFrom('USD', 'EUR', 'usd', 'XYZ'), shortNasty)),
      ]),
    }),
  },
  {
    weight: 2,
    arbitrary: request({ family: 'get_payment_method', method: is('GET'), path: seg('payment-methods', idSegment('paymentMethod')) }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'update_payment_method',
      method: is('PUT'),
      path: seg('payment-methods', idSegment('paymentMethod')),
      body: body(paymentMethodUpdate),
    }),
  },
  {
    weight: 1,
    arbitrary: request({ family: 'delete_payment_method', method: is('DELETE'), path: seg('payment-methods', idSegment('paymentMethod')) }),
  },
  { weight: 4, arbitrary: request({ family: 'add_buyer', method: is('POST'), path: seg('buyers'), body: body(buyerBody) }) },
  { weight: 3, arbitrary: storedOddText },
  {
    weight: 3,
    arbitrary: request({
      family: 'list_buyers',
      method: is('GET'),
      path: seg('buyers'),
      query: query([param('external_identifier', oneof(ref('buyerExternalId'), shortNasty)), param('search', buyerSearch)]),
    }),
  },
  { weight: 2, arbitrary: request({ family: 'get_buyer', method: is('GET'), path: seg('buyers', idSegment('buyer')) }) },
  {
    weight: 3,
    arbitrary: request({ family: 'update_buyer', method: is('PUT'), path: seg('buyers', idSegment('buyer')), body: body(buyerUpdate) }),
  },
  { weight: 1, arbitrary: request({ family: 'delete_buyer', method: is('DELETE'), path: seg('buyers', idSegment('buyer')) }) },
  {
    weight: 2,
    arbitrary: request({
      family: 'create_merchant_account',
      method: is('POST'),
      path: seg('merchant-accounts'),
      body: body(merchantAccountCreate),
    }),
  },
  {
    weight: 1,
    arbitrary: request({ family: 'list_merchant_accounts', method: is('GET'), path: seg('merchant-accounts'), query: query([]) }),
  },
  {
    weight: 1,
    arbitrary: request({ family: 'get_merchant_account', method: is('GET'), path: seg('merchant-accounts', knownAccount) }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'update_merchant_account',
      method: is('PUT'),
      path: seg('merchant-accounts', knownAccount),
      body: body(merchantAccountUpdate),
    }),
  },
  {
    weight: 2,
    arbitrary: request({ family: 'create_api_key_pair', method: is('POST'), path: seg('api-key-pairs'), body: body(apiKeyPairCreate) }),
  },
  { weight: 1, arbitrary: request({ family: 'list_api_key_pairs', method: is('GET'), path: seg('api-key-pairs'), query: query([]) }) },
  { weight: 1, arbitrary: request({ family: 'get_api_key_pair', method: is('GET'), path: seg('api-key-pairs', idSegment('apiKeyPair')) }) },
  {
    weight: 1,
    arbitrary: request({
      family: 'update_api_key_pair',
      method: is('PUT'),
      path: seg('api-key-pairs', idSegment('apiKeyPair')),
      body: body(apiKeyPairUpdate),
    }),
  },
  {
    weight: 1,
    arbitrary: request({ family: 'delete_api_key_pair', method: is('DELETE'), path: seg('api-key-pairs', idSegment('apiKeyPair')) }),
  },
  {
    weight: 3,
    arbitrary: request({
      family: 'add_buyer_shipping_details',
      method: is('POST'),
      path: seg('buyers', shippingBuyer, 'shipping-details'),
      body: body(shippingBody),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'list_buyer_shipping_details',
      method: is('GET'),
      path: seg('buyers', shippingBuyer, 'shipping-details'),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'get_buyer_shipping_details',
      method: is('GET'),
      path: seg('buyers', shippingBuyer, 'shipping-details', idSegment('shippingDetails')),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'update_buyer_shipping_details',
      method: is('PUT'),
      path: seg('buyers', shippingBuyer, 'shipping-details', idSegment('shippingDetails')),
      body: body(shippingBody),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'delete_buyer_shipping_details',
      method: is('DELETE'),
      path: seg('buyers', shippingBuyer, 'shipping-details', idSegment('shippingDetails')),
    }),
  },
  { weight: 2, arbitrary: request({ family: 'list_roles', method: is('GET'), path: seg('roles'), query: query([]) }) },
  {
    weight: 3,
    arbitrary: request({
      family: 'create_webhook_subscription',
      method: is('POST'),
      path: seg('webhook-subscriptions'),
      body: body(webhookCreate),
    }),
  },
  {
    weight: 2,
    arbitrary: request({ family: 'list_webhook_subscription', method: is('GET'), path: seg('webhook-subscriptions'), query: query([]) }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'read_webhook_subscription',
      method: is('GET'),
      path: seg('webhook-subscriptions', idSegment('subscription')),
    }),
  },
  {
    weight: 3,
    arbitrary: request({
      family: 'update_webhook_subscription',
      method: is('PUT'),
      path: seg('webhook-subscriptions', idSegment('subscription')),
      body: body(webhookUpdate),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'delete_webhook_subscription',
      method: is('DELETE'),
      path: seg('webhook-subscriptions', idSegment('subscription')),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'rotate_webhook_subscription_secret',
      method: is('POST'),
      path: seg('webhook-subscriptions', idSegment('subscription'), 'rotate-secret'),
      body: optionalBody(rotation),
    }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'list_webhook_deliveries',
      method: is('GET'),
      path: seg('webhook-subscriptions', idSegment('subscription'), 'deliveries'),
      query: query([param('status', oneof(fc.constantFrom('pending', 'delivered', 'failed', 'cancelled', 'PENDING', ''), shortNasty))]),
    }),
  },
  { weight: 2, arbitrary: request({ family: 'redeliver_webhook_delivery', method: is('POST'), path: deliverySegments }) },
  {
    weight: 3,
    arbitrary: request({
      family: 'create_checkout_session',
      method: is('POST'),
      path: seg('checkout', 'sessions'),
      body: optionalBody(sessionBody),
    }),
  },
  {
    weight: 2,
    arbitrary: request({ family: 'get_checkout_session', method: is('GET'), path: seg('checkout', 'sessions', idSegment('session')) }),
  },
  {
    weight: 2,
    arbitrary: request({
      family: 'update_checkout_session',
      method: is('PUT'),
      path: seg('checkout', 'sessions', idSegment('session')),
      body: body(sessionBody),
    }),
  },
  {
    weight: 1,
    arbitrary: request({
      family: 'delete_checkout_session',
      method: is('DELETE'),
      path: seg('checkout', 'sessions', idSegment('session')),
    }),
  },
  {
    weight: 5,
    arbitrary: request({
      family: 'update_checkout_session_fields',
      method: fc.constantFrom('PUT', 'POST'),
      path: seg('checkout', 'sessions', idSegment('session'), 'fields'),
      body: body(sessionFields),
      // Secure Fields need no token: mostly none, as a browser sends them.
      auth: oneof(
        { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
        { weight: 1, arbitrary: fc.constant({ kind: 'bearer' as const, token: 'embed' as const, scheme: 'Bearer' }) },
        { weight: 2, arbitrary: authArb },
      ),
    }),
  },
  { weight: 8, arbitrary: paymentServiceRequests },
  { weight: 3, arbitrary: request({ family: 'unknown route', method: ANY_METHOD, path: unknownPath }) },
  {
    weight: 2,
    arbitrary: request({
      family: 'other method',
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'TRACE'),
      path: KNOWN_PATHS,
    }),
  },
  { weight: 1, arbitrary: request({ family: 'HEAD/OPTIONS', method: fc.constantFrom('HEAD', 'OPTIONS'), path: KNOWN_PATHS }) },
  {
    weight: 1,
    arbitrary: request({
      family: 'create_transaction (any body)',
      method: is('POST'),
      path: fc.constantFrom<Segment[]>(['transactions']),
      auth: oneof(authArb, fc.constant({ kind: 'bearer' as const, token: 'embed' as const, scheme: 'Bearer' })),
      body: oneof(fc.constant(null), body(oneof(activation, anyJson, storingPayment))),
    }),
  },
)

// ---------------------------------------------------------------------------------------------
// From a generated request to bytes
// ---------------------------------------------------------------------------------------------

export interface Sendable {
  readonly raw: RawRequest
  /** Every secret the request carries. */
  readonly secrets: Secret[]
  /** The request as the failure report shows it: tokens as `<token:name>`. */
  readonly display: string
}

const cased = (name: string, how: FuzzRequest['headerCase']): string => {
  switch (how) {
    case 'lower':
      return name.toLowerCase()
    case 'upper':
      return name.toUpperCase()
    case 'title':
      return name.replace(/(^|-)([a-z])/g, (_m, d: string, c: string) => d + c.toUpperCase())
    case 'mixed':
      // eslint-disable-next-line @typescript-eslint/no-misused-spread -- header names are ASCII (headerName, the fixed names): each code point is one character
      return [...name].map((c, i) => (i % 2 ? c.toUpperCase() : c.toLowerCase())).join('')
  }
}

const applyBytes = (b: Buffer, ms: readonly ByteMutation[], textOf: () => string): Buffer => {
  let out = b
  for (const m of ms) {
    const at = Math.floor(((m.k === 'insert' || m.k === 'truncate' ? m.at : 0) * out.length) / 1000)
    switch (m.k) {
      case 'insert':
        out = Buffer.concat([out.subarray(0, at), Buffer.from(m.bytes), out.subarray(at)])
        break
      case 'truncate':
        out = out.subarray(0, at)
        break
      case 'bom':
        out = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), out])
        break
      case 'utf16':
        out = Buffer.from(textOf(), 'utf16le')
        break
    }
  }
  return out
}

const show = (s: string, max = 1500): string =>
  JSON.stringify(s.length > max ? `${s.slice(0, max - 200)}…(${s.length} chars in all)…${s.slice(-150)}` : s)

/** Builds the bytes of a generated request; `tokens` are the minted tokens by name. */
export const toSendable = (q: FuzzRequest, r: Resolver, tokenOf: (name: TokenName) => string): Sendable => {
  const secrets: Secret[] = []
  const segment = (s: Segment): string => {
    if (s instanceof Secret) {
      secrets.push(s)
      return s.value
    }
    if (s instanceof Ref) {
      const v = r.resolve(s)
      if (v instanceof Secret) {
        secrets.push(v)
        return encodeComponent(v.value)
      }
      return encodeComponent(v)
    }
    return s
  }
  let target = `/${q.path.map(segment).join('/')}${q.trailingSlash ? '/' : ''}`
  const qs = q.query.map((p) => {
    if ('raw' in p) return p.raw
    const v = p.value instanceof Ref ? r.resolve(p.value) : p.value
    return `${encodeComponent(p.name)}=${encodeComponent(v instanceof Secret ? v.value : v)}`
  })
  if (qs.length > 0) target += `?${qs.join('&')}`

  const headers: [string, string][] = []
  const labels: [string, string][] = []
  const bearer = (name: TokenName, scheme: string) => {
    const token = tokenOf(name)
    labels.push([token, `<token:${name}>`])
    return `${scheme} ${token}`
  }
  const h = (name: string, value: string) => headers.push([cased(name, q.headerCase), value])
  switch (q.auth.kind) {
    case 'bearer':
      h('Authorization', bearer(q.auth.token, q.auth.scheme))
      break
    case 'twice':
      h('Authorization', bearer(q.auth.first, 'Bearer'))
      h('Authorization', bearer(q.auth.second, 'Bearer'))
      break
    case 'raw':
      h('Authorization', headerSafe(q.auth.value))
      break
    case 'none':
      break
  }
  for (const m of q.merchant) h('X-Orka-Merchant-Account-Id', headerSafe(m))
  for (const t of q.contentType) h('Content-Type', headerSafe(t))
  for (const [n, v] of q.headers) h(n, headerSafe(v))

  let payload: Buffer | undefined
  let bodyShown = ''
  if (q.body !== null) {
    const b = q.body
    let text: string
    if (b.wrap.k === 'replace') text = b.wrap.raw
    else {
      const s = toJsonText(b.tree, b.escape, b.spaced, r)
      secrets.push(...s.secrets)
      text = s.text
      switch (b.wrap.k) {
        case 'array':
          text = `[${text}]`
          break
        case 'proto':
          text = `{"__proto__":${text}}`
          break
        case 'nest':
          text =
            b.wrap.style === 'array'
              ? `${'['.repeat(b.wrap.depth)}${text}${']'.repeat(b.wrap.depth)}`
              : `${'{"a":'.repeat(b.wrap.depth)}${text}${'}'.repeat(b.wrap.depth)}`
          break
        case 'whitespace':
          text = `${' '.repeat(Math.max(0, b.wrap.size - text.length))}${text}`
          break
        case 'padding':
          text =
            text.startsWith('{') && text !== '{}'
              ? `{"padding":"${'x'.repeat(b.wrap.size)}",${text.slice(1)}`
              : `{"padding":"${'x'.repeat(b.wrap.size)}","value":${text}}`
          break
        case 'none':
          break
      }
    }
    const finalText = text
    payload = applyBytes(Buffer.from(text, 'utf8'), b.bytes, () => finalText)
    bodyShown = `\n  body (${payload.length} bytes${b.chunked ? ', chunked' : ''}${b.bytes.length > 0 ? `, bytes mutated: ${JSON.stringify(b.bytes)}` : ''}): ${show(b.bytes.length > 0 ? payload.toString('latin1') : finalText)}`
  }
  const raw: RawRequest = {
    method: q.method,
    target,
    headers,
    ...(payload === undefined ? {} : { body: payload, chunked: q.body?.chunked ?? false }),
  }
  const hide = (s: string) => labels.reduce((acc, [t, l]) => acc.split(t).join(l), s)
  const display =
    [
      `${q.method} ${show(target, 600)}`,
      // Header values are bytes: shown decoded as UTF-8, as they were generated.
      ...headers.map(([n, v]) => `  ${n}: ${show(hide(Buffer.from(v, 'latin1').toString('utf8')), 300)}`),
    ].join('\n') + bodyShown
  return { raw, secrets, display }
}
