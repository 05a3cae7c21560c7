import * as t from 'io-ts'
import { Checked, Explanation, forbiddenExtra, RuleLeaf } from './codecs'

/** One entry of the 422 body's `detail[]`. */
export interface Violation {
  readonly loc: ReadonlyArray<string | number>
  readonly msg: string
  readonly type: string
  readonly input?: unknown
  readonly ctx?: Record<string, unknown>
}

/** Properties whose values are never echoed back, whatever went wrong with them. */
export const SENSITIVE_KEYS: ReadonlySet<string> = new Set(['number', 'pin', 'password', 'client_secret', 'secret'])

const isScalar = (u: unknown) => u === null || ['string', 'number', 'boolean'].includes(typeof u)

const explainBuiltin = (type: t.Decoder<unknown, unknown>): Explanation => {
  if (type instanceof t.StringType) return { type: 'string_type', msg: 'Input should be a valid string' }
  if (type instanceof t.BooleanType) return { type: 'bool_type', msg: 'Input should be a valid boolean' }
  if (type instanceof t.NumberType) return { type: 'float_type', msg: 'Input should be a valid number' }
  if (type instanceof t.ArrayType || type instanceof t.ReadonlyArrayType) return { type: 'list_type', msg: 'Input should be a valid list' }
  if (type instanceof t.InterfaceType || type instanceof t.PartialType || type instanceof t.ExactType || type instanceof t.IntersectionType)
    return { type: 'model_type', msg: 'Input should be a valid dictionary or object' }
  return { type: 'value_error', msg: `Input should be ${type.name}` }
}

/**
 * Renders io-ts errors as the API's 422 `detail[]`, prefixed with where the value came from
 * (`body`, `query`, `path`). Inputs are echoed only when they are scalars of a non-sensitive
 * property, so a card number or PIN never comes back, whatever shape it was sent in.
 */
export const toViolations = (root: 'body' | 'query' | 'path' | 'header', errors: t.Errors): Violation[] => {
  const out: Violation[] = []
  const seen = new Set<string>()
  for (const e of errors) {
    const keys = e.context.map((c) => c.key).filter((k) => k !== '')
    // io-ts reports array indexes as strings; the 422 body uses integers for them.
    const loc: Array<string | number> = [root, ...keys.map((k) => (/^\d+$/.test(k) ? Number(k) : k))]
    const leaf = e.context[e.context.length - 1]
    let why: Explanation
    if (e.value === undefined && leaf?.type !== forbiddenExtra && !(leaf?.type instanceof RuleLeaf)) why = { type: 'missing', msg: 'Field required' }
    else if (leaf?.type instanceof Checked) why = leaf.type.explain(e.value) ?? { type: 'value_error', msg: e.message ?? 'Invalid value' }
    else why = explainBuiltin(leaf?.type ?? t.unknown)
    const id = `${loc.join('\u0000')}|${why.type}`
    // Two rules may fault one property the same way: report it once.
    if (seen.has(id)) continue
    seen.add(id)
    const sensitive = keys.some((k) => SENSITIVE_KEYS.has(k))
    // The whole body is never echoed either: a body that is a bare string may be a card number.
    const echo = keys.length > 0 && why.type !== 'missing' && why.type !== 'extra_forbidden' && !sensitive && isScalar(e.value)
    out.push({
      loc,
      msg: why.msg,
      type: why.type,
      ...(echo ? { input: e.value } : {}),
      ...(why.ctx ? { ctx: why.ctx } : {}),
    })
  }
  return out
}
