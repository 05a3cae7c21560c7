/** How each setting's text is read: the codecs of `config.ts`'s table. */
import * as t from 'io-ts'
export const int = (min: number, max: number) =>
  new t.Type<number, unknown, string>(
    `an integer from ${min} to ${max}`,
    (u): u is number => typeof u === 'number',
    (s, c) => (/^\d+$/.test(s) && Number(s) >= min && Number(s) <= max ? t.success(Number(s)) : t.failure(s, c)),
    String,
  )
export const oneOf = <L extends string>(...values: L[]) =>
  new t.Type<L, unknown, string>(
    values.map((v) => `'${v}'`).join(' or '),
    (u): u is L => values.includes(u as L),
    (s, c) => (values.includes(s as L) ? t.success(s as L) : t.failure(s, c)),
    String,
  )
export const text = (what: string, re = /^.+$/) =>
  new t.Type<string, unknown, string>(
    what,
    (u): u is string => typeof u === 'string',
    (s, c) => (re.test(s) ? t.success(s) : t.failure(s, c)),
    String,
  )
export const key32 = new t.Type<Buffer, unknown, string>(
  '32 bytes as 64 hex digits or base64',
  (u): u is Buffer => Buffer.isBuffer(u),
  (s, c) => {
    const b = /^[0-9a-fA-F]{64}$/.test(s) ? Buffer.from(s, 'hex') : Buffer.from(s, 'base64')
    return b.length === 32 ? t.success(b) : t.failure(s, c)
  },
  () => '********',
)

export const bool = new t.Type<boolean, unknown, string>(
  "'true' or 'false'",
  (u): u is boolean => typeof u === 'boolean',
  (s, c) => (s === 'true' || s === 'false' ? t.success(s === 'true') : t.failure(s, c)),
  String,
)
/** Comma-separated seconds (decimals allowed, for tests), each more than 0 and at most a day. */
export const delays = new t.Type<number[], unknown, string>(
  'comma-separated seconds, each > 0 and <= 86400, at most 50',
  (u): u is number[] => Array.isArray(u),
  (s, c) => {
    const parts = s.split(',').map((p) => p.trim())
    const ok = parts.length <= 50 && parts.every((p) => /^\d+(\.\d+)?$/.test(p) && Number(p) > 0 && Number(p) <= 86400)
    return ok ? t.success(parts.map(Number)) : t.failure(s, c)
  },
  (a) => a.join(','),
)

/**
 * Comma-separated origins a browser page may call the API from, each as a browser sends it in
 * `Origin`: scheme and host lower-cased, the scheme's default port left out
 * (`https://Shop.example:443` is `https://shop.example`). Only `http`/`https`, no path, query,
 * user or wildcard: CORS answers echo exactly one listed origin, never a pattern.
 */
export const origins = new t.Type<readonly string[], unknown, string>(
  'comma-separated origins (http or https://host[:port], no path, no wildcard)',
  (u): u is readonly string[] => Array.isArray(u),
  (s, c) => {
    const parts = s.split(',').map((p) => p.trim())
    const out: string[] = []
    for (const p of parts) {
      if (parts.length > 100 || !/^https?:\/\/[^/?#@*\s\\]+$/i.test(p)) return t.failure(s, c)
      try {
        const origin = new URL(p).origin
        if (origin === 'null') return t.failure(s, c)
        if (!out.includes(origin)) out.push(origin)
      } catch {
        return t.failure(s, c)
      }
    }
    return t.success(out)
  },
  (a) => a.join(','),
)
