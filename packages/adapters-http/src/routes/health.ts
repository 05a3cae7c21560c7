import Router from '@koa/router'
import { closed, literal, str } from '@orka/domain'
import type { OrkaState } from '../context'

/** Paths that probes poll: kept out of the info-level access log. */
export const HEALTH_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz'])

export const Alive = closed('Alive', { status: literal('ok') })
export const Ready = closed('Ready', { status: literal('ready'), storage: str })
export const NotReady = closed('NotReady', { status: literal('unavailable') })

/**
 * `/healthz`: the process answers. `/readyz`: storage answers too (and its indexes were made
 * before the server started listening), so a load balancer sends traffic only to instances
 * that can serve it. No token, no rate limit.
 */
export const healthRouter = (ready: () => Promise<string>) =>
  new Router<OrkaState>()
    .get('/healthz', (ctx) => {
      ctx.body = Alive.encode({ status: 'ok' })
    })
    .get('/readyz', async (ctx) => {
      try {
        ctx.body = Ready.encode({ status: 'ready', storage: await ready() })
      } catch {
        ctx.status = 503
        ctx.body = NotReady.encode({ status: 'unavailable' })
      }
    })
