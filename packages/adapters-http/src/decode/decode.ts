import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { IncomingMessage } from 'node:http'
import { NOT_UNICODE } from '@orka/domain'
import { InputRoot, Violation, violationsOfErrors } from './violations'
import { messageOf } from './messages'

export type Decoded<A> = E.Either<readonly Violation[], A>

/** Decodes with a domain codec and explains failures in the 422 vocabulary, rooted at `root`. */
export const decodeWith =
  <C extends t.Mixed>(codec: C, root: InputRoot) =>
  (u: unknown): Decoded<t.TypeOf<C>> =>
    E.mapLeft((errors: t.Errors): readonly Violation[] => violationsOfErrors(root, errors))(codec.decode(u))

/** Query parameters arrive as strings: integer ones are parsed here, their limits stay in the codec. */
export const integerParam = (v: string | string[] | undefined): unknown =>
  typeof v === 'string' && /^[+-]?\d{1,15}$/.test(v) ? Number(v) : v

/** `true` and `false` as booleans; anything else is left for the codec to refuse. */
export const booleanParam = (v: string | string[] | undefined): unknown => (v === 'true' ? true : v === 'false' ? false : v)

/** A list parameter: repeated (`?status=a&status=b`), comma-separated (`?status=a,b`) or both, as one array for its codec. */
export const listParam = (raw: string | string[] | undefined): unknown =>
  raw === undefined ? undefined : (Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(','))

/** Violations of every part of a request together, or all the parts' values. */
export const violationsOf = (...parts: readonly Decoded<unknown>[]): readonly Violation[] =>
  parts.flatMap((p) => (E.isLeft(p) ? p.left : []))

/** `+` as a space, and a `%` not followed by two hex digits kept literal, as URLSearchParams reads them. */
const escapeStray = (raw: string): string => raw.replace(/\+/g, ' ').replace(/%(?![0-9A-Fa-f]{2})/g, '%25')

const lenientUnescape = (raw: string): string => {
  try {
    return decodeURIComponent(escapeStray(raw))
  } catch {
    return raw
  }
}

/**
 * Whether a raw query value is text once percent-decoded. Koa (URLSearchParams) turns bytes
 * that are not UTF-8 (`%FF`, an encoded surrogate `%ED%A0%80`, an overlong `%C0%80`) silently
 * into U+FFFD, so two different values would read as one. `decodeURIComponent` is a strict
 * UTF-8 decoder; a `%` not followed by two hex digits stays literal, as Koa keeps it.
 */
const isText = (raw: string): boolean => {
  if (!raw.includes('%')) return true
  try {
    decodeURIComponent(escapeStray(raw))
    return true
  } catch {
    return false
  }
}

/** The names of the query parameters that have a value (any of their occurrences) that is not UTF-8 text. */
export const illFormedQueryNames = (querystring: string): ReadonlySet<string> => {
  const bad = new Set<string>()
  if (querystring === '') return bad
  for (const pair of querystring.split('&')) {
    const eq = pair.indexOf('=')
    const rawName = eq < 0 ? pair : pair.slice(0, eq)
    const rawValue = eq < 0 ? '' : pair.slice(eq + 1)
    if (!isText(rawValue)) bad.add(lenientUnescape(rawName))
  }
  return bad
}

type Query = Record<string, string | string[] | undefined>

/**
 * Decodes the query parameters a route reads (`pick` names them after the parameters) with
 * `codec`. A parameter whose value is not UTF-8 once percent-decoded is a 422 `string_unicode`
 * on `['query', name]`, instead of the U+FFFD Koa would make of it; NUL and lone surrogates
 * are refused by the domain's string codecs.
 */
export const decodeQuery = <C extends t.Mixed>(
  codec: C,
  ctx: { readonly query: Query; readonly querystring: string },
  pick: (q: Query) => Record<string, unknown>,
): Decoded<t.TypeOf<C>> => {
  const picked = pick(ctx.query)
  const bad = illFormedQueryNames(ctx.querystring)
  const unicode: Violation[] = Object.keys(picked)
    .filter((k) => bad.has(k))
    .map((k) => ({ loc: ['query', k], msg: messageOf(NOT_UNICODE), type: NOT_UNICODE.type }))
  const decoded = decodeWith(codec, 'query')(Object.fromEntries(Object.entries(picked).filter(([k]) => !bad.has(k))))
  return unicode.length === 0 ? decoded : E.left([...unicode, ...(E.isLeft(decoded) ? decoded.left : [])])
}

/**
 * How many header lines named `name` (lower case) the client sent. Node joins repeated custom
 * headers with `, ` in `req.headers` (and keeps only the first of some), so only the raw list
 * tells.
 */
export const headerLines = (req: Pick<IncomingMessage, 'rawHeaders'>, name: string): number => {
  let n = 0
  const raw = req.rawHeaders
  for (let i = 0; i < raw.length; i += 2) if (raw[i]?.toLowerCase() === name) n++
  return n
}

/** A header that was sent more than once: which value would a proxy, a log or another parser have used? */
export const REPEATED_HEADER = { msg: 'Value error, the header must not be sent more than once', type: 'value_error' } as const

/**
 * The value of a header the API reads, to decode with a codec: `undefined` when absent, a
 * 422 on `['header', name]` when it was sent more than once.
 */
export const singleHeader = (req: Pick<IncomingMessage, 'rawHeaders' | 'headers'>, name: string): Decoded<string | undefined> => {
  const lower = name.toLowerCase()
  if (headerLines(req, lower) > 1) return E.left([{ loc: ['header', lower], ...REPEATED_HEADER }])
  const v = req.headers[lower]
  return E.right(Array.isArray(v) ? v[0] : v)
}
