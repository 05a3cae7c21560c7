import * as t from 'io-ts'
import * as E from 'fp-ts/Either'

/**
 * Kinds of fault a codec finds in an input, named as in the API's 422 vocabulary
 * (`string_too_short`, `extra_forbidden`, ...).
 */
export type FaultType =
  | 'missing'
  | 'extra_forbidden'
  | 'model_type'
  | 'list_type'
  | 'too_long'
  | 'string_type'
  | 'string_invalid_characters'
  | 'string_unicode'
  | 'string_too_short'
  | 'string_too_long'
  | 'string_pattern_mismatch'
  | 'uuid_parsing'
  | 'int_type'
  | 'float_type'
  | 'greater_than_equal'
  | 'less_than_equal'
  | 'bool_type'
  | 'literal_error'
  | 'enum'
  | 'value_error'

/**
 * Why an input fails a codec, machine-readably: the kind of fault and its parameters. The
 * codecs are the single source of truth: the HTTP layer decodes with them and words their
 * explanations (adapters-http `src/decode/messages.ts`), nothing restates a limit.
 */
export interface Explanation {
  readonly type: FaultType
  /** The fault's parameters, as the API shows them (`{ min_length: 2 }`, `{ expected: 'a, b' }`). */
  readonly ctx?: Readonly<Record<string, string | number>>
  /**
   * A broken cross-field rule (`value_error`): the rule itself, a statement of the domain
   * ("`pin` is required when `store` is true").
   */
  readonly rule?: string
  /** `enum`: the values admitted, in order. */
  readonly values?: readonly string[]
  /** `value_error` that breaks no rule: the name of the codec the input does not satisfy. */
  readonly codec?: string
}

/** A leaf codec whose failures explain themselves. */
export class Checked<A> extends t.Type<A, A> {
  readonly _checked = true
  constructor(
    name: string,
    is: (u: unknown) => u is A,
    readonly explain: (u: unknown) => Explanation | undefined,
    /** Constraints for documentation (JSON Schema keywords). */
    readonly schema: Record<string, unknown>,
    /** Maps an accepted input to its canonical form (e.g. a UUID to lower case); identity by default. */
    normalize: (a: A) => A = (a) => a,
  ) {
    super(
      name,
      is,
      (u, c) => {
        const why = explain(u)
        return why === undefined ? t.success(normalize(u as A)) : t.failure(u, c, why.type)
      },
      t.identity,
    )
  }
}

const isString = (u: unknown): u is string => typeof u === 'string'
const notString: Explanation = { type: 'string_type' }

/**
 * Characters no string a client sends may hold, whatever its other constraints: every
 * `boundedString` (so every string field of a request codec, and `inputStr`) refuses them, so
 * that no storage ever sees them. (`str` alone accepts them: it describes what we store.)
 *
 * - U+0000 (NUL): some storages cannot store it (a 500), others truncate at it. Explained as
 *   `string_invalid_characters`.
 * - A lone UTF-16 surrogate (a high surrogate U+D800-U+DBFF not followed by a low one, or a
 *   low surrogate U+DC00-U+DFFF not preceded by a high one), as JSON's `\ud800` escapes
 *   produce: it is not a Unicode character, and a storage's UTF-8 encoder silently replaces it
 *   with U+FFFD, so two different inputs would become one value (a false duplicate). Explained
 *   as `string_unicode` (also used for query values that are not UTF-8 once percent-decoded).
 *
 * Surrogate pairs (e.g. an emoji) are well-formed and accepted. Neither fault echoes the input:
 * it is what the client got wrong, and may not survive a round trip through a JSON parser.
 */
