import * as t from 'io-ts'
import * as O from 'fp-ts/Option'
import { boundedString, closed, intRange, nullable } from '../shared/codecs'

/** Position of an item in a list's total order: its sort value, then its id to break ties. */
export type SortKey = readonly [string, string]

/**
 * One keyset read: up to `limit` items strictly after (`forward`) or strictly before
 * (`backward`) `from` in the list's order, nearest first. No `from`: from the start (forward)
 * or the end (backward). Cost is independent of depth.
 */
export interface Seek {
  readonly direction: 'forward' | 'backward'
  readonly from: O.Option<SortKey>
  readonly limit: number
}

export const DEFAULT_LIMIT = 20
export const MAX_LIMIT = 100
export const Limit = intRange('limit', 1, MAX_LIMIT)
export const CursorString = boundedString('cursor', { min: 1, max: 1000 })

/** The page envelope of every list; both cursors are always sent (null when there is no such page). */
export const pageOf = <C extends t.Mixed>(name: string, item: C) =>
  closed(name, { items: t.readonlyArray(item), limit: Limit, next_cursor: nullable(CursorString), previous_cursor: nullable(CursorString) })

export interface Page<A> {
  readonly items: readonly A[]
  readonly limit: number
  readonly next_cursor: string | null
  readonly previous_cursor: string | null
}
