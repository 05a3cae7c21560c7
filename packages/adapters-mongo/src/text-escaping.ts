/**
 * PostgreSQL, under FerretDB, cannot store U+0000 in a string (SQLSTATE 22P05), while the
 * domain joins key parts with it. Strings the adapters build or must store verbatim are
 * escaped: `%`, `|` and U+0000 become `%25`, `%7C`, `%00`. The mapping is reversible, and no
 * escaped part contains `|`, so `compositeId` is injective.
 */
export const escapeText = (s: string): string =>
  s
    .replace(/[%|]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`)
    .split('\u0000')
    .join('%00')
export const unescapeText = (s: string): string => s.replace(/%(25|7C|00)/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))

/** One `_id` for several key parts, e.g. (merchant account, idempotency key). */
export const compositeId = (...parts: readonly string[]): string => parts.map(escapeText).join('|')
