import type { Explanation } from '@orka/domain'

const plural = (n: string | number | undefined, word: string): string => `${String(n)} ${word}${n === 1 ? '' : 's'}`

/**
 * The 422 `msg` of a fault a domain codec explains: the wording of FastAPI/pydantic's
 * validation errors, which the API's clients were built against, from the fault's `type` and
 * parameters. A broken cross-field rule reads "Value error, " and the rule's own sentence.
 */
export const messageOf = (why: Explanation): string => {
  const ctx = why.ctx ?? {}
  switch (why.type) {
    case 'missing':
      return 'Field required'
    case 'extra_forbidden':
      return 'Extra inputs are not permitted'
    case 'model_type':
      return 'Input should be a valid dictionary or object'
    case 'list_type':
      return 'Input should be a valid list'
    case 'too_long':
      return `List should have at most ${plural(ctx.max_length, 'item')} after validation, not ${String(ctx.actual_length)}`
    case 'string_type':
      return 'Input should be a valid string'
    case 'string_invalid_characters':
      return 'String should not contain the NUL character (U+0000)'
    case 'string_unicode':
      return 'Input should be a valid string, unable to parse raw data as a unicode string'
    case 'string_too_short':
      return `String should have at least ${plural(ctx.min_length, 'character')}`
    case 'string_too_long':
      return `String should have at most ${plural(ctx.max_length, 'character')}`
    case 'string_pattern_mismatch':
      return `String should match pattern '${String(ctx.pattern)}'`
    case 'uuid_parsing':
      return 'Input should be a valid UUID'
    case 'int_type':
      return 'Input should be a valid integer'
    case 'float_type':
      return 'Input should be a valid number'
    case 'greater_than_equal':
      return `Input should be greater than or equal to ${String(ctx.ge)}`
    case 'less_than_equal':
      return `Input should be less than or equal to ${String(ctx.le)}`
    case 'bool_type':
      return 'Input should be a valid boolean'
    case 'literal_error':
      // The shown `ctx.expected` is the value already quoted: `'v'`.
      return `Input should be ${String(ctx.expected)}`
    case 'enum':
      // Each admitted value quoted, while the shown `ctx.expected` lists them bare.
      return `Input should be ${(why.values ?? []).map((v) => `'${v}'`).join(', ')}`
    case 'value_error':
      return why.rule !== undefined ? `Value error, ${why.rule}` : `Input should be ${why.codec ?? 'valid'}`
  }
}
