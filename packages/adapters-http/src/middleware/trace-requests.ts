import type { Middleware } from 'koa'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, Tracer } from '@opentelemetry/api'
import type { OrkaState, RouteMiddleware } from '../context'
import { knownMethod, routeTemplate } from './access-log'

/**
 * The server span of each request (installed only when tracing is on), continuing the caller's
 * W3C `traceparent`. Named `<method> <route template>` (`GET /buyers/{buyer_id}`), or the
 * method alone when no route matched. Its attributes are the method, the template, the status
 * and the request id: never the path, the query string, a header or the body, where tokens,
 * card numbers and cursors travel.
 */
export const traceRequests =
  (tracer: Tracer): Middleware<OrkaState> =>
  async (ctx, next) => {
    const method = knownMethod(ctx.method)
    const parent = propagation.extract(ROOT_CONTEXT, ctx.req.headers)
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.scheme': 'http' } },
      parent,
    )
    const { res } = ctx
    let ended = false
    const end = (finished: boolean): void => {
      if (ended) return
      ended = true
      const route = typeof ctx._matchedRoute === 'string' ? routeTemplate(ctx._matchedRoute) : undefined
      if (route !== undefined) {
        span.updateName(`${method} ${route}`)
        span.setAttribute('http.route', route)
      }
      span.setAttribute('orka.request_id', ctx.state.requestId)
      if (finished || res.headersSent) span.setAttribute('http.response.status_code', res.statusCode)
      if (!finished) span.setStatus({ code: SpanStatusCode.ERROR, message: 'connection closed before the response was sent' })
      else if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      span.end()
    }
    res.once('finish', () => {
      end(true)
    })
    res.once('close', () => {
      end(res.writableFinished)
    })
    await context.with(trace.setSpan(parent, span), next)
  }

/** The span of an operation's handler (decoding, the use case, the response), named after its `operationId`. */
export const traceOperation =
  (tracer: Tracer, operationId: string, handler: RouteMiddleware): RouteMiddleware =>
  (ctx, next) =>
    tracer.startActiveSpan(operationId, { attributes: { 'orka.operation': operationId } }, async (span) => {
      try {
        await handler(ctx, next)
      } catch (e) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: e instanceof Error ? e.name : 'thrown' })
        throw e
      } finally {
        span.end()
      }
    })
