import * as t from 'io-ts'
import { closed, intRange, nullable, oneOf, str } from '../shared/codecs'

/**
 * What a finished request left behind: its success value or the failure to replay. Stored as
 * plain JSON; the use case that owns the key decodes it with its own codec.
 */
export const StoredOutcome = t.union([
  t.type({ ok: t.literal(true), value: t.unknown }),
  t.type({ ok: t.literal(false), error: t.unknown }),
])
export type StoredOutcome = t.TypeOf<typeof StoredOutcome>

/** How many ids of earlier attempts a record remembers (see `earlier_ids`). */
export const EARLIER_IDS_KEPT = 32

export const IdempotencyRecord = closed(
  'IdempotencyRecord',
  {
    merchant_account_id: str,
    /** Operation and client key, e.g. `gift-card-activation\u0000<key>`. */
    key: str,
    /** Keyed MAC of the canonical request: never the request itself, which holds card data. */
    fingerprint: str,
    state: oneOf('IdempotencyState', ['in_flight', 'completed'] as const),
    outcome: nullable(StoredOutcome),
    created_at: str,
    /** In flight: the lease after which another request may take the key over; completed: end of replay. */
    expires_at: str,
  },
  {
    // Optional so that records written before leases existed still read back.
    /** The holder's token: only it may complete or release the record (with `attempt`). */
    lease: str,
    /** How many claims the key has had, this one included: 1, then one more per takeover. */
    attempt: intRange('attempt', 1),
    /** The id this attempt gives what it creates (a vaulted card), drawn before the claim. */
    reserved_id: str,
    /**
     * The `reserved_id`s of earlier attempts of the same request (same fingerprint) that never
     * finished, newest first, at most `EARLIER_IDS_KEPT`: what carries one of them was created
     * by this very request, so a retry answers with it instead of calling it a duplicate.
     */
    earlier_ids: t.array(str),
    /**
     * Until when the store keeps the record after its lease ended, so that a retry of the same
     * request, however late, still learns `earlier_ids`. Never makes the record live again.
     */
    retain_until: str,
  },
)
export type IdempotencyRecord = t.TypeOf<typeof IdempotencyRecord>

/** The record a store keeps when `next` takes over the expired `previous` (the rule every store applies). */
export const takeOver = (previous: IdempotencyRecord, next: IdempotencyRecord): IdempotencyRecord => {
  const attempt = (previous.attempt ?? 1) + 1
  // Only an unfinished attempt of the very same request hands its ids on: after a completed
  // record's replay period, or for another request body, what exists is not this request's.
  if (previous.state !== 'in_flight' || previous.fingerprint !== next.fingerprint) return { ...next, attempt }
  const earlier = [...(previous.reserved_id === undefined ? [] : [previous.reserved_id]), ...(previous.earlier_ids ?? [])]
  return { ...next, attempt, earlier_ids: earlier.filter((id) => id !== next.reserved_id).slice(0, EARLIER_IDS_KEPT) }
}

/** Until when a store keeps a record: its expiry, or an in-flight one's `retain_until` if later. */
export const keptUntil = (r: IdempotencyRecord): string =>
  r.state === 'in_flight' && r.retain_until !== undefined && Date.parse(r.retain_until) > Date.parse(r.expires_at)
    ? r.retain_until
    : r.expires_at
