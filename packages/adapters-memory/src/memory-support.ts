import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Seek, SortKey } from '@orka/domain'

/** Stored values are cloned on the way in and out, so no caller can reach into the store. */
export const copy = <A>(a: A): A => structuredClone(a)

/**
 * Runs `f` synchronously when the task starts: a check-then-write inside `f` cannot interleave
 * with another call, which is what makes the memory adapters atomic.
 */
export const atomically =
  <L, A>(f: () => E.Either<L, A>): TE.TaskEither<L, A> =>
  () =>
    new Promise((resolve) => {
      resolve(f())
    })

export const compareKeys = (a: SortKey, b: SortKey): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)

/** A keyset read over items held in memory; see `Seek`. */
export const seekIn = <A>(items: Iterable<A>, keyOf: (a: A) => SortKey, order: 'ascending' | 'descending', seek: Seek): A[] => {
  const sign = order === 'ascending' ? 1 : -1
  const listed = [...items].sort((a, b) => sign * compareKeys(keyOf(a), keyOf(b)))
  const from = seek.from
  if (seek.direction === 'forward') {
    const after = from._tag === 'None' ? listed : listed.filter((a) => sign * compareKeys(keyOf(a), from.value) > 0)
    return after.slice(0, seek.limit)
  }
  const before = from._tag === 'None' ? listed : listed.filter((a) => sign * compareKeys(keyOf(a), from.value) < 0)
  return before.reverse().slice(0, seek.limit)
}
