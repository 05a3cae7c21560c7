import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'

export interface Admission {
  readonly admitted: boolean
  /** Requests still admissible in the current window after this one. */
  readonly remaining: number
  /** Milliseconds until the oldest counted request leaves the window (0 when none is counted). */
  readonly resetMs: number
}

/**
 * Counts requests per key over a rolling window. Admission is atomic and exact: no span of
 * `windowMs` ever admits more than `limit` requests for one key, across every process that
 * shares the store. Denied requests are not counted.
 */
export interface RateLimitStore {
  admit(key: string, limit: number, windowMs: number, now: Date): TE.TaskEither<Unavailable, Admission>
}
export const RateLimitStore = token<RateLimitStore>('RateLimitStore')
