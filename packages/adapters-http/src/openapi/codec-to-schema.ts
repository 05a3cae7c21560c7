import { isDeepStrictEqual } from 'node:util'
import * as t from 'io-ts'
import { BoundedList, ByKey, Checked, Closed, Nullable, Refined, Tagged } from '@orka/domain'

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as plain data. */
export type JsonSchema = Record<string, unknown>

const COMPONENT_NAME = /^[A-Za-z][A-Za-z0-9._-]*$/

/**
 * The `components/schemas` of a document being built. A named codec is described once, under its
 * own name, and referenced everywhere else, so the document has the codecs' vocabulary.
 */
export class SchemaRegistry {
  readonly schemas: Record<string, JsonSchema> = {}
  private readonly owners = new Map<string, t.Mixed>()

  /** `$ref` to `name`, describing `codec` there on first use. */
  ref(name: string, codec: t.Mixed, describe: () => JsonSchema): JsonSchema {
    const owner = this.owners.get(name)
    if (owner === undefined) {
      this.owners.set(name, codec)
      this.schemas[name] = describe()
    } else if (owner !== codec && !isDeepStrictEqual(describe(), this.schemas[name])) {
      // Two different shapes under one name would make one of them lie.
      throw new Error(`Two different codecs are both named '${name}'`)
    }
    return { $ref: `#/components/schemas/${name}` }
  }
}

/**
 * The JSON Schema of an io-ts codec, walking the domain's combinators: `Checked` leaves carry
 * their schema, `Closed` objects permit no other properties, `Nullable` is `anyOf [T, null]`
 * (as in the reference document), `Refined` adds its rules to the description, and `tagged`
 * unions become `oneOf` their branches. Named objects, tagged unions and named enums go to
 * `components/schemas`. A codec it cannot describe is a programming error: it throws, so a new
 * combinator cannot silently go undocumented.
 */
export const codecToSchema = (codec: t.Mixed, registry: SchemaRegistry): JsonSchema => {
  if (codec instanceof Refined) {
    const inner = codec.inner as t.Mixed
    const rules = `Rules:\n${codec.rules.map((r, i) => `${i + 1}. ${r.description}`).join('\n')}`
    if (inner instanceof Closed) return registry.ref(codec.name, codec, () => ({ ...closedSchema(inner, registry), description: rules }))
    return { ...codecToSchema(inner, registry), description: rules }
  }
  if (codec instanceof Nullable) return { anyOf: [codecToSchema(codec.inner as t.Mixed, registry), { type: 'null' }] }
  if (codec instanceof Closed) return registry.ref(codec.name, codec, () => closedSchema(codec, registry))
  if (codec instanceof Checked) {
    const schema = { ...(codec.schema as JsonSchema) }
    if (Object.keys(schema).length === 0) throw new Error(`Codec '${codec.name}' matches nothing and cannot be documented`)
    // Named enums (`GiftCardServiceProvider`, `TaxIdKind`) are types clients generate code for.
    return Array.isArray(schema.enum) && COMPONENT_NAME.test(codec.name) && /^[A-Z]/.test(codec.name)
      ? registry.ref(codec.name, codec, () => ({ title: codec.name, ...schema }))
      : schema
  }
  if (codec instanceof t.ArrayType || codec instanceof t.ReadonlyArrayType)
    return {
      type: 'array',
      items: codecToSchema(codec.type as t.Mixed, registry),
      ...(codec instanceof BoundedList ? { maxItems: codec.max } : {}),
    }
  if (codec instanceof ByKey)
    return { anyOf: [codecToSchema(codec.withoutKey as t.Mixed, registry), codecToSchema(codec.withKey as t.Mixed, registry)] }
  if (codec instanceof t.InterfaceType || codec instanceof t.PartialType) {
    const props = codec.props as Record<string, t.Mixed>
    const describe = (): JsonSchema => ({
      type: 'object',
      ...(COMPONENT_NAME.test(codec.name) ? { title: codec.name } : {}),
      properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, codecToSchema(v, registry)])),
      ...(codec instanceof t.InterfaceType && Object.keys(props).length > 0 ? { required: Object.keys(props) } : {}),
    })
    return COMPONENT_NAME.test(codec.name) ? registry.ref(codec.name, codec, describe) : describe()
  }
  if (codec instanceof t.ExactType) return { ...codecToSchema(codec.type as t.Mixed, registry), additionalProperties: false }
  if (codec instanceof t.StringType) return { type: 'string' }
  if (codec instanceof t.NumberType) return { type: 'number' }
  if (codec instanceof t.BooleanType) return { type: 'boolean' }
  if (codec instanceof t.NullType) return { type: 'null' }
  if (codec instanceof t.UnknownType || codec instanceof t.AnyType) return {}
  if (codec instanceof t.LiteralType) {
    const value: unknown = codec.value
    return { type: value === null ? 'null' : typeof value === 'number' ? 'number' : typeof value, const: value }
  }
  if (codec instanceof t.KeyofType) return { type: 'string', enum: Object.keys(codec.keys as object) }
  if (codec instanceof t.UnionType) return { anyOf: (codec.types as t.Mixed[]).map((c) => codecToSchema(c, registry)) }
  if (codec instanceof t.IntersectionType) return { allOf: (codec.types as t.Mixed[]).map((c) => codecToSchema(c, registry)) }
  if (codec instanceof t.DictionaryType) return { type: 'object', additionalProperties: codecToSchema(codec.codomain as t.Mixed, registry) }
  if (codec instanceof Tagged)
    return registry.ref(codec.name, codec, () => ({
      title: codec.name,
      description: `Told apart by \`${codec.tag}\`: ${Object.keys(codec.branches as Record<string, t.Mixed>)
        .map((k) => `\`${k}\``)
        .join(', ')}.`,
      oneOf: Object.values(codec.branches as Record<string, t.Mixed>).map((b) => codecToSchema(b, registry)),
    }))
  throw new Error(`No JSON Schema for codec '${codec.name}' (${codec.constructor.name})`)
}

/** What `closedSchema` reads of a `Closed` codec. */
interface ClosedShape {
  readonly name: string
  readonly required: Record<string, t.Mixed>
  readonly optional: Record<string, t.Mixed>
}

const closedSchema = (codec: ClosedShape, registry: SchemaRegistry): JsonSchema => {
  const required = Object.keys(codec.required)
  // `type` leads, as the codec encodes it.
  const props = [...Object.entries(codec.required), ...Object.entries(codec.optional)].sort(
    ([a], [b]) => Number(b === 'type') - Number(a === 'type'),
  )
  return {
    type: 'object',
    title: codec.name,
    properties: Object.fromEntries(props.map(([k, v]) => [k, codecToSchema(v, registry)])),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: false,
  }
}
