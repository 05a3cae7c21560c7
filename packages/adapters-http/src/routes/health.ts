import Router from '@koa/router'
import { closed, literal, str } from '@orka/domain'
import type { OrkaState } from '../context'

/** Paths that probes poll: kept out of the info-level access log. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz'])

export const Alive = closed('Alive', { status: literal('ok') })
export const Ready = closed('Ready', { status: literal('ready'), storage: str })
export const NotReady = closed('NotReady', { status: literal('unavailable') })

/** How long `/readyz` waits for storage before answering 503: probes time out after a few seconds. */
export const READY_TIMEOUT_MS = 2000

/** `ready()`, or a rejection after `ms`; the timer is cleared once it settles, and a late rejection is consumed. */
const readyWithin = (ready: () => Promise<string>, ms: number): Promise<string> =>
  new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`storage did not answer within ${ms} ms`))
    }, ms)
    const settle =
      <A>(f: (a: A) => void) =>
      (a: A) => {
        clearTimeout(timer)
        f(a)
      }
    Promise.resolve().then(ready).then(settle(resolve), settle(reject))
  })

/**
 * `/healthz`: the process answers. `/readyz`: storage answers too (and its indexes were made
 * before the server started listening), so a load balancer sends traffic only to instances
 * that can serve it; storage that fails or is silent for `timeoutMs` is `503`, and the next
 * probe asks again (no state: readiness comes back with storage). No token, no rate limit.
 */
export const healthRouter = (ready: () => Promise<string>, timeoutMs: number = READY_TIMEOUT_MS) =>
  new Router<OrkaState>()
    .get('/healthz', (ctx) => {
      ctx.body = Alive.encode({ status: 'ok' })
    })
    .get('/readyz', async (ctx) => {
      try {
        ctx.body = Ready.encode({ status: 'ready', storage: await readyWithin(ready, timeoutMs) })
      } catch {
        ctx.status = 503
        ctx.body = NotReady.encode({ status: 'unavailable' })
      }
    })
