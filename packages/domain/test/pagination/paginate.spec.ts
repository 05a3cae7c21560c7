import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { encodeCursor } from '../../src/pagination/cursor'
import { CursorString, DEFAULT_LIMIT, Page, Seek, SortKey } from '../../src/pagination/page'
import { paginate } from '../../src/pagination/paginate'
import { invalidRequest, problem, unavailable } from '../../src/shared/errors'
import { fakeMac } from '../../src/testing/doubles'

interface Item {
  readonly id: string
  readonly v: string
}
const keyOf = (i: Item): SortKey => [i.v, i.id]
const cmp = (a: SortKey, b: SortKey) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)

/** An array-backed keyset read, as the port describes it: strictly after/before `from`, nearest first. */
const arrayStore = (items: Item[]) => {
  const sorted = [...items].sort((a, b) => cmp(keyOf(a), keyOf(b)))
  const seeks: Seek[] = []
  const read = (seek: Seek): TE.TaskEither<never, readonly Item[]> => {
    seeks.push(seek)
    const from = seek.from
    const found =
      seek.direction === 'forward'
        ? sorted.filter((i) => O.isNone(from) || cmp(keyOf(i), from.value) > 0)
        : [...sorted].reverse().filter((i) => O.isNone(from) || cmp(keyOf(i), from.value) < 0)
    return TE.right(found.slice(0, seek.limit))
  }
  return { sorted, seeks, read }
}

/** Ten items with heavy ties on the sort value: only the id orders them within a tie. */
const TIED: Item[] = [
  { id: 'j', v: 'b' },
  { id: 'a', v: 'b' },
  { id: 'c', v: 'a' },
  { id: 'h', v: 'b' },
  { id: 'b', v: 'c' },
  { id: 'e', v: 'a' },
  { id: 'd', v: 'b' },
  { id: 'g', v: 'c' },
  { id: 'f', v: 'a' },
  { id: 'i', v: 'b' },
]
const mac = fakeMac()
const SCOPE = 'things\u0000acme'

const run = async <A>(t: TE.TaskEither<unknown, A>): Promise<A> => {
  const r = await t()
  if (E.isLeft(r)) throw new Error(`unexpected failure ${JSON.stringify(r.left)}`)
  return r.right
}

