import { Checked, Explanation, isString } from './explain'

export const intRange = (name: string, min?: number, max?: number): Checked<number> => {
  const explain = (u: unknown): Explanation | undefined => {
    if (typeof u !== 'number' || !Number.isSafeInteger(u)) return { type: 'int_type' }
    if (min !== undefined && u < min) return { type: 'greater_than_equal', ctx: { ge: min } }
    if (max !== undefined && u > max) return { type: 'less_than_equal', ctx: { le: max } }
    return undefined
  }
  return new Checked(name, (u): u is number => explain(u) === undefined, explain, {
    type: 'integer',
    ...(min !== undefined ? { minimum: min } : {}),
    ...(max !== undefined ? { maximum: max } : {}),
  })
}

export const bool = new Checked<boolean>(
  'boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u) => (typeof u === 'boolean' ? undefined : { type: 'bool_type' }),
  { type: 'boolean' },
)

export const literal = <L extends string>(value: L): Checked<L> =>
  new Checked<L>(
    value,
    (u): u is L => u === value,
    (u) => (u === value ? undefined : { type: 'literal_error', ctx: { expected: `'${value}'` } }),
    { type: 'string', const: value },
  )

export const oneOf = <L extends string>(name: string, values: readonly L[]): Checked<L> => {
  const set = new Set<string>(values)
  return new Checked<L>(
    name,
    (u): u is L => isString(u) && set.has(u),
    (u) => (isString(u) && set.has(u) ? undefined : { type: 'enum', ctx: { expected: values.join(', ') }, values }),
    { type: 'string', enum: [...values] },
  )
}
