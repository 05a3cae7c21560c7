import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'

/** Stored values are cloned on the way in and out, so no caller can reach into the store. */
export const copy = <A>(a: A): A => structuredClone(a)

/**
 * Runs `f` synchronously when the task starts: a check-then-write inside `f` cannot interleave
 * with another call, which is what makes the memory adapters atomic.
 */
export const atomically =
  <L, A>(f: () => E.Either<L, A>): TE.TaskEither<L, A> =>
  () =>
    new Promise((resolve) => {
      resolve(f())
    })
