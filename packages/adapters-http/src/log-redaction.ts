/**
 * Card numbers never reach a log line. A client can put one anywhere: a path, a request id, a
 * header, a body that ends up in an error message. The sources are fixed where they are known
 * (request ids, paths); this is the last line of defence, applied to every string a log line
 * carries.
 *
 * What is masked: a run of at least 12 digits (PANs are 12-19), the digits possibly separated
 * by up to three separator characters (white space, `-`, `.`, `,`, `:`, `_`, `+`, `/`), written
 * plainly, as any Unicode decimal digit, or percent-encoded (`%34`, also encoded again: `%2534`),
 * separators likewise (`%20`, `%2D`...). Each digit becomes `#`, separators stay, so the shape
 * of what was sent is still visible. There is no exemption: about 1 random UUID in 28 has 12
 * digits across its groups (`...-8123-412345556666`) and is masked in part. A false positive
 * costs a log reader a lookup; a card number in a log is a PCI incident.
 */

/** One digit: plain (any script) or percent-encoded, possibly several times (`%34`, `%2534`). */
const DIGIT = String.raw`(?:\p{Nd}|%(?:25)*3[0-9])`
/** One separator: white space, - . , : _ + / or one of these percent-encoded. */
const SEPARATOR = String.raw`(?:[\s.,:_+\/\-]|%(?:25)*(?:2[0BCDEFbcdef]|3[Aa]|5[Ff]|09|0[AaDd]))`
/** In JSON text a control character separator arrives escaped (`\n`, `\u0009`). */
const JSON_SEPARATOR = String.raw`(?:${SEPARATOR}|\\[nrtbf\/]|\\u00[0-9A-Fa-f]{2})`

/** DIGIT and SEPARATOR never start the same way, so matching stays linear. */
const run = (minDigits: number, separator: string): RegExp => new RegExp(`${DIGIT}(?:${separator}{0,3}${DIGIT}){${minDigits - 1},}`, 'gu')

const cache = new Map<string, RegExp>()
const runOf = (minDigits: number, json: boolean): RegExp => {
  const key = `${minDigits}:${json}`
  let r = cache.get(key)
  if (r === undefined) {
    r = run(minDigits, json ? JSON_SEPARATOR : SEPARATOR)
    cache.set(key, r)
  }
  r.lastIndex = 0
  return r
}

/** Separators first, so that the digits of an escape (`\u0009`) are never taken for digits. */
const TOKEN = new RegExp(`(${JSON_SEPARATOR})|${DIGIT}`, 'gu')
const mask = (m: string): string => m.replace(TOKEN, (t, separator: string | undefined) => (separator === undefined ? '#' : t))

/** The fewest digits of a run treated as a card number. */
export const CARD_NUMBER_MIN_DIGITS = 12

/** ASCII without `%`: a digit there is [0-9] and a separator ASCII, so the run needs no Unicode tables (several times faster). */
const ASCII_NO_PERCENT = /^[^%\u0080-\uffff]*$/
const asciiRuns = new Map<number, RegExp>()
const asciiRunOf = (minDigits: number): RegExp => {
  let r = asciiRuns.get(minDigits)
  if (r === undefined) {
    r = new RegExp(`[0-9](?:[\\s.,:_+\\/\\-]{0,3}[0-9]){${minDigits - 1},}`, 'g')
    asciiRuns.set(minDigits, r)
  }
  r.lastIndex = 0
  return r
}
const runFor = (text: string, minDigits: number): RegExp => {
  const n = Math.max(2, Math.floor(minDigits))
  return ASCII_NO_PERCENT.test(text) ? asciiRunOf(n) : runOf(n, false)
}

/** `text` with every run of `minDigits` (default 12) or more digits masked digit by digit. */
export const redactCardNumbers = (text: string, minDigits: number = CARD_NUMBER_MIN_DIGITS): string =>
  text.replace(runFor(text, minDigits), mask)

/** Whether `text` holds a run of `minDigits` (default 12) or more digits, as `redactCardNumbers` sees them. */
export const containsCardNumber = (text: string, minDigits: number = CARD_NUMBER_MIN_DIGITS): boolean => runFor(text, minDigits).test(text)

const MAX_DEPTH = 10

/**
 * A copy of a log record with every string in it (keys included) passed through
 * `redactCardNumbers`; numbers, booleans and null are kept. An `Error` becomes
 * `{ type, message, stack }`. Cycles and depth beyond 10 are cut.
 */
export const redactLogFields = <A>(value: A): A => walk(value, 0, new WeakSet()) as A

const walk = (v: unknown, depth: number, seen: WeakSet<object>): unknown => {
  if (typeof v === 'string') return redactCardNumbers(v)
  if (typeof v !== 'object' || v === null) return v
  if (seen.has(v)) return '[Circular]'
  if (depth >= MAX_DEPTH) return '[Truncated]'
  seen.add(v)
  try {
    if (v instanceof Error) return walk({ type: v.name, message: v.message, stack: v.stack }, depth, seen)
    if (Array.isArray(v)) return v.map((x) => walk(x, depth + 1, seen))
    if (Buffer.isBuffer(v) || ArrayBuffer.isView(v)) return '[Binary]'
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) out[redactCardNumbers(k)] = walk(x, depth + 1, seen)
    return out
  } finally {
    seen.delete(v)
  }
}

/** A JSON string literal, escapes included. */
const JSON_STRING = /"(?:[^"\\]|\\.)*"/g

/** Printable ASCII without `%` and `\\` (and the line's final newline): no escapes, no other scripts. */
const PLAIN_LINE = /^[\x20-\x24\x26-\x5b\x5d-\x7e]*\n?$/

/**
 * Whether a plain line has a run inside a string literal. A run holds no `"`, so it lies wholly
 * inside or outside a literal, and with no `\\` on the line every `"` opens or closes one: an
 * odd count of quotes before the run puts it inside.
 */
const plainLineHasRun = (line: string): boolean => {
  const run = asciiRunOf(CARD_NUMBER_MIN_DIGITS)
  let quotes = 0
  let from = 0
  for (let m = run.exec(line); m !== null; m = run.exec(line)) {
    for (let i = line.indexOf('"', from); i !== -1 && i < m.index; i = line.indexOf('"', i + 1)) quotes++
    if (quotes % 2 === 1) return true
    from = m.index
  }
  return false
}

/**
 * One serialised JSON log line with card numbers masked inside every string literal (numbers,
 * such as pino's epoch-millisecond `time`, are left alone, so the line stays valid JSON). Made
 * for pino's `hooks.streamWrite`, which sees each line exactly as it will be written: message,
 * serialised errors and bindings included. Most lines (an access line) are plain ASCII with no
 * run in a string: those are told apart in one cheap pass and returned as they are.
 */
export const redactJsonLine = (line: string): string =>
  PLAIN_LINE.test(line) && !plainLineHasRun(line)
    ? line
    : line.replace(JSON_STRING, (literal) => literal.replace(runOf(CARD_NUMBER_MIN_DIGITS, true), mask))
