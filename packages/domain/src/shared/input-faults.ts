import * as t from 'io-ts'
import { ByKey, Checked, Closed, Explanation, forbiddenExtra, Nullable, Refined, RuleLeaf, Tagged } from './codecs'

/**
 * One thing wrong with an input that failed its codec: where inside the input, and why (an
 * `Explanation`: its `type`, `ctx`, and for a broken rule the `rule`). The value is the one
 * received, for the adapter that reports the fault to show or withhold. Wording it is the
 * adapter's business.
 */
export interface InputFault extends Explanation {
  /** Property names and array positions from the input's root (see `UNNAMED_PROPERTY`). */
  readonly path: readonly (string | number)[]
  readonly value: unknown
}

const explainBuiltin = (type: t.Decoder<unknown, unknown>): Explanation => {
  if (type instanceof t.StringType) return { type: 'string_type' }
  if (type instanceof t.BooleanType) return { type: 'bool_type' }
  if (type instanceof t.NumberType) return { type: 'float_type' }
  if (type instanceof t.ArrayType || type instanceof t.ReadonlyArrayType) return { type: 'list_type' }
  if (type instanceof t.InterfaceType || type instanceof t.PartialType || type instanceof t.ExactType || type instanceof t.IntersectionType)
    return { type: 'model_type' }
  return { type: 'value_error', codec: type.name }
}

/**
 * What stands in a path for a property name the client chose (an unknown property, a key of a
 * map) when that name is not a plain identifier (`PLAIN_NAME`): such a name may itself be a
 * card number or a PIN sent as a key, so it never appears in a path.
 */
export const UNNAMED_PROPERTY = '<property>'
/** A property name that is safe to echo: starts with a letter or `_`, at most 64 characters. */
export const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

type Decoder = t.Decoder<unknown, unknown>

/**
 * What a wrapper validates through: a refinement, a nullable, `t.exact` and `t.readonly` hand
 * their own context entry to the codec they wrap, so the step below them is that codec's.
 */
const unwrap = (d: Decoder): Decoder => {
  if (d instanceof Refined || d instanceof Nullable) return unwrap(d.inner as Decoder)
  if (d instanceof t.ExactType || d instanceof t.ReadonlyType || d instanceof t.RefinementType) return unwrap(d.type as Decoder)
  return d
}

/** The property names a codec declares: ours, not the client's, hence always echoed as they are. */
const declares = (codec: Decoder, key: string): boolean => {
  const d = unwrap(codec)
  if (d instanceof Closed) return Object.hasOwn(d.required as object, key) || Object.hasOwn(d.optional as object, key)
  // A tagged union validates with its branch, in its own context entry.
  if (d instanceof Tagged) return key === d.tag || Object.values(d.branches as Record<string, t.Mixed>).some((b) => declares(b, key))
  if (d instanceof ByKey) return declares(d.withoutKey as Decoder, key) || declares(d.withKey as Decoder, key)
  if (d instanceof t.InterfaceType || d instanceof t.PartialType) return Object.hasOwn(d.props as object, key)
  return false
}

const isList = (codec: Decoder): boolean => {
  const d = unwrap(codec)
  return d instanceof t.ArrayType || d instanceof t.ReadonlyArrayType || d instanceof t.TupleType
}

/**
 * One step of an io-ts context as a path item: an integer for a real array position, the name
 * for a property the codec declares (or a rule's path), and for a name the client chose the
 * name only when it is a plain identifier, else `UNNAMED_PROPERTY`. A union or intersection
 * member index is no location at all (`undefined`).
 */
const pathItem = (parent: Decoder, entry: t.ContextEntry): string | number | undefined => {
  const p = unwrap(parent)
  if (p instanceof t.UnionType || p instanceof t.IntersectionType) return undefined
  if (isList(parent) && /^\d{1,15}$/.test(entry.key)) return Number(entry.key)
  if (entry.type !== forbiddenExtra && (entry.type instanceof RuleLeaf || declares(parent, entry.key))) return entry.key
  return PLAIN_NAME.test(entry.key) ? entry.key : UNNAMED_PROPERTY
}

/**
 * Explains io-ts errors as faults inside the input. A path holds integers for array positions
 * only; property names are strings, and a name the client chose is kept only when it is a plain
 * identifier (see `UNNAMED_PROPERTY`). A property faulted twice the same way is reported once.
 */
export const inputFaults = (errors: t.Errors): InputFault[] => {
  const out: InputFault[] = []
  const seen = new Set<string>()
  for (const e of errors) {
    // The first entry is the root value itself (key ''); each later one is a step into its parent.
    const path: (string | number)[] = []
    let parent: t.ContextEntry | undefined
    for (const entry of e.context) {
      const item = parent === undefined ? undefined : pathItem(parent.type as Decoder, entry)
      if (item !== undefined) path.push(item)
      parent = entry
    }
    const leaf = e.context[e.context.length - 1]
    let why: Explanation
    if (e.value === undefined && leaf?.type !== forbiddenExtra && !(leaf?.type instanceof RuleLeaf)) why = { type: 'missing' }
    else if (leaf?.type instanceof Checked) why = leaf.type.explain(e.value) ?? { type: 'value_error', codec: leaf.type.name }
    else why = explainBuiltin(leaf?.type ?? t.unknown)
    const id = `${JSON.stringify(path)}|${why.type}`
    // Two rules may fault one property the same way (or two unnamed properties look alike): report it once.
    if (seen.has(id)) continue
    seen.add(id)
    out.push({ path, value: e.value, ...why })
  }
  return out
}
