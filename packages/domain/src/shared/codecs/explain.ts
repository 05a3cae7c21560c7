import * as t from 'io-ts'

/**
 * Kinds of fault a codec finds in an input, named as in the API's 422 vocabulary
 * (`string_too_short`, `extra_forbidden`, ...).
 */
export type FaultType =
  | 'missing'
  | 'extra_forbidden'
  | 'model_type'
  | 'list_type'
  | 'too_long'
  | 'string_type'
  | 'string_invalid_characters'
  | 'string_unicode'
  | 'string_too_short'
  | 'string_too_long'
  | 'string_pattern_mismatch'
  | 'uuid_parsing'
  | 'int_type'
  | 'float_type'
  | 'greater_than_equal'
  | 'less_than_equal'
  | 'bool_type'
  | 'literal_error'
  | 'enum'
  | 'value_error'

/**
 * Why an input fails a codec, machine-readably: the kind of fault and its parameters. The
 * codecs are the single source of truth: the HTTP layer decodes with them and words their
 * explanations (adapters-http `src/decode/messages.ts`), nothing restates a limit.
 */
export interface Explanation {
  readonly type: FaultType
  /** The fault's parameters, as the API shows them (`{ min_length: 2 }`, `{ expected: 'a, b' }`). */
  readonly ctx?: Readonly<Record<string, string | number>>
  /**
   * A broken cross-field rule (`value_error`): the rule itself, a statement of the domain
   * ("`pin` is required when `store` is true").
   */
  readonly rule?: string
  /** `enum`: the values admitted, in order. */
  readonly values?: readonly string[]
  /** `value_error` that breaks no rule: the name of the codec the input does not satisfy. */
  readonly codec?: string
}

/** A leaf codec whose failures explain themselves. */
export class Checked<A> extends t.Type<A, A> {
  readonly _checked = true
  constructor(
    name: string,
    is: (u: unknown) => u is A,
    readonly explain: (u: unknown) => Explanation | undefined,
    /** Constraints for documentation (JSON Schema keywords). */
    readonly schema: Record<string, unknown>,
    /** Maps an accepted input to its canonical form (e.g. a UUID to lower case); identity by default. */
    normalize: (a: A) => A = (a) => a,
  ) {
    super(
      name,
      is,
      (u, c) => {
        const why = explain(u)
        return why === undefined ? t.success(normalize(u as A)) : t.failure(u, c, why.type)
      },
      t.identity,
    )
  }
}

// For the codec files beside this one; the kit's index does not export them.
export const isString = (u: unknown): u is string => typeof u === 'string'
export const notString: Explanation = { type: 'string_type' }

/**
 * The context with its last entry's codec replaced by `type`: a wrapper hands its own entry to
 * the codec it validates through, so that failures explain themselves as that codec.
 */
export const standingAs = (c: t.Context, type: t.Decoder<unknown, unknown>): t.Context => {
  const last = c[c.length - 1]
  return last === undefined ? [{ key: '', type }] : [...c.slice(0, -1), { ...last, type }]
}
