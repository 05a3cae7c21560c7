import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Seek, SortKey } from '../pagination/page'
import { uuidFor } from './fixtures'
import { at } from './harness'

/** How one list of a port is ordered and read, for the shared keyset cases. */
export interface KeysetList<A> {
  /** Direction of the list's order over (sort value, id). */
  readonly order: 'ascending' | 'descending'
  /** Whether two items may share a sort value (role slugs are unique, so they cannot). */
  readonly ties: boolean
  /** A storable item with this sort value and id. */
  make(sortValue: string, id: string): A
  keyOf(a: A): SortKey
  /** The i-th sort value: increasing in i under plain string comparison. */
  sortValue(i: number): string
  store(items: readonly A[]): Promise<void>
  read(seek: Seek): Promise<readonly A[]>
}

const compareKeys = (a: SortKey, b: SortKey) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)

/**
 * The cases every keyset `list(seek)` must pass: nearest first, strictly after or before the
 * key, limit respected, the end reachable with no key, ties broken by id.
 */
export const keysetBehaviour = <A>(l: KeysetList<A>) =>
  describe('keyset reads', () => {
    // [sort value index, id number]; the v2 and v5 groups share their sort value.
    const shape: [number, number][] = l.ties
      ? [
          [0, 5],
          [1, 3],
          [2, 9],
          [2, 2],
          [2, 7],
          [3, 1],
          [4, 8],
          [5, 4],
          [5, 6],
        ]
      : [
          [0, 5],
          [1, 3],
          [2, 9],
          [3, 1],
          [4, 8],
          [5, 4],
        ]
    const sign = l.order === 'ascending' ? 1 : -1
    const inListOrder = (a: SortKey, b: SortKey) => sign * compareKeys(a, b)
    let expected: A[]

    beforeEach(async () => {
      // Stored in an order that is neither the list's nor its reverse.
      const scrambled = [...shape].sort(([, a], [, b]) => ((a * 7) % 11) - ((b * 7) % 11))
      const items = scrambled.map(([v, id]) => l.make(l.sortValue(v), uuidFor(id)))
      await l.store(items)
      expected = [...items].sort((a, b) => inListOrder(l.keyOf(a), l.keyOf(b)))
    })

    const forward = (from: O.Option<SortKey>, limit: number): Seek => ({ direction: 'forward', from, limit })
    const backward = (from: O.Option<SortKey>, limit: number): Seek => ({ direction: 'backward', from, limit })

    it(`forward from no key lists every item in ${l.order} (sort value, id) order`, async () => {
      expect(await l.read(forward(O.none, 100))).to.deep.equal(expected)
    })

    it('forward from no key stops at the limit', async () => {
      expect(await l.read(forward(O.none, 3))).to.deep.equal(expected.slice(0, 3))
      expect(await l.read(forward(O.none, 1))).to.deep.equal(expected.slice(0, 1))
    })

    it('backward from no key starts from the end, nearest first', async () => {
      expect(await l.read(backward(O.none, 100))).to.deep.equal([...expected].reverse())
      expect(await l.read(backward(O.none, 2))).to.deep.equal([...expected].reverse().slice(0, 2))
    })

    it('forward from a key returns only items strictly after it, nearest first, up to the limit', async () => {
      for (const [i, item] of expected.entries()) {
        const key = O.some(l.keyOf(item))
        expect(await l.read(forward(key, 100)), `after item ${i}`).to.deep.equal(expected.slice(i + 1))
        expect(await l.read(forward(key, 2)), `2 after item ${i}`).to.deep.equal(expected.slice(i + 1, i + 3))
      }
    })

    it('backward from a key returns only items strictly before it, nearest first, up to the limit', async () => {
      for (const [i, item] of expected.entries()) {
        const key = O.some(l.keyOf(item))
        expect(await l.read(backward(key, 100)), `before item ${i}`).to.deep.equal(expected.slice(0, i).reverse())
        expect(await l.read(backward(key, 2)), `2 before item ${i}`).to.deep.equal(expected.slice(Math.max(0, i - 2), i).reverse())
      }
    })

    it('seeks from a key that matches no stored item', async () => {
      for (const key of [
        [l.sortValue(2), uuidFor(5)],
        [l.sortValue(6), uuidFor(0)],
        [l.sortValue(0), uuidFor(0)],
      ] as SortKey[]) {
        const after = expected.filter((a) => inListOrder(l.keyOf(a), key) > 0)
        const before = expected.filter((a) => inListOrder(l.keyOf(a), key) < 0).reverse()
        expect(await l.read(forward(O.some(key), 100)), `after ${key.join()}`).to.deep.equal(after)
        expect(await l.read(backward(O.some(key), 100)), `before ${key.join()}`).to.deep.equal(before)
      }
    })

    it('reads nothing past either end', async () => {
      expect(await l.read(forward(O.some(l.keyOf(at(expected, expected.length - 1))), 10))).to.deep.equal([])
      expect(await l.read(backward(O.some(l.keyOf(at(expected, 0))), 10))).to.deep.equal([])
    })

    if (l.ties)
      it(`breaks ties on the sort value by id, ${l.order}`, async () => {
        const ids = (await l.read(forward(O.none, 100))).filter((a) => l.keyOf(a)[0] === l.sortValue(2)).map((a) => l.keyOf(a)[1])
        expect(ids).to.deep.equal(l.order === 'ascending' ? [uuidFor(2), uuidFor(7), uuidFor(9)] : [uuidFor(9), uuidFor(7), uuidFor(2)])
      })
  })
