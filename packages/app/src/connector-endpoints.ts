import * as t from 'io-ts'

/** Comma-separated `connector-id=base-url` pairs: an http(s) URL without credentials, query or fragment. */
export const endpoints = new t.Type<Readonly<Record<string, string>>, unknown, string>(
  'comma-separated connector-id=http(s)://host[:port][/path] pairs, each id once',
  (u): u is Readonly<Record<string, string>> => typeof u === 'object' && u !== null,
  (s, c) => {
    const out: Record<string, string> = {}
    for (const pair of s.split(',').map((p) => p.trim())) {
      const [, id, url] = /^([a-z][a-z0-9-]{0,49})=(https?:\/\/[^\s?#@\\]+)$/.exec(pair) ?? []
      if (id === undefined || url === undefined || id in out) return t.failure(s, c)
      try {
        out[id] = new URL(url).href.replace(/\/$/, '')
      } catch {
        return t.failure(s, c)
      }
    }
    return t.success(out)
  },
  (a) =>
    Object.entries(a)
      .map(([k, v]) => `${k}=${v}`)
      .join(','),
)
