import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock } from '../shared/clock'
import { InFlight, inFlight, InvalidRequest, invalidRequest, problem, Unavailable } from '../shared/errors'
import { IdempotencyRecord, IdempotencyStore, StoredOutcome } from './idempotency'

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
 */
export const makeRunIdempotently =
  (deps: { store: IdempotencyStore; clock: Clock; config: IdempotencyConfig }) =>
  <Err, A>(
    req: IdempotentRequest,
    work: () => Promise<Settled<Err, A>>,
    encode: (o: E.Either<Err, A>) => StoredOutcome,
  ): TE.TaskEither<InFlight | InvalidRequest | Unavailable, Guarded<Err, A>> => {
    const now = deps.clock.now()
    const key = `${req.operation}\u0000${req.key}`
    const claim: IdempotencyRecord = {
      merchant_account_id: req.merchantAccountId,
      key,
      fingerprint: req.fingerprint,
      state: 'in_flight',
      outcome: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + deps.config.leaseS * 1000).toISOString(),
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
        // A bug in `work` frees the key before the exception goes on to become a 500.
        const guardedWork = () =>
          work().catch(async (e: unknown) => {
            await deps.store.release(req.merchantAccountId, key)()
            throw e
          })
        return pipe(
          TE.fromTask(guardedWork),
          TE.flatMap((settled) => {
            const finish = settled.record
              ? deps.store.complete(
                  req.merchantAccountId,
                  key,
                  encode(settled.outcome),
                  new Date(deps.clock.now().getTime() + deps.config.replayS * 1000),
                )
              : deps.store.release(req.merchantAccountId, key)
            return pipe(
              finish,
              TE.map((): Guarded<Err, A> => ({ _tag: 'Fresh', outcome: settled.outcome })),
            )
          }),
        )
      }),
    )
  }
