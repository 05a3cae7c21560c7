import { NotSent } from './provider-http'

/** How many calls one connector has in flight to its provider at most, unless the operator says (`CONNECTOR_MAX_CONNECTIONS`). */
export const DEFAULT_MAX_CONNECTIONS = 32

/**
 * At most `limit` calls of one connector in flight to its provider from this process (so at
 * most that many connections to it): a provider that slows down holds that many sockets, not
 * every request the instance takes. The others wait their turn, first come first served,
 * within their own call's bound; one that gives up waiting was never sent (`NotSent`).
 */
export class CallSlots {
  private inFlight = 0
  private readonly waiting: (() => void)[] = []

  constructor(readonly limit: number) {}

  async run<A>(signal: AbortSignal, work: () => Promise<A>): Promise<A> {
    await this.acquire(signal)
    try {
      return await work()
    } finally {
      this.release()
    }
  }

  /** Calls in flight and waiting, for tests. */
  get state(): { readonly inFlight: number; readonly waiting: number } {
    return { inFlight: this.inFlight, waiting: this.waiting.length }
  }

  private acquire(signal: AbortSignal): Promise<void> {
    if (this.inFlight < this.limit) {
      this.inFlight++
      return Promise.resolve()
    }
    return new Promise<void>((resolve, reject) => {
      const giveUp = () => {
        const i = this.waiting.indexOf(turn)
        if (i >= 0) this.waiting.splice(i, 1)
        reject(new NotSent('no connection to the provider came free within the call’s bound'))
      }
      const turn = () => {
        signal.removeEventListener('abort', giveUp)
        this.inFlight++
        resolve()
      }
      if (signal.aborted) {
        giveUp()
        return
      }
      this.waiting.push(turn)
      signal.addEventListener('abort', giveUp, { once: true })
    })
  }

  private release(): void {
    this.inFlight--
    this.waiting.shift()?.()
  }
}
