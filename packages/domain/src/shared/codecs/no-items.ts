import { Checked } from './explain'

/** A list that is always empty: what Orka does not produce yet. */
export const NoItems = new Checked<readonly never[]>(
  'NoItems',
  (u): u is readonly never[] => Array.isArray(u) && u.length === 0,
  (u) => (Array.isArray(u) && u.length === 0 ? undefined : { type: 'too_long', ctx: { max_length: 0 } }),
  { type: 'array', maxItems: 0 },
)
