import * as fc from 'fast-check'

/**
 * The values a generated request is made of. Bodies are trees of these and plain JSON values,
 * serialised by `toJsonText`, so that a body can hold what a JS object cannot: duplicate keys,
 * an own `__proto__` key, number literals JSON.parse rounds (`1e400`), escapes of lone
 * surrogates. Values that depend on what the server answered earlier (an id it created, a
 * cursor it issued) are `Ref`s, resolved when the request is sent.
 */

/** A JSON object as the ordered list of its members, duplicates included. */
export class Obj {
  constructor(readonly entries: readonly (readonly [Key, unknown])[]) {}
  [fc.toStringMethod](): string {
    return `Obj{${this.entries.map(([k, v]) => `${fc.stringify(k)}: ${fc.stringify(v)}`).join(', ')}}`
  }
}

/** JSON text written as is (a number literal, or text that is not JSON at all). */
export class Raw {
  constructor(readonly text: string) {}
  [fc.toStringMethod](): string {
    return `Raw(${JSON.stringify(this.text.length > 200 ? `${this.text.slice(0, 200)}…(${this.text.length} chars)` : this.text)})`
  }
}

/**
 * A value that must never come back: a card number, PIN, password/client secret or a card's
 * security code. `where` says what promise applies: `response` values are sent in the properties
 * docs/security.md names as sensitive (they must appear in no response and no log line); `log` values
 * are sent elsewhere (a URL path), and only the log must never carry them. A security code is
 * too short to look for in any text: no response may hold it as a string (but a card's label
 * or BIN, which may be the same digits), nor any of the request's log lines as a JSON string.
 */
export class Secret {
  constructor(
    readonly kind: 'card' | 'pin' | 'password' | 'cvv',
    readonly value: string,
    readonly where: 'response' | 'log' = 'response',
  ) {}
  /** What to look for: the value, and its digits when it is a formatted card number. */
  tracked(): string[] {
    const digits = this.value.replace(/\D/g, '')
    return this.kind === 'card' && digits !== this.value && digits.length >= 13 ? [this.value, digits] : [this.value]
  }
  [fc.toStringMethod](): string {
    return `Secret(${this.kind}:${JSON.stringify(this.value)})`
  }
}

export type PoolName =
  | 'subscription'
  | 'delivery'
  | 'deliverySubscription'
  | 'buyer'
  | 'card'
  | 'cursor'
  | 'buyerExternalId'
  | 'giftCard'
  | 'session'
  | 'paymentMethod'
  | 'paymentService'
  | 'shippingDetails'
  | 'apiKeyPair'

/** Something the server created earlier in the run, picked by index (modulo the pool's size). */
export class Ref {
  constructor(
    readonly pool: PoolName,
    readonly index: number,
    /** `none`, `upper` (an upper-case UUID), `suffix` (junk appended), `tamper` (one character changed), `truncate`. */
    readonly transform: 'none' | 'upper' | 'suffix' | 'tamper' | 'truncate' = 'none',
  ) {}
  [fc.toStringMethod](): string {
    return `Ref(${this.pool}#${this.index}${this.transform === 'none' ? '' : `,${this.transform}`})`
  }
}

export type Key = string | Secret

/** How strings and keys are written. */
export type Escape = 'plain' | 'ascii' | 'all' | 'literal'

export interface Resolver {
  /** The value a `Ref` stands for: a string, or a `Secret` (a card number sent before). */
  resolve(ref: Ref): string | Secret
}

const hex4 = (c: number) => `\\u${c.toString(16).padStart(4, '0')}`

export const quote = (s: string, escape: Escape): string => {
  switch (escape) {
    case 'plain':
      // Well-formed JSON.stringify: control characters and lone surrogates as \u escapes.
      return JSON.stringify(s)
    case 'ascii':
      return JSON.stringify(s).replace(/[^\x20-\x7e]/g, (c) => hex4(c.charCodeAt(0)))
    case 'all': {
      let out = '"'
      for (let i = 0; i < s.length; i++) out += hex4(s.charCodeAt(i))
      return `${out}"`
    }
    case 'literal':
      // Only `"` and `\` escaped: control characters and lone surrogates are written raw
      // (a lone surrogate becomes U+FFFD's bytes in UTF-8; control characters make it invalid JSON).
      return `"${s.replace(/["\\]/g, (c) => `\\${c}`)}"`
  }
}

export interface Serialised {
  readonly text: string
  readonly secrets: Secret[]
}

/** Serialises a body tree; `spaced` puts whitespace around every token. */
export const toJsonText = (v: unknown, escape: Escape, spaced: boolean, r: Resolver): Serialised => {
  const secrets: Secret[] = []
  const sp = spaced ? ' \n\t ' : ''
  const str = (s: string | Secret): string => {
    if (s instanceof Secret) {
      secrets.push(s)
      return quote(s.value, escape)
    }
    return quote(s, escape)
  }
  const go = (x: unknown, depth: number): string => {
    if (depth > 200000) throw new Error('body tree too deep')
    if (x instanceof Ref) {
      const got = r.resolve(x)
      return str(got)
    }
    if (x instanceof Secret) return str(x)
    if (x instanceof Raw) return x.text
    if (x instanceof Obj)
      return `{${sp}${x.entries.map(([k, val]) => `${str(k)}${sp}:${sp}${go(val, depth + 1)}`).join(`${sp},${sp}`)}${sp}}`
    if (Array.isArray(x)) return `[${sp}${x.map((e) => go(e, depth + 1)).join(`${sp},${sp}`)}${sp}]`
    if (typeof x === 'string') return str(x)
    if (x === undefined) return 'null'
    if (typeof x === 'number' && !Number.isFinite(x)) return String(x) // NaN, Infinity: not JSON
    return JSON.stringify(x)
  }
  const text = go(v, 0)
  return { text, secrets }
}
