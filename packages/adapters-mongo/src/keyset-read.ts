import * as O from 'fp-ts/Option'
import { Seek } from '@orka/domain'

/** A query's filter, sort and limit. */
export interface ReadPlan {
  readonly filter: Record<string, unknown>
  readonly sort: Record<string, 1 | -1>
  readonly limit: number
}

/**
 * One keyset read over (`field`, `_id`) as `Seek` defines it, for a list in `order`. Strictly
 * after a key in a descending list is `field < v OR (field = v AND _id < id)`, read in
 * descending order; backward is the mirror image, read in the other direction so the nearest
 * items come first. With an index on (..., field, _id) in either direction, MongoDB starts the
 * index scan at the key and reads about `limit` entries whatever the key's depth.
 */
export const keysetRead = (field: string, order: 'ascending' | 'descending', seek: Seek, tiebreak = '_id'): ReadPlan => {
  const dir: 1 | -1 = (order === 'ascending') === (seek.direction === 'forward') ? 1 : -1
  const [op, bound] = dir === 1 ? ['$gt', '$gte'] : ['$lt', '$lte']
  const filter = O.isSome(seek.from)
    ? {
        // Implied by the $or; stated so that the planner has a range on `field` to start the index scan at.
        [field]: { [bound]: seek.from.value[0] },
        $or: [{ [field]: { [op]: seek.from.value[0] } }, { [field]: seek.from.value[0], [tiebreak]: { [op]: seek.from.value[1] } }],
      }
    : {}
  return { filter, sort: { [field]: dir, [tiebreak]: dir }, limit: seek.limit }
}
