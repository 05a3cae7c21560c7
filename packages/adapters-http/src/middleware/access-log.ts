import { randomUUID } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { Middleware } from 'koa'
import type { HttpLog } from '../app'
import type { OrkaState } from '../context'
import { HEALTH_PATHS } from '../routes/health'

/** A client's id is echoed only when it is plainly an id, so it cannot forge log lines. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * The route template when one matched; else the path, cut short and with long digit runs
 * masked, because a client may put anything (a card number) in a URL.
 */
const loggedPath = (ctx: { path: string; _matchedRoute?: unknown }): string =>
  typeof ctx._matchedRoute === 'string' ? ctx._matchedRoute : ctx.path.slice(0, 200).replace(/\d{9,}/g, (d) => '#'.repeat(d.length))

/**
 * Request id and one access-log line per request: method, route, status, time, id. Never
 * headers, bodies or query strings (tokens, card numbers and cursors live there).
 */
export const accessLog =
  (log: HttpLog): Middleware<OrkaState> =>
  async (ctx, next) => {
    const started = performance.now()
    const given = ctx.get('x-request-id')
    ctx.state.requestId = SAFE_REQUEST_ID.test(given) ? given : randomUUID()
    ctx.set('X-Request-Id', ctx.state.requestId)
    try {
      await next()
    } finally {
      // Probes poll health every few seconds: at info they would drown the log.
      const write = HEALTH_PATHS.has(ctx.path) ? (o: object, m: string) => log.debug?.(o, m) : (o: object, m: string) => log.info(o, m)
      write(
        {
          requestId: ctx.state.requestId,
          method: ctx.method,
          path: loggedPath(ctx as { path: string; _matchedRoute?: unknown }),
          status: ctx.status,
          ms: Math.round((performance.now() - started) * 10) / 10,
        },
        'request',
      )
    }
  }
