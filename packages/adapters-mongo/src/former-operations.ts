/**
 * The names an earlier version of Orka stored idempotency records under (HTTP routes), by
 * today's operation name. Its records are honoured until they expire, so that a request retried
 * across an upgrade is answered as it would have been: a record of how this storage holds them,
 * not a rule of the domain.
 */
const FORMER_OPERATIONS: Readonly<Record<string, string>> = {
  'gift-card-activation': 'POST /gift-cards/activations',
  'gift-card-store': 'POST /gift-cards',
}

/** The key the record of `key` (operation, U+0000, the client's key) had before its operation was renamed; none if it was not. */
export const formerKeyOf = (key: string): string | undefined => {
  const sep = key.indexOf('\u0000')
  const former = sep < 0 ? undefined : FORMER_OPERATIONS[key.slice(0, sep)]
  return former === undefined ? undefined : former + key.slice(sep)
}
