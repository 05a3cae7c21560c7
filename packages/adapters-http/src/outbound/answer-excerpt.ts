/** Of an answer, at most this much is read, and this much kept for the delivery log. */
export const MAX_ANSWER_BYTES = 64 * 1024
export const EXCERPT_BYTES = 1024

/**
 * The start of an answer as text: at most `EXCERPT_BYTES`, cut before a character the limit
 * would split (so no stray replacement character at the end); other invalid UTF-8 becomes
 * U+FFFD. Null for an empty answer.
 */
export const excerptOf = (body: Buffer | null): string | null => {
  if (body === null || body.length === 0) return null
  let end = Math.min(body.length, EXCERPT_BYTES)
  // Back over at most 3 continuation bytes (10xxxxxx) of a character that goes on past the cut.
  if (end < body.length) for (let back = 0; back < 3 && end > 0 && (body.readUInt8(end) & 0xc0) === 0x80; back++) end--
  return body.subarray(0, end).toString('utf8')
}
