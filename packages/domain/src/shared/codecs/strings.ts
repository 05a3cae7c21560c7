import { Checked, Explanation, isString, notString } from './explain'

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

const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):(\d{2}))$/i
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate()
/** Whether `s` is an RFC 3339 date-time: a real day and time of day (no leap second), and a time zone (`Z` or an offset). */
const isRfc3339 = (s: string): boolean => {
  const m = RFC_3339.exec(s)
  if (m === null) return false
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number]
  const [offsetHours, offsetMinutes] = [Number(m[9] ?? 0), Number(m[10] ?? 0)]
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysIn(year, month) &&
    hour <= 23 &&
    minute <= 59 &&
    second <= 59 &&
    offsetHours <= 23 &&
    offsetMinutes <= 59 &&
    !Number.isNaN(Date.parse(s.toUpperCase()))
  )
}

/**
 * An instant a client names (a filter's bound): an RFC 3339 date-time with its time zone, such
 * as `2026-01-31T09:30:00Z` or `2026-01-31T10:30:00+01:00`. A bare date, a local time without
 * a zone, or a day or time that does not exist (`2026-02-30`, `24:00`) is a fault naming `name`.
 * Decoded with `T` and `Z` upper case: one spelling per accepted input.
 */
export const rfc3339DateTime = (name: string): Checked<string> => {
  const explain = (u: unknown): Explanation | undefined => {
    if (!isString(u)) return notString
    return isRfc3339(u)
      ? undefined
      : { type: 'value_error', rule: `${name} must be an RFC 3339 date-time with a time zone, such as 2026-01-31T09:30:00Z` }
  }
  return new Checked(
    name,
    (u): u is string => explain(u) === undefined,
    explain,
    { type: 'string', format: 'date-time' },
    (s) => s.toUpperCase(),
  )
}
