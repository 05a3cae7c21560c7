import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { InFlight, inFlight, InvalidRequest, invalidRequest, problem, Unavailable, unavailable } from '../shared/errors'
import { IdempotencyRecord, StoredOutcome } from './idempotency'
import { IdempotencyStore, LeaseHolder } from './idempotency.ports'

export interface IdempotencyConfig {
  /** How long a completed request is replayed. */
  readonly replayS: number
  /** How long an in-flight claim holds the key if its process never finishes it. */
  readonly leaseS: number
  /** Retry-After sent with 425 while the first request runs. */
  readonly retryAfterS: number
}

export interface IdempotentRequest {
  readonly merchantAccountId: string
  /**
   * A name of the domain's (`gift-card-activation`): part of every stored record's key. A store
   * that kept records under another name before (an earlier version's) maps it where it reads them.
   */
  readonly operation: string
  readonly key: string
  readonly fingerprint: string
}

/** What the work runs under: the id to give what it creates, and those earlier attempts of this request gave theirs. */
export interface Reservation {
  readonly reservedId: string
  /** What carries one of these ids was created by an earlier, unfinished attempt of this very request. */
  readonly earlierIds: readonly string[]
}

/** What the work ended with, and whether that is kept under the key (replayed) or frees it for a retry. */
export interface Attempted<Err, A> {
  readonly outcome: E.Either<Err, A>
  readonly recorded: boolean
}

/** How the owner of the key stores a recorded outcome, and reads it back for a replay. */
export interface OutcomeCodec<Err, A> {
  readonly encode: (outcome: E.Either<Err, A>) => StoredOutcome
  /** A replayed failure comes back as the owner wants it answered (e.g. marked as replayed). */
  readonly decode: (stored: StoredOutcome) => E.Either<Err | Unavailable, A>
}

/**
 * How a write's recorded outcome is stored and read back for a replay: the value itself (as
 * `codec` encodes it), or a failure the use case chose to record, which `replayed` turns into
 * its answer.
 */
export const recordedOutcomeCodec = <Err, A>(
  codec: t.Type<A, unknown>,
  replayed: (error: unknown) => Err | Unavailable,
): OutcomeCodec<Err, A> => ({
  encode: (outcome) => (E.isRight(outcome) ? { ok: true, value: codec.encode(outcome.right) } : { ok: false, error: outcome.left }),
  decode: (stored) =>
    stored.ok
      ? E.mapLeft(() => unavailable(new Error(`a recorded ${codec.name} does not decode`)))(codec.decode(stored.value))
      : E.left(replayed(stored.error)),
})

/** The request's answer: the work's own, or one replayed from the record. */
export interface Answered<A> {
  readonly value: A
  readonly replayed: boolean
}

/** The problem `type` of a request that reuses an idempotency key with another body. */
export const IDEMPOTENCY_KEY_REUSED = 'idempotency_key_reused'

const reused = () =>
  invalidRequest(
    problem('idempotencyKey', [], 'This idempotency key was already used with a different request body', IDEMPOTENCY_KEY_REUSED),
  )

/** How a request under a key is refused before its work runs. */
export type IdempotencyRefusal = InFlight | InvalidRequest | Unavailable

/**
 * Runs `work` once per (merchant account, operation, key). A repeat with the same fingerprint
 * gets the stored outcome back, one with another fingerprint a 400, one that arrives while the
 * first still runs a 425. An outcome the work does not mark as recorded frees the key.
 *
 * `authorize` runs first, before the record is claimed or looked up: a caller who may not make
 * the request gets the refusal a fresh key gets, learns nothing of an earlier answer, and
 * leaves the record as it was. A request's key and body are the client's to choose, so they
 * say nothing of who may read what was answered under them.
 *
 * A claim whose process died is taken over once its lease ends; the work then learns the ids
 * the dead attempts reserved (`Reservation.earlierIds`), so that it can tell what they already
 * created from what another request did. Only the current holder of the lease may record an
 * outcome: a holder whose lease was taken over hands its client the outcome the new holder
 * recorded, or a 425 until there is one, so that every answer for a key is the same.
 */
export const makeRunIdempotently =
  (deps: { store: IdempotencyStore; clock: Clock; ids: IdGenerator; config: IdempotencyConfig }) =>
  <Denied, Err, A>(
    req: IdempotentRequest,
    authorize: TE.TaskEither<Denied, void>,
    work: (reservation: Reservation) => Promise<Attempted<Err, A>>,
    codec: OutcomeCodec<Err, A>,
  ): TE.TaskEither<Denied | Err | IdempotencyRefusal, Answered<A>> =>
  async () => {
    const allowed = await authorize()
    if (E.isLeft(allowed)) return allowed
    const now = deps.clock.now()
    const key = `${req.operation}\u0000${req.key}`
    // The reserved id first: it becomes the id of what the work creates.
    const reservedId = deps.ids.uuid()
    const lease = deps.ids.uuid()
    const claim: IdempotencyRecord = {
      merchant_account_id: req.merchantAccountId,
      key,
      fingerprint: req.fingerprint,
      state: 'in_flight',
      outcome: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + deps.config.leaseS * 1000).toISOString(),
      lease,
      attempt: 1,
      reserved_id: reservedId,
      // A retry within the replay period still learns what this attempt may have created.
      retain_until: new Date(now.getTime() + deps.config.replayS * 1000).toISOString(),
    }
    const fresh = (outcome: E.Either<Err, A>) => E.map((value: A): Answered<A> => ({ value, replayed: false }))(outcome)
    /** The answer a live record of this request gives: its outcome replayed once there is one. */
    const replayOf = (r: IdempotencyRecord): E.Either<Err | IdempotencyRefusal, Answered<A>> =>
      r.state === 'completed' && r.outcome !== null
        ? E.map((value: A): Answered<A> => ({ value, replayed: true }))(codec.decode(r.outcome))
        : E.left(inFlight(deps.config.retryAfterS))

    const claimed = await deps.store.claim(claim, now)()
    if (E.isLeft(claimed)) return claimed
    if (!claimed.right.claimed) {
      const existing = claimed.right.existing
      return existing.fingerprint === req.fingerprint ? replayOf(existing) : E.left(reused())
    }

    const held = claimed.right.record
    const holder: LeaseHolder = {
      merchantAccountId: req.merchantAccountId,
      key,
      lease: held.lease ?? lease,
      attempt: held.attempt ?? 1,
    }
    const reservation: Reservation = {
      reservedId: held.reserved_id ?? reservedId,
      earlierIds: held.earlier_ids ?? [],
    }
    const attempted = await work(reservation).catch(async (e: unknown) => {
      // A bug in `work` frees the key before the exception goes on to become a 500.
      await deps.store.release(holder, deps.clock.now())()
      throw e
    })

    if (!attempted.recorded) {
      // Refused or not, the outcome stands: it is a failure nobody records.
      const released = await deps.store.release(holder, deps.clock.now())()
      return E.isLeft(released) ? released : fresh(attempted.outcome)
    }
    const expiresAt = new Date(deps.clock.now().getTime() + deps.config.replayS * 1000)
    const settled = await deps.store.complete(holder, codec.encode(attempted.outcome), expiresAt)()
    if (E.isLeft(settled)) return settled
    // Refused: a takeover took the key, and the request's answer is the one the new holder
    // records (a 425 until it has). With the record gone, or taken by another request body,
    // nobody else answers for this request: its own outcome stands.
    const s = settled.right
    if (s.settled || s.current?.fingerprint !== req.fingerprint) return fresh(attempted.outcome)
    return replayOf(s.current)
  }
