import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Mac } from '../shared/crypto.ports'
import { InvalidRequest } from '../shared/errors'
import { decodeCursor, encodeCursor } from './cursor'
import { DEFAULT_LIMIT, Page, Seek, SortKey } from './page'

export interface PageQuery {
  readonly limit?: number
  readonly cursor?: string
}

/**
 * Keyset pagination over any list: reads one item more than the page to learn whether
 * another page lies beyond, and turns the first and last items into cursors. Walking
 * forward then back gives the same pages because both directions seek from an item's key.
 */
export const paginate =
  <A, Err>(deps: { mac: Mac }, scope: string, keyOf: (a: A) => SortKey, read: (seek: Seek) => TE.TaskEither<Err, readonly A[]>) =>
  (q: PageQuery): TE.TaskEither<Err | InvalidRequest, Page<A>> =>
  // Every list request runs this: one async step, not a chain of them.
  async () => {
    const limit = q.limit ?? DEFAULT_LIMIT
    const at = q.cursor === undefined ? E.right(undefined) : decodeCursor(deps.mac, scope, q.cursor)
    if (E.isLeft(at)) return at
    const pos = at.right
    const seek: Seek = pos
      ? { direction: pos.direction, from: O.some(pos.key), limit: limit + 1 }
      : { direction: 'forward', from: O.none, limit: limit + 1 }
    const found = await read(seek)()
    if (E.isLeft(found)) return found
    const more = found.right.length > limit
    const window = found.right.slice(0, limit)
    const items = seek.direction === 'forward' ? window : [...window].reverse()
    const first = items[0]
    const last = items[items.length - 1]
    // Forward: a page before exists iff we came from a cursor; backward: iff we saw one more.
    const hasPrevious = seek.direction === 'forward' ? pos !== undefined : more
    const hasNext = seek.direction === 'forward' ? more : true
    const cursor = (direction: Seek['direction'], a: A | undefined) =>
      a === undefined ? null : encodeCursor(deps.mac, scope, { direction, key: keyOf(a) })
    return E.right({
      items,
      limit,
      next_cursor: hasNext ? cursor('forward', last) : null,
      previous_cursor: hasPrevious ? cursor('backward', first) : null,
    })
  }
