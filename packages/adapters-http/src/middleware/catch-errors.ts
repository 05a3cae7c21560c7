import type { Middleware } from 'koa'
import type { HttpLog } from '../app'
import type { OrkaState } from '../context'
import { serverErrorResponse } from '../error-response'
import { sendErrorResponse, serializeError } from '../respond'

/** Headers that still hold after a crash: they describe the request, not the failed response. */
const KEEP = new Set(['x-request-id', 'ratelimit', 'ratelimit-policy'])

/**
 * Bugs throw; this turns any exception into the bare 500 body and logs its stack (never the
 * request: its body may hold a card number).
 */
export const catchErrors =
  (log: HttpLog): Middleware<OrkaState> =>
  async (ctx, next) => {
    try {
      await next()
    } catch (err) {
      log.error({ requestId: ctx.state.requestId, method: ctx.method, err: serializeError(err) }, 'unhandled exception')
      if (ctx.headerSent || !ctx.writable) return
      for (const name of Object.keys(ctx.response.headers)) if (!KEEP.has(name.toLowerCase())) ctx.remove(name)
      sendErrorResponse(ctx, serverErrorResponse())
    }
  }
