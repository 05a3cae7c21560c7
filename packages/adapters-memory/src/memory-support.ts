import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'

const deepFreeze = <A>(a: A): A => {
  if (typeof a === 'object' && a !== null && !Object.isFrozen(a)) {
    Object.freeze(a)
    for (const v of Object.values(a)) deepFreeze(v)
  }
  return a
}

/**
 * Stored values are copied and deep-frozen on the way in, so a read hands out the stored value
 * itself: no caller can change what the store holds (a write to it throws), and no read pays
 * for a copy.
 */
export const keep = <A>(a: A): A => deepFreeze(structuredClone(a))

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