export const INVALID_CHARACTER_TYPES: ReadonlySet<string> = new Set(['string_invalid_characters', 'string_unicode'])
export const NUL_CHARACTER: Explanation = { type: 'string_invalid_characters' }
export const NOT_UNICODE: Explanation = { type: 'string_unicode' }
// Without the `u` flag a regular expression sees UTF-16 code units, so lone surrogates are visible.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
/** Why `s` holds a character no accepted string may hold, or undefined when it holds none. */
export const explainCharacters = (s: string): Explanation | undefined =>
  s.includes('\u0000') ? NUL_CHARACTER : LONE_SURROGATE.test(s) ? NOT_UNICODE : undefined

export interface StringConstraints {
  /** Length bounds, in Unicode code points (an emoji is one, as JSON Schema counts it). */
  readonly min?: number
  readonly max?: number
  readonly pattern?: RegExp
  readonly format?: string
  /**
   * Accept any JavaScript string, NUL and lone surrogates included. Only for text the service
   * itself writes and reads back (stored records, keys it joins with U+0000): never for what a
   * client sends. See `str`.
   */
  readonly anyCharacters?: boolean
}

/**
 * How many Unicode code points `s` holds, as JSON Schema's `minLength` and `maxLength` count
 * (a lone surrogate counts as one): its UTF-16 code units less its surrogate pairs.
 */
export const codePointLength = (s: string): number => {
  let n = s.length
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1)
      if (next >= 0xdc00 && next <= 0xdfff) {
        n--
        i++
      }
    }
  }
  return n
}

// A string has between half its code units and all of them as code points: only a length in
// between needs counting, so a string within its bound in code units (the common case) never is.
const shorterThan = (s: string, min: number) => s.length < min || (s.length < 2 * min && codePointLength(s) < min)
const longerThan = (s: string, max: number) => s.length > max && (s.length > 2 * max || codePointLength(s) > max)

/** A string of bounded length (in code points, as the published JSON Schema counts) and pattern. */
export const boundedString = (name: string, k: StringConstraints): Checked<string> => {
  const explain = (u: unknown): Explanation | undefined => {
    if (!isString(u)) return notString
    const chars = k.anyCharacters === true ? undefined : explainCharacters(u)
    if (chars !== undefined) return chars
    if (k.min !== undefined && shorterThan(u, k.min)) return { type: 'string_too_short', ctx: { min_length: k.min } }
    if (k.max !== undefined && longerThan(u, k.max)) return { type: 'string_too_long', ctx: { max_length: k.max } }
    if (k.pattern !== undefined && !k.pattern.test(u)) return { type: 'string_pattern_mismatch', ctx: { pattern: k.pattern.source } }
    return undefined
  }
  return new Checked(name, (u): u is string => explain(u) === undefined, explain, {
    type: 'string',
    ...(k.min !== undefined ? { minLength: k.min } : {}),
    ...(k.max !== undefined ? { maxLength: k.max } : {}),
    ...(k.pattern !== undefined ? { pattern: k.pattern.source } : {}),
    ...(k.format !== undefined ? { format: k.format } : {}),
  })
}

/**
 * Any string, as before: NUL and lone surrogates included. It describes records the service
 * writes itself (an idempotency record's key joins its parts with U+0000), so it must not
 * refuse them. Request codecs use `boundedString` (or `inputStr`), which refuse both.
 */
export const str = boundedString('string', { anyCharacters: true })
/** Any string a client may send: no length limit, but no NUL and no lone surrogate. */
export const inputStr = boundedString('string', {})

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const uuid = new Checked<string>(
  'uuid',
  (u): u is string => isString(u) && UUID_RE.test(u),
  (u) => (!isString(u) ? notString : UUID_RE.test(u) ? undefined : { type: 'uuid_parsing' }),
  { type: 'string', format: 'uuid' },
)
/**
 * A UUID as an identifier to look up: accepted in either case, decoded to lower case (the form
 * every stored id has), so an upper-case id finds the resource. `uuid` keeps its input as is.
 */
export const canonicalUuid = new Checked<string>('uuid', uuid.is, uuid.explain, uuid.schema, (s) => s.toLowerCase())

