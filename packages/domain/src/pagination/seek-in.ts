import { Seek, SortKey } from './page'

export const compareSortKeys = (a: SortKey, b: SortKey): number =>
  a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0

/** A keyset read over items held in memory: what a `Seek` means, for adapters and test doubles that hold a list. */
export const seekIn = <A>(items: Iterable<A>, keyOf: (a: A) => SortKey, order: 'ascending' | 'descending', seek: Seek): A[] => {
  const sign = order === 'ascending' ? 1 : -1
  const listed = [...items].sort((a, b) => sign * compareSortKeys(keyOf(a), keyOf(b)))
  const from = seek.from
  if (seek.direction === 'forward') {
    const after = from._tag === 'None' ? listed : listed.filter((a) => sign * compareSortKeys(keyOf(a), from.value) > 0)
    return after.slice(0, seek.limit)
  }
  const before = from._tag === 'None' ? listed : listed.filter((a) => sign * compareSortKeys(keyOf(a), from.value) < 0)
  return before.reverse().slice(0, seek.limit)
}
