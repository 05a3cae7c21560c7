import * as E from 'fp-ts/Either'
import * as t from 'io-ts'

/** A stored document as the adapters see it: a string `_id` and fields still to be decoded. */
export interface Doc {
  _id: string
  [field: string]: unknown
}

/** A document read back that its codec rejects: never passed on, reported with where it is. */
export class UndecodableDocument extends Error {
  override readonly name = 'UndecodableDocument'
  constructor(
    readonly collection: string,
    readonly id: unknown,
    readonly paths: readonly string[],
  ) {
    super(`${collection} document ${JSON.stringify(id)} does not decode (at ${paths.join(', ')})`)
  }
}

// Paths only, never values: a stored document may hold sealed card data.
const failedPaths = (errors: t.Errors): string[] => {
  const paths = errors.map((e) =>
    e.context
      .map((c) => c.key)
      .filter((k) => k !== '')
      .join('.'),
  )
  const unique = [...new Set(paths.map((p) => (p === '' ? '(document)' : p)))]
  return unique.length > 5 ? [...unique.slice(0, 5), `${unique.length - 5} more`] : unique
}

/**
 * A document's decoder: `toValue` picks the fields the codec knows (so a field added by a later
 * version is ignored, not passed on) and the domain codec checks them; a failure throws
 * `UndecodableDocument`, which `attempt` turns into `Unavailable`.
 */
export const decoder =
  <A>(collection: string, codec: t.Decoder<unknown, A>, toValue: (doc: Doc) => unknown) =>
  (doc: Doc): A => {
    const r = codec.decode(toValue(doc))
    if (E.isLeft(r)) throw new UndecodableDocument(collection, doc._id, failedPaths(r.left))
    return r.right
  }

/** The listed fields of `doc` that are present. */
export const pick = (doc: Doc, fields: readonly string[]): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const f of fields) if (doc[f] !== undefined) out[f] = doc[f]
  return out
}

/** The property names a domain codec knows: `t.type` props, or a closed codec's required and optional ones. */
export const fieldsOf = (codec: t.Mixed): string[] => {
  const c = codec as unknown as { props?: object; required?: object; optional?: object }
  if (c.props !== undefined) return Object.keys(c.props)
  if (c.required !== undefined && c.optional !== undefined) return [...Object.keys(c.required), ...Object.keys(c.optional)]
  throw new Error(`cannot list the fields of codec ${codec.name}`)
}

/** A BSON date as the driver returns it. */
export const BsonDate = new t.Type<Date, Date, unknown>(
  'Date',
  (u): u is Date => u instanceof Date && !Number.isNaN(u.getTime()),
  (u, c) => (u instanceof Date && !Number.isNaN(u.getTime()) ? t.success(u) : t.failure(u, c)),
  (d) => d,
)
