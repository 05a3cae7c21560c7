import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'

/** `value` itself when it is an Error (an AbortError is one); otherwise an Error that carries it as its cause. */
const asError = (value: unknown, message: string): Error => (value instanceof Error ? value : new Error(message, { cause: value }))

/** Why `signal` aborted, as an Error (the default reason, an AbortError DOMException, already is one). */
const abortReason = (signal: AbortSignal): Error => asError(signal.reason, 'The operation was aborted')

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
          if (!abort.signal.aborted) reject(asError(error, 'The work failed with a value that is not an Error'))
        },
      )
    })

/** Resolves after `ms`, or rejects as soon as `signal` aborts (clearing its timer). */
export const delay = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal))
      return
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(abortReason(signal))
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })

/** Never resolves; rejects when `signal` aborts. A provider that does not answer. */
export const hang = (signal: AbortSignal): Promise<never> =>
  new Promise((_, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal))
      return
    }
    signal.addEventListener(
      'abort',
      () => {
        reject(abortReason(signal))
      },
      { once: true },
    )
  })
