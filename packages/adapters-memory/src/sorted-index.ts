import { compareSortKeys, Seek, SortKey } from '@orka/domain'

/**
 * Items kept in their list's order (ascending `SortKey`), so that a keyset read seeks by binary
 * search and walks from there, as a database index does, instead of sorting the collection for
 * every page. A key is unique (it ends with the id) and never changes for an item.
 */
export class SortedIndex<A> {
  private readonly items: A[] = []
  constructor(private readonly keyOf: (a: A) => SortKey) {}

  /** Adds the item, or replaces the one with its key. */
  put(a: A): void {
    const key = this.keyOf(a)
    const i = this.lowerBound(key)
    const same = i < this.items.length && compareSortKeys(this.keyOf(this.items[i] as A), key) === 0
    this.items.splice(i, same ? 1 : 0, a)
  }

  remove(key: SortKey): void {
    const i = this.lowerBound(key)
    if (i < this.items.length && compareSortKeys(this.keyOf(this.items[i] as A), key) === 0) this.items.splice(i, 1)
  }

  get size(): number {
    return this.items.length
  }

  /**
   * What `seekIn` means over the list in `order`, for the items `keep` admits: up to `limit`
   * of them after (`forward`) or before (`backward`) `from`, nearest first. Costs a binary
   * search plus the items walked past, as a filtered index scan does.
   */
  seek(order: 'ascending' | 'descending', seek: Seek, keep: (a: A) => boolean = () => true): A[] {
    const up = (order === 'ascending') === (seek.direction === 'forward')
    const from = seek.from
    let i = up
      ? from._tag === 'None'
        ? 0
        : this.upperBound(from.value)
      : (from._tag === 'None' ? this.items.length : this.lowerBound(from.value)) - 1
    const out: A[] = []
    for (; i >= 0 && i < this.items.length && out.length < seek.limit; i += up ? 1 : -1) {
      const a = this.items[i] as A
      if (keep(a)) out.push(a)
    }
    return out
  }

  /** The first position whose key is not below `key`. */
  private lowerBound(key: SortKey): number {
    let [lo, hi] = [0, this.items.length]
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (compareSortKeys(this.keyOf(this.items[mid] as A), key) < 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  /** The first position whose key is above `key`. */
  private upperBound(key: SortKey): number {
    let [lo, hi] = [0, this.items.length]
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (compareSortKeys(this.keyOf(this.items[mid] as A), key) <= 0) lo = mid + 1
      else hi = mid
    }
    return lo
  }
}
