import * as t from 'io-ts'
import * as TE from 'fp-ts/TaskEither'
import { nullable, oneOf, str } from '../shared/codecs'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'

/**
 * What a finished request left behind: its success value or the failure to replay. Stored as
 * plain JSON; the use case that owns the key decodes it with its own codec.
 */
export const StoredOutcome = t.union([
  t.type({ ok: t.literal(true), value: t.unknown }),
  t.type({ ok: t.literal(false), error: t.unknown }),
])
export type StoredOutcome = t.TypeOf<typeof StoredOutcome>

export const IdempotencyRecord = t.type({
  merchant_account_id: str,
  /** Operation and client key, e.g. `POST /gift-cards/activations\u0000<key>`. */
  key: str,
  /** Keyed MAC of the canonical request: never the request itself, which holds card data. */
  fingerprint: str,
  state: oneOf('IdempotencyState', ['in_flight', 'completed'] as const),
  outcome: nullable(StoredOutcome),
  created_at: str,
  /** In flight: the lease after which another request may take the key over; completed: end of replay. */
  expires_at: str,
})
export type IdempotencyRecord = t.TypeOf<typeof IdempotencyRecord>

export type Claim = { readonly claimed: true } | { readonly claimed: false; readonly existing: IdempotencyRecord }

export interface IdempotencyStore {
  /**
   * Atomically takes the key with an in-flight record, or returns the live record holding it.
   * A record whose `expires_at` is not after `now` counts as absent and is replaced.
   */
  claim(record: IdempotencyRecord, now: Date): TE.TaskEither<Unavailable, Claim>
  /** Stores the outcome of the claimed key and how long it is replayed. */
  complete(merchantAccountId: string, key: string, outcome: StoredOutcome, expiresAt: Date): TE.TaskEither<Unavailable, void>
  /** Gives the key up without an outcome, so the request may be retried. */
  release(merchantAccountId: string, key: string): TE.TaskEither<Unavailable, void>
}
export const IdempotencyStore = token<IdempotencyStore>('IdempotencyStore')