export const intRange = (name: string, min?: number, max?: number): Checked<number> => {
  const explain = (u: unknown): Explanation | undefined => {
    if (typeof u !== 'number' || !Number.isSafeInteger(u)) return { type: 'int_type' }
    if (min !== undefined && u < min) return { type: 'greater_than_equal', ctx: { ge: min } }
    if (max !== undefined && u > max) return { type: 'less_than_equal', ctx: { le: max } }
    return undefined
  }
  return new Checked(name, (u): u is number => explain(u) === undefined, explain, {
    type: 'integer',
    ...(min !== undefined ? { minimum: min } : {}),
    ...(max !== undefined ? { maximum: max } : {}),
  })
}

export const bool = new Checked<boolean>(
  'boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u) => (typeof u === 'boolean' ? undefined : { type: 'bool_type' }),
  { type: 'boolean' },
)

export const literal = <L extends string>(value: L): Checked<L> =>
  new Checked<L>(
    value,
    (u): u is L => u === value,
    (u) => (u === value ? undefined : { type: 'literal_error', ctx: { expected: `'${value}'` } }),
    { type: 'string', const: value },
  )

export const oneOf = <L extends string>(name: string, values: readonly L[]): Checked<L> => {
  const set = new Set<string>(values)
  return new Checked<L>(
    name,
    (u): u is L => isString(u) && set.has(u),
    (u) => (isString(u) && set.has(u) ? undefined : { type: 'enum', ctx: { expected: values.join(', ') }, values }),
    { type: 'string', enum: [...values] },
  )
}

/**
 * The context with its last entry's codec replaced by `type`: a wrapper hands its own entry to
 * the codec it validates through, so that failures explain themselves as that codec.
 */
const standingAs = (c: t.Context, type: t.Decoder<unknown, unknown>): t.Context => {
  const last = c[c.length - 1]
  return last === undefined ? [{ key: '', type }] : [...c.slice(0, -1), { ...last, type }]
}

/** `T | null` whose failures are the inner codec's (a union would report both branches). */
export class Nullable<C extends t.Mixed> extends t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null> {
  readonly _nullable = true
  constructor(readonly inner: C) {
    super(
      `${inner.name} | null`,
      (u): u is t.TypeOf<C> | null => u === null || inner.is(u),
      // The inner codec takes this one's place in the context, so failures explain themselves as it.
      (u, c) => (u === null ? t.success(null) : inner.validate(u, standingAs(c, inner))),
      (a) => (a === null ? null : (inner.encode(a) as t.OutputOf<C>)),
    )
  }
}
export const nullable = <C extends t.Mixed>(inner: C): Nullable<C> => new Nullable(inner)

type Props = Record<string, t.Mixed>
type ClosedType<R extends Props, O extends Props> = t.TypeOf<t.TypeC<R>> & Partial<t.TypeOf<t.TypeC<O>>>
type ClosedOutput<R extends Props, O extends Props> = t.OutputOf<t.TypeC<R>> & Partial<t.OutputOf<t.TypeC<O>>>

