import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'

/**
 * Settles with `onTimeout()` if `work` has not settled within `ms`. The work gets a signal
 * that aborts at that moment, so it can drop its own timers and sockets; the timer here is
 * cleared as soon as the work settles, so nothing keeps the process alive.
 */
export const withTimeout =
  <L, A>(ms: number, onTimeout: () => L, work: (signal: AbortSignal) => Promise<E.Either<L, A>>): TE.TaskEither<L, A> =>
  () =>
    new Promise((resolve, reject) => {
      const abort = new AbortController()
      const timer = setTimeout(() => {
        abort.abort()
        resolve(E.left(onTimeout()))
      }, ms)
      work(abort.signal).then(
        (result) => {
          clearTimeout(timer)
          resolve(result)
        },
        (error: unknown) => {
          clearTimeout(timer)
          // After a timeout the work failing is expected (it was aborted) and already answered.
          if (!abort.signal.aborted) reject(error)
        },
      )
    })

/** Resolves after `ms`, or rejects as soon as `signal` aborts (clearing its timer). */
export const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason)
      return
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })

/** Never resolves; rejects when `signal` aborts. A provider that does not answer. */
export const hang = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (signal.aborted) {
      reject(signal.reason)
      return
    }
    signal.addEventListener(
      'abort',
      () => {
        reject(signal.reason)
      },
      { once: true },
    )
  })
