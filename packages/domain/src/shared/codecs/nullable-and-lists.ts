import * as t from 'io-ts'
import { Checked, standingAs } from './explain'

/** `T | null` whose failures are the inner codec's (a union would report both branches). */
export class Nullable<C extends t.Mixed> extends t.Type<t.TypeOf<C> | null, t.OutputOf<C> | null> {
  readonly _nullable = true
  constructor(readonly inner: C) {
    super(
      `${inner.name} | null`,
      (u): u is t.TypeOf<C> | null => u === null || inner.is(u),
      // The inner codec takes this one's place in the context, so failures explain themselves as it.
      (u, c) => (u === null ? t.success(null) : inner.validate(u, standingAs(c, inner))),
      (a) => (a === null ? null : (inner.encode(a) as t.OutputOf<C>)),
    )
  }
}
export const nullable = <C extends t.Mixed>(inner: C): Nullable<C> => new Nullable(inner)

/**
 * A list of at most `max` items: a longer one is a single `too_long` fault on the list, its
 * items unchecked (a client sending a thousand items learns the bound, not a thousand faults).
 */
export class BoundedList<C extends t.Mixed> extends t.ArrayType<C, t.TypeOf<C>[], t.OutputOf<C>[]> {
  readonly _bounded = true
  constructor(
    item: C,
    readonly max: number,
  ) {
    const list = t.array(item)
    super(
      list.name,
      (u): u is t.TypeOf<C>[] => list.is(u) && u.length <= max,
      (u, c) => {
        if (!Array.isArray(u) || u.length <= max) return list.validate(u, c)
        const actual = u.length
        const tooLong = new Checked<never>(
          'list',
          t.never.is,
          () => ({ type: 'too_long', ctx: { field_type: 'List', max_length: max, actual_length: actual } }),
          {},
        )
        return t.failure(u, standingAs(c, tooLong))
      },
      list.encode,
      item,
    )
  }
}
export const boundedList = <C extends t.Mixed>(item: C, max: number) => new BoundedList(item, max)
