import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { IdempotencyRecord, StoredOutcome } from './idempotency'

/** A claim won carries the record as stored: with a takeover, its attempt and earlier ids. */
export type Claim =
  { readonly claimed: true; readonly record: IdempotencyRecord } | { readonly claimed: false; readonly existing: IdempotencyRecord }

/** Who may finish a claimed key: the lease token and attempt of the claim that took it. */
export interface LeaseHolder {
  readonly merchantAccountId: string
  readonly key: string
  readonly lease: string
  readonly attempt: number
}

/**
 * Whether a holder's `complete` or `release` took effect. Refused when the holder no longer
 * holds the key (its lease ended and another request took the key over, or the record is
 * gone): `current` is the record as it is now, if any, and the store left it unchanged.
 */
export type Settlement = { readonly settled: true } | { readonly settled: false; readonly current: IdempotencyRecord | null }

export interface IdempotencyStore {
  /**
   * Atomically takes the key with an in-flight record, or returns the live record holding it.
   * A record whose `expires_at` is not after `now` counts as absent and is replaced by
   * `takeOver(existing, record)`; the claim answers with the record as stored.
   */
  claim(record: IdempotencyRecord, now: Date): TE.TaskEither<Unavailable, Claim>
  /**
   * Stores the outcome and how long it is replayed, only if `holder` still holds the key (its
   * lease and attempt are the record's, even once the lease ended, as long as nobody took over).
   */
  complete(holder: LeaseHolder, outcome: StoredOutcome, expiresAt: Date): TE.TaskEither<Unavailable, Settlement>
  /**
   * Gives the key up without an outcome, so the request may be retried: only if `holder` still
   * holds it in flight. The lease ends at `now`; the record stays (until its `retain_until`)
   * for the retry to take over with its ids.
   */
  release(holder: LeaseHolder, now: Date): TE.TaskEither<Unavailable, Settlement>
  /**
   * The record under the key as stored, live or not, until the store drops it (after its
   * `keptUntil`). Changes nothing: for operators, tests, and a store's own reading of the records
   * an earlier version kept under another operation name.
   */
  find(merchantAccountId: string, key: string): TE.TaskEither<Unavailable, O.Option<IdempotencyRecord>>
}
export const IdempotencyStore = token<IdempotencyStore>('IdempotencyStore')
