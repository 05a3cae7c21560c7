import { WebhookAttemptError } from '@orka/domain'

/** How one outbound request can fail before an answer is read. */
export type FailureKind = Extract<
  WebhookAttemptError,
  'timeout' | 'connection_failed' | 'blocked_address' | 'unresolvable_host' | 'https_required'
>

export class OutboundFailure extends Error {
  constructor(readonly kind: FailureKind) {
    super(kind)
  }
}

/**
 * Rejects with a timeout once `signal` aborts, for work that cannot be cancelled itself (a DNS
 * lookup, a token fetch shared with another attempt); the listener goes when `p` settles.
 */
export const orAbort = <T>(p: Promise<T>, signal: AbortSignal): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      reject(new OutboundFailure('timeout'))
    }
    if (signal.aborted) {
      onAbort()
      return
    }
    signal.addEventListener('abort', onAbort, { once: true })
    p.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort)
    })
  })