/** Marks the leaf that reports an unknown property. */
export const forbiddenExtra = new Checked<never>('never', t.never.is, () => ({ type: 'extra_forbidden' }), {})
const notObject: Explanation = { type: 'model_type' }
export const objectType = new Checked<Record<string, unknown>>(
  'object',
  (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
  (u) => (typeof u === 'object' && u !== null && !Array.isArray(u) ? undefined : notObject),
  { type: 'object' },
)

/**
 * An object that permits no properties but those listed (`additionalProperties: false`).
 * Decoding rejects unknown keys; encoding keeps only known keys, so a response encoded
 * through it is a whitelist. Properties are validated one by one so that every failure's
 * context is exactly the path to the faulty property.
 */
export class Closed<R extends Props, O extends Props> extends t.Type<ClosedType<R, O>, ClosedOutput<R, O>> {
  readonly _closed = true
  constructor(
    name: string,
    readonly required: R,
    readonly optional: O,
  ) {
    // `type` leads, as in the spec's resource tables, so responses read naturally.
    const all: [string, t.Mixed, boolean][] = [
      ...Object.entries(required).map(([k, v]): [string, t.Mixed, boolean] => [k, v, true]),
      ...Object.entries(optional).map(([k, v]): [string, t.Mixed, boolean] => [k, v, false]),
    ].sort(([a], [b]) => Number(b === 'type') - Number(a === 'type'))
    const known = new Set(all.map(([k]) => k))
    super(
      name,
      (u): u is ClosedType<R, O> =>
        objectType.is(u) &&
        Object.keys(u).every((k) => known.has(k)) &&
        all.every(([k, codec, req]) => (u[k] === undefined ? !req : codec.is(u[k]))),
      (u, c) => {
        if (!objectType.is(u)) return t.failure(u, standingAs(c, objectType), notObject.type)
        const errors: t.ValidationError[] = Object.keys(u)
          .filter((k) => !known.has(k))
          .map((k) => ({
            value: u[k],
            context: [...c, { key: k, type: forbiddenExtra, actual: u[k] }],
            message: 'extra_forbidden',
          }))
        const out: Record<string, unknown> = {}
        for (const [k, codec, req] of all) {
          const v = u[k]
          if (v === undefined && !req) continue
          const r = codec.validate(v, [...c, { key: k, type: codec, actual: v }])
          if (E.isLeft(r)) errors.push(...r.left)
          else out[k] = r.right
        }
        return errors.length > 0 ? t.failures(errors) : t.success(out as ClosedType<R, O>)
      },
      (a) => {
        const out: Record<string, unknown> = {}
        const src = a as Record<string, unknown>
        for (const [k, codec] of all) if (src[k] !== undefined) out[k] = codec.encode(src[k])
        return out as ClosedOutput<R, O>
      },
    )
  }
}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no optional properties: `{}` adds nothing to the decoded type
export const closed = <R extends Props, O extends Props = {}>(name: string, required: R, optional: O = {} as O) =>
  new Closed(name, required, optional)

/**
 * Cross-field rule: a pure check returning the faulty fields and the rule they break (`msg`, a
 * statement of the domain), explained as `value_error`s.
 */
export interface RuleViolation {
  readonly path: readonly string[]
  readonly msg: string
}
/**
 * The leaf a broken rule reports on. Its explanation stands even when the field is absent:
 * "`amount` is required when `currency` is given" says more than "Field required" for a
 * field the schema itself leaves optional.
 */
export class RuleLeaf extends Checked<never> {
  constructor(rule: string) {
    super('rule', t.never.is, () => ({ type: 'value_error', rule }), {})
  }
}
export class Refined<C extends t.Mixed> extends t.Type<t.TypeOf<C>, t.OutputOf<C>> {
  constructor(
    readonly inner: C,
    readonly rules: readonly { readonly description: string; readonly check: (a: t.TypeOf<C>) => RuleViolation | undefined }[],
  ) {
    super(
      inner.name,
      inner.is,
      (u, c) =>
        E.chain((a: t.TypeOf<C>) => {
          const broken = rules.flatMap((r) => r.check(a) ?? [])
          if (broken.length === 0) return t.success(a)
          return t.failures(
            broken.map((v) => {
              const value = v.path.reduce<unknown>((o, k) => (o as Record<string, unknown> | undefined)?.[k], a)
              const leaf = new RuleLeaf(v.msg)
              return { value, context: [...c, ...v.path.map((key) => ({ key, type: leaf, actual: value }))], message: v.msg }
            }),
          )
        })(inner.validate(u, c)),
      inner.encode,
    )
  }
}

/**
 * A union told apart by one string property (`kind`): decoding picks the branch by that
 * property, so a failure reports the chosen branch's faults only. `tag` and `branches` stay
 * readable so that documentation is derived from the codec, not restated.
 */
export class Tagged<K extends string, M extends Record<string, t.Mixed>> extends t.Type<t.TypeOf<M[keyof M]>, t.OutputOf<M[keyof M]>> {
  readonly _tagged = true
  constructor(
    name: string,
    readonly tag: K,
    readonly branches: M,
  ) {
    const tags = oneOf(`${name}.${tag}`, Object.keys(branches) as (keyof M & string)[])
    const byTag = new Map<unknown, t.Mixed>(Object.entries(branches))
    /** The branch for a tag `tags` admits (or an encoded value carries), which `branches` always holds. */
    const branch = (k: unknown): t.Mixed => {
      const b = byTag.get(k)
      if (b === undefined) throw new Error(`${name}: no branch for ${tag} ${String(k)}`)
      return b
    }
    super(
      name,
      (u): u is t.TypeOf<M[keyof M]> => objectType.is(u) && tags.is(u[tag]) && branch(u[tag]).is(u),
      (u, c) => {
        if (!objectType.is(u)) return t.failure(u, standingAs(c, objectType), notObject.type)
        const k = u[tag]
        if (!tags.is(k)) return t.failure(k, [...c, { key: tag, type: tags, actual: k }])
        return branch(k).validate(u, c)
      },
      (a) => branch((a as Record<string, unknown>)[tag]).encode(a) as t.OutputOf<M[keyof M]>,
    )
  }
}
export const tagged = <K extends string, M extends Record<string, t.Mixed>>(name: string, tag: K, branches: M) =>
  new Tagged(name, tag, branches)

/**
 * A list of at most `max` items: a longer one is a single `too_long` fault on the list, its
 * items unchecked (a client sending a thousand items learns the bound, not a thousand faults).
 */
export class BoundedList<C extends t.Mixed> extends t.ArrayType<C, t.TypeOf<C>[], t.OutputOf<C>[]> {
  readonly _bounded = true
  constructor(
    item: C,
    readonly max: number,
  ) {
    const list = t.array(item)
    super(
      list.name,
      (u): u is t.TypeOf<C>[] => list.is(u) && u.length <= max,
      (u, c) => {
        if (!Array.isArray(u) || u.length <= max) return list.validate(u, c)
        const actual = u.length
        const tooLong = new Checked<never>(
          'list',
          t.never.is,
          () => ({ type: 'too_long', ctx: { field_type: 'List', max_length: max, actual_length: actual } }),
          {},
        )
        return t.failure(u, standingAs(c, tooLong))
      },
      list.encode,
      item,
    )
  }
}
export const boundedList = <C extends t.Mixed>(item: C, max: number) => new BoundedList(item, max)

/**
 * A union of two objects told apart by whether the input has `key` (`{number, pin}` or `{id}`):
 * decoding picks the branch, so a failure reports that branch's faults only. Documented as
 * `anyOf` the two, in this order.
 */
export class ByKey<A extends t.Mixed, B extends t.Mixed> extends t.Type<t.TypeOf<A> | t.TypeOf<B>, t.OutputOf<A> | t.OutputOf<B>> {
  readonly _byKey = true
  constructor(
    name: string,
    readonly withoutKey: A,
    readonly key: string,
    readonly withKey: B,
  ) {
    const branch = (u: object): t.Mixed => (Object.hasOwn(u, key) ? withKey : withoutKey)
    super(
      name,
      (u): u is t.TypeOf<A> | t.TypeOf<B> => objectType.is(u) && branch(u).is(u),
      (u, c) => (objectType.is(u) ? branch(u).validate(u, c) : t.failure(u, standingAs(c, objectType), notObject.type)),
      (a) => branch(a).encode(a) as t.OutputOf<A> | t.OutputOf<B>,
    )
  }
}
