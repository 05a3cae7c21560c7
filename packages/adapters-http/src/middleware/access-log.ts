import { performance } from 'node:perf_hooks'
import type { Middleware } from 'koa'
import { trace } from '@opentelemetry/api'
import type { HttpLog, RequestObserver } from '../types'
import { rejectedWith } from '../client-error'
import { OrkaState, requestIdFor } from '../context'
import { redactCardNumbers } from '../log-redaction'
import { HEALTH_PATHS } from '../routes/health'

/** An unmatched path is logged this long at most, after masking. */
const MAX_PATH = 200
/** Masking looks this far, so that a run crossing the cut is seen whole (and the work stays bounded). */
const MASK_WINDOW = 1024
/** Stricter than the log-wide rule (12): a path has no business holding a 9-digit run. */
const PATH_MIN_DIGITS = 9

/**
 * The route template when one matched; else the path with digit runs masked (plain,
 * separated or percent-encoded: a client may put a card number in a URL), then cut short.
 */
const loggedPath = (ctx: { path: string; _matchedRoute?: unknown }): string =>
  typeof ctx._matchedRoute === 'string'
    ? ctx._matchedRoute
    : redactCardNumbers(ctx.path.slice(0, MASK_WINDOW), PATH_MIN_DIGITS).slice(0, MAX_PATH)

/** The methods a route may be registered for, and those Node parses that a client may send: a bounded set. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'CONNECT'])

/** The method, or `_OTHER` for one outside the standard set (HTTP semantic conventions). */
export const knownMethod = (method: string): string => (KNOWN_METHODS.has(method) ? method : '_OTHER')

/** The router's `/a/:id` back to the template `/a/{id}`; `unmatched` when no route matched. */
export const routeTemplate = (matched: unknown): string => (typeof matched === 'string' ? matched.replace(/:(\w+)/g, '{$1}') : 'unmatched')

/**
 * Request id and one access-log line per request: method, route, status, time, id, and the
 * server span's `trace_id` and `span_id` when tracing is on. Never headers, bodies or query
 * strings (tokens, card numbers and cursors live there).
 *
 * The line is written when the response has gone out (or the connection closed), with the
 * status the client was actually sent (`res.statusCode`), not the one the middleware meant to
 * send. A request whose connection closed first gets `outcome`:
 * - `rejected`: the server cut the connection for a parser error in the body or a timeout;
 *   `status` is what `clientErrorHandler` sent (null when it could not, or when Node's own
 *   handler answered: install `clientErrorHandler`);
 * - `aborted`: the client went away before its request was fully received;
 * - `closed`: the request was received, the connection closed before the response finished;
 * with `status` null unless a status line had been sent.
 */
export const accessLog =
  (log: HttpLog, observe?: RequestObserver): Middleware<OrkaState> =>
  async (ctx, next) => {
    const started = performance.now()
    ctx.state.requestId = requestIdFor(ctx.get('x-request-id'))
    ctx.set('X-Request-Id', ctx.state.requestId)
    const { req, res } = ctx
    const socket = req.socket
    let written = false
    const level = HEALTH_PATHS.has(ctx.path) ? 'debug' : 'info'
    // Tracing on: the request's server span (`traceRequests`); off, the API's no-op context has none.
    const span = trace.getActiveSpan()
    const write = (finished: boolean): void => {
      if (written) return
      written = true
      if (observe !== undefined) {
        const answer = finished ? res.statusCode : (rejectedWith(socket) ?? (res.headersSent ? res.statusCode : 0))
        observe({
          method: knownMethod(ctx.method),
          route: routeTemplate(ctx._matchedRoute),
          status: answer,
          seconds: (performance.now() - started) / 1000,
          replayed: res.getHeader('Idempotent-Replayed') === 'true',
          idempotencyConflict: ctx.state.idempotencyConflict,
          rateLimited: ctx.state.rateLimited,
        })
      }
      if (log.isLevelEnabled?.(level) === false) return
      const line: Record<string, unknown> = {
        requestId: ctx.state.requestId,
        method: ctx.method,
        path: loggedPath(ctx),
        status: res.statusCode,
        ms: Math.round((performance.now() - started) * 10) / 10,
      }
      if (span !== undefined) {
        const { traceId, spanId } = span.spanContext()
        line.trace_id = traceId
        line.span_id = spanId
      }
      if (!finished) {
        const answer = rejectedWith(socket)
        if (answer !== undefined) {
          line.status = answer
          line.outcome = 'rejected'
        } else {
          line.status = res.headersSent ? res.statusCode : null
          line.outcome = req.complete ? 'closed' : 'aborted'
        }
      }
      // Probes poll health every few seconds: at info they would drown the log.
      // Every field is ours or checked (the request id, the masked path): the logger's line-wide masking is enough.
      if (level === 'debug') log.debug?.(line, 'request')
      else log.info(line, 'request')
    }
    res.once('finish', () => {
      write(true)
    })
    res.once('close', () => {
      write(res.writableFinished)
    })
    await next()
  }
