import type { Socket } from 'node:net'
import type { Middleware, ParameterizedContext } from 'koa'
import type { HttpLog } from '../types'
import {
  clientFaultBody,
  clientFaultLevel,
  clientFaultStatus,
  clientFaultSummary,
  isClientFault,
  noteConnectionFault,
} from '../client-error'
import type { OrkaState } from '../context'
import { serverErrorResponse } from '../error-response'
import { redactLogFields } from '../log-redaction'
import { sendErrorResponse, sendJson, serializeError } from '../respond'

/**
 * Headers that still hold after a crash: they describe the request, not the failed response.
 * The CORS ones too, so that a page can read the error it got (see `cors`).
 */
const KEEP = new Set([
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'vary',
  'access-control-allow-origin',
  'access-control-expose-headers',
])

type Ctx = ParameterizedContext<OrkaState>

const clearHeaders = (ctx: Ctx): void => {
  for (const name of Object.keys(ctx.response.headers)) if (!KEEP.has(name.toLowerCase())) ctx.remove(name)
}

/**
 * Errors Koa reports after the middleware chain (the socket failing under the response, as
 * Koa learns from `on-finished`) go to `ctx.onerror`, which hands them to the app's `error`
 * listener, at `error` level. A client that sends a broken body or hangs up is not a server
 * fault: those are logged here, below `error`, and the connection is closed; anything else
 * still goes to Koa's own handler.
 */
const quietClientFaults = (ctx: Ctx, log: HttpLog): void => {
  const koaOnError = ctx.onerror.bind(ctx)
  // Koa calls it with null when there is no error (node-style callbacks), whatever its type says.
  ctx.onerror = (err: Error | null | undefined): void => {
    if (err === null || err === undefined) return
    if (!isClientFault(err, ctx.req)) {
      koaOnError(err)
      return
    }
    noteConnectionFault(ctx.req.socket, err)
    log[clientFaultLevel(err)](
      redactLogFields({ requestId: ctx.state.requestId, method: ctx.method, status: null, err: clientFaultSummary(err) }),
      'client request error',
    )
    if (!ctx.res.writableEnded) (ctx.req.socket as Socket | null)?.destroy()
  }
}

/**
 * Bugs throw; this turns any exception into the bare 500 body and logs its stack (never the
 * request: its body may hold a card number). An error the client caused (a body stream that
 * broke on a parser error, timed out or was aborted, an HTTP error marked for the client) is
 * no bug: it is answered `400` (`408` for a timeout) with `Connection: close` when the
 * connection still stands, and logged at info/warn with its code only.
 */
export const catchErrors =
  (log: HttpLog): Middleware<OrkaState> =>
  async (ctx, next) => {
    quietClientFaults(ctx, log)
    try {
      await next()
    } catch (err) {
      const answerable = !ctx.headerSent && ctx.writable
      if (isClientFault(err, ctx.req)) {
        const status = clientFaultStatus(err)
        log[clientFaultLevel(err)](
          redactLogFields({
            requestId: ctx.state.requestId,
            method: ctx.method,
            status: answerable ? status : null,
            err: clientFaultSummary(err),
          }),
          'client request error',
        )
        if (!answerable) return
        clearHeaders(ctx)
        // What is left of the request on the connection cannot be trusted to frame the next one.
        sendJson(ctx, status, clientFaultBody(status), { Connection: 'close' })
        return
      }
      log.error(redactLogFields({ requestId: ctx.state.requestId, method: ctx.method, err: serializeError(err) }), 'unhandled exception')
      if (!answerable) return
      clearHeaders(ctx)
      sendErrorResponse(ctx, serverErrorResponse())
    }
  }
