import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock, IdGenerator } from '../shared/clock'
import { InFlight, inFlight, InvalidRequest, invalidRequest, problem, Unavailable } from '../shared/errors'
import { IdempotencyRecord, IdempotencyStore, LeaseHolder, Settlement, StoredOutcome } from './idempotency'

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
  readonly operation: string
  readonly key: string
  readonly fingerprint: string
}

/** What the guarded work ended with: recorded outcomes are replayed, the others release the key. */
export type Settled<Err, A> = { readonly outcome: E.Either<Err, A>; readonly record: boolean }

/** What the work runs under: the id to give what it creates, and those earlier attempts of this request gave theirs. */
export interface Reservation {
  readonly reservedId: string
  /** What carries one of these ids was created by an earlier, unfinished attempt of this very request. */
  readonly earlierIds: ReadonlyArray<string>
}

export type Guarded<Err, A> =
  | { readonly _tag: 'Fresh'; readonly outcome: E.Either<Err, A> }
  | { readonly _tag: 'Replay'; readonly stored: StoredOutcome }

const reused = () =>
  invalidRequest(
    problem('header', '/idempotency-key', 'This idempotency key was already used with a different request body', 'idempotency_key_reused'),
  )

/**
 * Runs `work` once per (merchant account, operation, key). A repeat with the same fingerprint
 * gets the stored outcome back, one with another fingerprint a 400, one that arrives while the
 * first still runs a 425. Outcomes the work marks as not to be recorded free the key.
 *
 * A claim whose process died is taken over once its lease ends; the work then learns the ids
 * the dead attempts reserved (`Reservation.earlierIds`), so that it can tell what they already
 * created from what another request did. Only the current holder of the lease may record an
 * outcome: a holder whose lease ended and was taken over hands its client the outcome the new
 * holder recorded, or a 425 until there is one, so that every answer for a key is the same.
 */
export const makeRunIdempotently =
  (deps: { store: IdempotencyStore; clock: Clock; ids: IdGenerator; config: IdempotencyConfig }) =>
  <Err, A>(
    req: IdempotentRequest,
    work: (reservation: Reservation) => Promise<Settled<Err, A>>,
    encode: (o: E.Either<Err, A>) => StoredOutcome,
  ): TE.TaskEither<InFlight | InvalidRequest | Unavailable, Guarded<Err, A>> => {
    const now = deps.clock.now()
    const key = `${req.operation}\u0000${req.key}`
    // The reserved id first: it becomes the id of what the work creates.
    const reservedId = deps.ids.uuid()
    const claim: IdempotencyRecord = {
      merchant_account_id: req.merchantAccountId,
      key,
      fingerprint: req.fingerprint,
      state: 'in_flight',
      outcome: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + deps.config.leaseS * 1000).toISOString(),
      lease: deps.ids.uuid(),
      attempt: 1,
      reserved_id: reservedId,
      // A retry within the replay period still learns what this attempt may have created.
      retain_until: new Date(now.getTime() + deps.config.replayS * 1000).toISOString(),
    }
    return pipe(
      deps.store.claim(claim, now),
      TE.flatMap((c): TE.TaskEither<InFlight | InvalidRequest | Unavailable, Guarded<Err, A>> => {
        if (!c.claimed) {
          const existing = c.existing
          if (existing.fingerprint !== req.fingerprint) return TE.left(reused())
          if (existing.state === 'in_flight' || existing.outcome === null) return TE.left(inFlight(deps.config.retryAfterS))
          return TE.right({ _tag: 'Replay', stored: existing.outcome })
        }
        const held = c.record
        const holder: LeaseHolder = {
          merchantAccountId: req.merchantAccountId,
          key,
          lease: held.lease ?? claim.lease!,
          attempt: held.attempt ?? 1,
        }
        const reservation: Reservation = { reservedId: held.reserved_id ?? reservedId, earlierIds: held.earlier_ids ?? [] }
        // A bug in `work` frees the key before the exception goes on to become a 500.
        const guardedWork = () =>
          work(reservation).catch(async (e: unknown) => {
            await deps.store.release(holder, deps.clock.now())()
            throw e
          })
        return pipe(
          TE.fromTask(guardedWork),
          TE.flatMap((settled) => {
            const fresh: Guarded<Err, A> = { _tag: 'Fresh', outcome: settled.outcome }
            if (!settled.record)
              // Refused or not, the outcome stands: it is a failure nobody records.
              return pipe(
                deps.store.release(holder, deps.clock.now()),
                TE.map((): Guarded<Err, A> => fresh),
              )
            return pipe(
              deps.store.complete(holder, encode(settled.outcome), new Date(deps.clock.now().getTime() + deps.config.replayS * 1000)),
              TE.flatMap((s) => afterRefusal(s, fresh, req.fingerprint, deps.config.retryAfterS)),
            )
          }),
        )
      }),
    )
  }

/**
 * A holder whose completion was refused lost the key to a takeover: the request's answer is
 * the one the new holder recorded, and until it records one, a 425. With the record gone, or
 * taken by another request body, nobody else answers for this request: its own outcome stands.
 */
const afterRefusal = <Err, A>(
  s: Settlement,
  fresh: Guarded<Err, A>,
  fingerprint: string,
  retryAfterS: number,
): TE.TaskEither<InFlight, Guarded<Err, A>> => {
  if (s.settled || s.current === null || s.current.fingerprint !== fingerprint) return TE.right(fresh)
  if (s.current.state === 'completed' && s.current.outcome !== null) return TE.right({ _tag: 'Replay', stored: s.current.outcome })
  return TE.left(inFlight(retryAfterS))
}