describe('paginate', () => {
  const badCursor = invalidRequest(
    problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor'),
  )

  it('starts with previous_cursor null and next_cursor pointing after the last item', async () => {
    const store = arrayStore(TIED)
    const page = await run(paginate({ mac }, SCOPE, keyOf, store.read)({ limit: 3 }))
    expect(page).to.deep.equal({
      items: store.sorted.slice(0, 3),
      limit: 3,
      next_cursor: encodeCursor(mac, SCOPE, { direction: 'forward', key: keyOf(store.sorted[2]!) }),
      previous_cursor: null,
    })
  })

  it('reads one item more than the page from the start', async () => {
    const store = arrayStore(TIED)
    await run(paginate({ mac }, SCOPE, keyOf, store.read)({ limit: 3 }))
    expect(store.seeks).to.deep.equal([{ direction: 'forward', from: O.none, limit: 4 }])
  })

  it('uses a limit of 20 when none is given', async () => {
    const many = Array.from({ length: 25 }, (_, n) => ({ id: `id-${String(n).padStart(2, '0')}`, v: 'same' }))
    const store = arrayStore(many)
    const page = await run(paginate({ mac }, SCOPE, keyOf, store.read)({}))
    expect([DEFAULT_LIMIT, page.limit, page.items, store.seeks[0]!.limit]).to.deep.equal([20, 20, store.sorted.slice(0, 20), 21])
  })

  it('answers an empty list with one empty page and no cursors', async () => {
    expect(await run(paginate({ mac }, SCOPE, keyOf, arrayStore([]).read)({}))).to.deep.equal({
      items: [],
      limit: 20,
      next_cursor: null,
      previous_cursor: null,
    })
  })

  it('answers a list that fits one page with no cursors', async () => {
    const store = arrayStore(TIED)
    expect(await run(paginate({ mac }, SCOPE, keyOf, store.read)({ limit: 10 }))).to.deep.equal({
      items: store.sorted,
      limit: 10,
      next_cursor: null,
      previous_cursor: null,
    })
  })

  for (const limit of [1, 3, 4, 5, 9])
    it(`walks forward with limit ${limit} through every item once, in order, despite ties, then back through the same pages`, async () => {
      const store = arrayStore(TIED)
      const list = paginate({ mac }, SCOPE, keyOf, store.read)
      const forward: Page<Item>[] = [await run(list({ limit }))]
      while (forward[forward.length - 1]!.next_cursor !== null)
        forward.push(await run(list({ limit, cursor: forward[forward.length - 1]!.next_cursor! })))

      expect(forward.flatMap((p) => p.items)).to.deep.equal(store.sorted)
      expect(forward.map((p) => p.items.length)).to.deep.equal(
        Array.from({ length: Math.ceil(TIED.length / limit) }, (_, n) => Math.min(limit, TIED.length - n * limit)),
      )
      expect(forward[0]!.previous_cursor).to.equal(null)
      expect(forward.slice(1).every((p) => p.previous_cursor !== null)).to.equal(true)

      const back: Page<Item>[] = [forward[forward.length - 1]!]
      while (back[back.length - 1]!.previous_cursor !== null)
        back.push(await run(list({ limit, cursor: back[back.length - 1]!.previous_cursor! })))
      expect(back.reverse()).to.deep.equal(forward)
    })

  it('gives the last page next_cursor null when the list is an exact multiple of the limit, with no empty page after it', async () => {
    const store = arrayStore(TIED.slice(0, 9))
    const list = paginate({ mac }, SCOPE, keyOf, store.read)
    const p1 = await run(list({ limit: 3 }))
    const p2 = await run(list({ limit: 3, cursor: p1.next_cursor! }))
    const p3 = await run(list({ limit: 3, cursor: p2.next_cursor! }))
    expect([p3.items, p3.next_cursor]).to.deep.equal([store.sorted.slice(6, 9), null])
  })

  it("seeks from the cursor item in the cursor's direction", async () => {
    const store = arrayStore(TIED)
    const list = paginate({ mac }, SCOPE, keyOf, store.read)
    const p1 = await run(list({ limit: 2 }))
    const p2 = await run(list({ limit: 2, cursor: p1.next_cursor! }))
    await run(list({ limit: 2, cursor: p2.previous_cursor! }))
    expect(store.seeks).to.deep.equal([
      { direction: 'forward', from: O.none, limit: 3 },
      { direction: 'forward', from: O.some(keyOf(store.sorted[1]!)), limit: 3 },
      { direction: 'backward', from: O.some(keyOf(store.sorted[2]!)), limit: 3 },
    ])
  })

  it("issues cursors within the page envelope's 1-1000 characters", async () => {
    const store = arrayStore([{ id: 'fe26475d-ec3e-4884-9553-f7356683f7f9', v: '2025-01-01T00:00:00.000Z' }, ...TIED])
    const page = await run(paginate({ mac }, SCOPE, keyOf, store.read)({ limit: 1 }))
    expect(CursorString.is(page.next_cursor)).to.equal(true)
  })

  describe('rejects a cursor it did not issue for this list with InvalidRequest at query /cursor', () => {
    const valid = encodeCursor(mac, SCOPE, { direction: 'forward', key: ['b', 'd'] })
    const [body, sig] = valid.split('.') as [string, string]
    const cases: [string, string][] = [
      ['a cursor with an edited body', `${Buffer.from(JSON.stringify(['f', 'b', 'e'])).toString('base64url')}.${sig}`],
      ['a cursor with an edited MAC', `${body}.${sig.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`],
      ['a cursor issued for another merchant account', encodeCursor(mac, 'things\u0000globex', { direction: 'forward', key: ['b', 'd'] })],
      ['a cursor issued for another list', encodeCursor(mac, 'others\u0000acme', { direction: 'forward', key: ['b', 'd'] })],
      ['a cursor signed with another key', encodeCursor(fakeMac('k2'), SCOPE, { direction: 'forward', key: ['b', 'd'] })],
      ['a cursor without a MAC', body],
      ['a cursor that is only a MAC', `.${sig}`],
      ['a random string', 'not-a-cursor'],
    ]
    for (const [name, cursor] of cases)
      it(`rejects ${name} without reading`, async () => {
        const store = arrayStore(TIED)
        expect(await paginate({ mac }, SCOPE, keyOf, store.read)({ cursor })()).to.deep.equal(E.left(badCursor))
        expect(store.seeks).to.deep.equal([])
      })
  })

  it('passes a failing read on unchanged', async () => {
    const boom = unavailable(new Error('down'))
    expect(await paginate({ mac }, SCOPE, keyOf, () => TE.left(boom))({})()).to.deep.equal(E.left(boom))
  })
})
