import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { Checked, Explanation, standingAs } from './explain'
import { oneOf } from './scalars'

type Props = Record<string, t.Mixed>
type ClosedType<R extends Props, O extends Props> = t.TypeOf<t.TypeC<R>> & Partial<t.TypeOf<t.TypeC<O>>>
type ClosedOutput<R extends Props, O extends Props> = t.OutputOf<t.TypeC<R>> & Partial<t.OutputOf<t.TypeC<O>>>

/** Marks the leaf that reports an unknown property. */
export const forbiddenExtra = new Checked<never>('never', t.never.is, () => ({ type: 'extra_forbidden' }), {})
const notObject: Explanation = { type: 'model_type' }
export const objectType = new Checked<Record<string, unknown>>(
  'object',
  (u): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u),
  (u) => (typeof u === 'object' && u !== null && !Array.isArray(u) ? undefined : notObject),
  { type: 'object' },
)

/**
 * An object that permits no properties but those listed (`additionalProperties: false`).
 * Decoding rejects unknown keys; encoding keeps only known keys, so a response encoded
 * through it is a whitelist. Properties are validated one by one so that every failure's
 * context is exactly the path to the faulty property.
 */
export class Closed<R extends Props, O extends Props> extends t.Type<ClosedType<R, O>, ClosedOutput<R, O>> {
  readonly _closed = true
  constructor(
    name: string,
    readonly required: R,
    readonly optional: O,
  ) {
    // `type` leads, as in the spec's resource tables, so responses read naturally.
    const all: [string, t.Mixed, boolean][] = [
      ...Object.entries(required).map(([k, v]): [string, t.Mixed, boolean] => [k, v, true]),
      ...Object.entries(optional).map(([k, v]): [string, t.Mixed, boolean] => [k, v, false]),
    ].sort(([a], [b]) => Number(b === 'type') - Number(a === 'type'))
    const known = new Set(all.map(([k]) => k))
    super(
      name,
      (u): u is ClosedType<R, O> =>
        objectType.is(u) &&
        Object.keys(u).every((k) => known.has(k)) &&
        all.every(([k, codec, req]) => (u[k] === undefined ? !req : codec.is(u[k]))),
      (u, c) => {
        if (!objectType.is(u)) return t.failure(u, standingAs(c, objectType), notObject.type)
        const errors: t.ValidationError[] = Object.keys(u)
          .filter((k) => !known.has(k))
          .map((k) => ({
            value: u[k],
            context: [...c, { key: k, type: forbiddenExtra, actual: u[k] }],
            message: 'extra_forbidden',
          }))
        const out: Record<string, unknown> = {}
        for (const [k, codec, req] of all) {
          const v = u[k]
          if (v === undefined && !req) continue
          const r = codec.validate(v, [...c, { key: k, type: codec, actual: v }])
          if (E.isLeft(r)) errors.push(...r.left)
          else out[k] = r.right
        }
        return errors.length > 0 ? t.failures(errors) : t.success(out as ClosedType<R, O>)
      },
      (a) => {
        const out: Record<string, unknown> = {}
        const src = a as Record<string, unknown>
        for (const [k, codec] of all) if (src[k] !== undefined) out[k] = codec.encode(src[k])
        return out as ClosedOutput<R, O>
      },
    )
  }
}
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no optional properties: `{}` adds nothing to the decoded type
export const closed = <R extends Props, O extends Props = {}>(name: string, required: R, optional: O = {} as O) =>
  new Closed(name, required, optional)

/**
 * A union told apart by one string property (`kind`): decoding picks the branch by that
 * property, so a failure reports the chosen branch's faults only. `tag` and `branches` stay
 * readable so that documentation is derived from the codec, not restated.
 */
export class Tagged<K extends string, M extends Record<string, t.Mixed>> extends t.Type<t.TypeOf<M[keyof M]>, t.OutputOf<M[keyof M]>> {
  readonly _tagged = true
  constructor(
    name: string,
    readonly tag: K,
    readonly branches: M,
  ) {
    const tags = oneOf(`${name}.${tag}`, Object.keys(branches) as (keyof M & string)[])
    const byTag = new Map<unknown, t.Mixed>(Object.entries(branches))
    /** The branch for a tag `tags` admits (or an encoded value carries), which `branches` always holds. */
    const branch = (k: unknown): t.Mixed => {
      const b = byTag.get(k)
      if (b === undefined) throw new Error(`${name}: no branch for ${tag} ${String(k)}`)
      return b
    }
    super(
      name,
      (u): u is t.TypeOf<M[keyof M]> => objectType.is(u) && tags.is(u[tag]) && branch(u[tag]).is(u),
      (u, c) => {
        if (!objectType.is(u)) return t.failure(u, standingAs(c, objectType), notObject.type)
        const k = u[tag]
        if (!tags.is(k)) return t.failure(k, [...c, { key: tag, type: tags, actual: k }])
        return branch(k).validate(u, c)
      },
      (a) => branch((a as Record<string, unknown>)[tag]).encode(a) as t.OutputOf<M[keyof M]>,
    )
  }
}
export const tagged = <K extends string, M extends Record<string, t.Mixed>>(name: string, tag: K, branches: M) =>
  new Tagged(name, tag, branches)

/**
 * A union of two objects told apart by whether the input has `key` (`{number, pin}` or `{id}`):
 * decoding picks the branch, so a failure reports that branch's faults only. Documented as
 * `anyOf` the two, in this order.
 */
export class ByKey<A extends t.Mixed, B extends t.Mixed> extends t.Type<t.TypeOf<A> | t.TypeOf<B>, t.OutputOf<A> | t.OutputOf<B>> {
  readonly _byKey = true
  constructor(
    name: string,
    readonly withoutKey: A,
    readonly key: string,
    readonly withKey: B,
  ) {
    const branch = (u: object): t.Mixed => (Object.hasOwn(u, key) ? withKey : withoutKey)
    super(
      name,
      (u): u is t.TypeOf<A> | t.TypeOf<B> => objectType.is(u) && branch(u).is(u),
      (u, c) => (objectType.is(u) ? branch(u).validate(u, c) : t.failure(u, standingAs(c, objectType), notObject.type)),
      (a) => branch(a).encode(a) as t.OutputOf<A> | t.OutputOf<B>,
    )
  }
}
