import { expect } from 'chai'
import fc from 'fast-check'
import * as O from 'fp-ts/Option'
import { Seek, seekIn, SortKey } from '@orka/domain'
import { SortedIndex } from '../src/sorted-index'

interface Item {
  readonly at: string
  readonly id: string
  readonly n: number
}
const keyOf = (i: Item): SortKey => [i.at, i.id]

const item = fc.record({ at: fc.constantFrom('a', 'b', 'c', 'd'), id: fc.constantFrom('1', '2', '3', '4', '5'), n: fc.nat(9) })
const seek: fc.Arbitrary<Seek> = fc.record({
  direction: fc.constantFrom('forward' as const, 'backward' as const),
  from: fc
    .option(fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e'), fc.constantFrom('0', '1', '3', '6')), { nil: undefined })
    .map((k) => (k === undefined ? O.none : O.some(k as SortKey))),
  limit: fc.integer({ min: 1, max: 8 }),
})

describe('SortedIndex', () => {
  it('reads every seek as seekIn does over the same items, through puts, replacements and removals', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.boolean(), item), { maxLength: 40 }),
        seek,
        fc.constantFrom('ascending' as const, 'descending' as const),
        fc.nat(9),
        (ops, s, order, odd) => {
          const index = new SortedIndex(keyOf)
          const model = new Map<string, Item>()
          for (const [remove, i] of ops) {
            const k = JSON.stringify(keyOf(i))
            if (remove) {
              index.remove(keyOf(i))
              model.delete(k)
            } else {
              index.put(i)
              model.set(k, i)
            }
          }
          const keep = (i: Item) => i.n !== odd
          expect(index.size).to.equal(model.size)
          expect(index.seek(order, s, keep)).to.deep.equal(seekIn([...model.values()].filter(keep), keyOf, order, s))
        },
      ),
      { numRuns: 2000 },
    )
  })
})
