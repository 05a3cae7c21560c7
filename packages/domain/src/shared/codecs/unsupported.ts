import { Checked } from './explain'

/**
 * Properties the original API's SDK accepts that Orka does not act on. They are allowed in the
 * schema (a client sending them is not malformed) but any value other than absent, null or the
 * SDK's default is refused with a 400 naming them (`unsupportedFields`): never silently ignored.
 */
export const unsupported = new Checked<unknown>(
  'unsupported',
  (u): u is unknown => u !== undefined,
  () => undefined,
  {
    description: 'Not supported by Orka: only absent, null or the default is accepted.',
  },
)

/** The properties of a request that hold a value Orka does not offer, in order (each a 400). */
export const unsupportedFields = (
  input: Record<string, unknown>,
  defaults: Readonly<Record<string, unknown>>,
  at: readonly string[] = [],
): string[][] =>
  Object.entries(defaults)
    .filter(([k, d]) => input[k] !== undefined && input[k] !== null && input[k] !== d)
    .map(([k]) => [...at, k])
