import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Unavailable, unavailable } from '@orka/domain'
import { withinBound } from './storage-bound'

/** How an adapter runs its driver interactions: within its store's bound, failures as `Unavailable`. */
export interface StorageCalls {
  /**
   * Runs a driver interaction: whatever it throws (driver error, undecodable document) is
   * `Unavailable`, and so is taking longer than the store's bound (cause `StorageTimeout`):
   * a frozen server costs a request that bound, not the driver's own timeouts. The interaction
   * reaches its collections through the signal it is given (`StoredCollection.within`), so
   * nothing it would still do after the bound is done.
   */
  attempt<A>(f: (signal: AbortSignal) => Promise<A>): TE.TaskEither<Unavailable, A>
  /** The same, for an interaction that can also end in an expected failure. */
  attemptEither<L, A>(f: (signal: AbortSignal) => Promise<E.Either<L, A>>): TE.TaskEither<L | Unavailable, A>
  /** The bounded interaction as a promise (rejected with what it threw, or the `StorageTimeout`): for housekeeping such as sweeps. */
  run<A>(f: (signal: AbortSignal) => Promise<A>): Promise<A>
}

/** The calls of a store with this bound (`operationTimeoutMs`; none for stores opened without one). */
export const storageCalls = (store: { readonly operationTimeoutMs: number | undefined }): StorageCalls => {
  const attempt = <A>(f: (signal: AbortSignal) => Promise<A>): TE.TaskEither<Unavailable, A> =>
    TE.tryCatch(() => withinBound(f, store.operationTimeoutMs), unavailable)
  return {
    attempt,
    run: (f) => withinBound(f, store.operationTimeoutMs),
    attemptEither: <L, A>(f: (signal: AbortSignal) => Promise<E.Either<L, A>>): TE.TaskEither<L | Unavailable, A> =>
      pipe(
        attempt(f),
        TE.flatMap((r): TE.TaskEither<L | Unavailable, A> => TE.fromEither(r)),
      ),
  }
}
