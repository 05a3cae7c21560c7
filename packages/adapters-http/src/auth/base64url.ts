/**
 * Strict base64url (RFC 4648 §5, no padding, as JWS requires): every byte string has exactly
 * one encoding, and only that encoding is accepted.
 *
 * Node's own decoder is lenient: it skips `=`, whitespace and characters outside the alphabet,
 * accepts `+` and `/` for `-` and `_`, ignores a dangling sixth bit group (one extra trailing
 * character) and the unused low bits of the last character. So many strings decode to the same
 * bytes, and anything keyed on the string (a cache, a rate-limit identity) could be dodged by
 * re-encoding a token. Decoding here round-trips: the bytes must encode back to the very string.
 */
const ALPHABET = /^[A-Za-z0-9_-]*$/

/** The bytes of `s`, or `undefined` when `s` is not the one canonical base64url of some bytes. */
export const decodeBase64urlStrict = (s: string): Buffer | undefined => {
  if (!ALPHABET.test(s)) return undefined
  // A single character left over carries 6 bits: not even one byte.
  if (s.length % 4 === 1) return undefined
  const bytes = Buffer.from(s, 'base64url')
  return bytes.toString('base64url') === s ? bytes : undefined
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Strict UTF-8 (no replacement characters, a BOM stays and so fails JSON), or `undefined`. */
export const decodeUtf8Strict = (bytes: Uint8Array): string | undefined => {
  try {
    return UTF8.decode(bytes)
  } catch {
    return undefined
  }
}
