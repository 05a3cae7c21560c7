/**
 * A storage call that did not finish within its bound. It becomes the cause of an `Unavailable`;
 * the work itself is abandoned, not undone: a write may still complete after it.
 */
export class StorageTimeout extends Error {
  override readonly name = 'StorageTimeout'
  constructor(readonly timeoutMs: number) {
    super(`storage call timed out after ${timeoutMs} ms`)
  }
}

/**
 * `work(signal)`, or a `StorageTimeout` rejection once `timeoutMs` have passed, whichever comes
 * first (no bound when `timeoutMs` is undefined). At the bound `signal` aborts (its reason is
 * the `StorageTimeout`), so that the abandoned work stops: a `BoundedCollection` issues no
 * command after it, and the driver drops what it still queued for it. The timer is cleared as
 * soon as the work settles, and the work's own late outcome is consumed, so an abandoned call
 * never surfaces as an unhandled rejection.
 */
export const withinBound = <A>(work: (signal: AbortSignal) => Promise<A>, timeoutMs: number | undefined): Promise<A> => {
  const abort = new AbortController()
  // A `work` that throws instead of returning a rejected promise rejects `running` the same way.
  const running = new Promise<A>((resolve) => {
    resolve(work(abort.signal))
  })
  if (timeoutMs === undefined) return running
  return new Promise<A>((resolve, reject) => {
    const timer = setTimeout(() => {
      const timeout = new StorageTimeout(timeoutMs)
      abort.abort(timeout)
      reject(timeout)
    }, timeoutMs)
    // Settles as the work did, unless the timeout came first (then this is a no-op).
    const settle = () => {
      clearTimeout(timer)
      resolve(running)
    }
    running.then(settle, settle)
  })
}
