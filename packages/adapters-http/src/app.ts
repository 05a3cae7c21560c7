import Koa from 'koa'
import Router from '@koa/router'
import { makeTokenVerifier } from './auth/verify-token'
import type { OrkaState, RouteMiddleware } from './context'
import { notFoundResponse } from './error-response'
import { accessLog } from './middleware/access-log'
import { authenticate } from './middleware/authenticate'
import { authorize } from './middleware/authorize'
import { catchErrors } from './middleware/catch-errors'
import { cors } from './middleware/cors'
import { fixedPathsFirst, notRouted } from './middleware/not-routed'
import { rateLimit } from './middleware/rate-limit'
import { traceOperation, traceRequests } from './middleware/trace-requests'
import { DEFAULT_INSTANCE_ID, DEFAULT_PUBLIC_BASE_URLS } from './openapi/document'
import { sendErrorResponse, serializeError } from './respond'
import { isServed, Operation, OPERATIONS } from './operations'
import { serve } from './operations/serve'
import { demoCheckoutRouter } from './routes/demo-checkout'
import { docsRouter } from './routes/docs'
import { healthRouter } from './routes/health'
import { providerWebhooksRouter } from './routes/provider-webhooks'
import { secureFieldsRouter } from './routes/secure-fields'
import type { HttpDeps } from './types'

/** `/a/{id}` to the router's `/a/:id`. */
const koaPath = (openApiPath: string): string => openApiPath.replace(/\{(\w+)\}/g, ':$1')

const register = (router: Router<OrkaState>, method: Operation['method'], path: string, chain: RouteMiddleware[]) => {
  switch (method) {
    case 'PUT':
      return router.put(path, ...chain)
    case 'GET':
      return router.get(path, ...chain)
    case 'POST':
      return router.post(path, ...chain)
    case 'DELETE':
      return router.delete(path, ...chain)
  }
}

/**
 * The HTTP API. Per served route, in this order: authenticate (401), draw on the rate limit
 * (429), authorize the route's scope for the merchant account (403), decode path, query,
 * headers and body (422), run the use case. A `tokenOptional` route skips the first and the
 * third for a request that sends no token. Routing is case-sensitive; a trailing slash is
 * tolerated.
 */
export const createHttpApp = (deps: HttpDeps): Koa<OrkaState> => {
  const { log, config, useCases } = deps
  const verify = makeTokenVerifier({
    keys: deps.keys,
    ...(deps.onKeyUsed === undefined ? {} : { onKeyUsed: deps.onKeyUsed }),
    clock: deps.clock,
    mac: deps.mac,
    cacheSize: config.tokenCacheSize,
    maxTokenLifetimeS: config.maxTokenLifetimeS ?? 86400,
  })
  const authn = authenticate(verify, log)

  const served = new Router<OrkaState>({ sensitive: true })
  // Kept apart from `served` so that unserved paths never answer 405: to a client they do not exist.
  const counted = new Router<OrkaState>({ sensitive: true })
  // The served routes without path parameters, and every fixed path's methods (see `fixedPathsFirst`).
  const literals = new Router<OrkaState>({ sensitive: true })
  const taken = new Map<string, Set<string>>()
  for (const op of OPERATIONS)
    if (!op.path.includes('{')) {
      taken.set(op.path, (taken.get(op.path) ?? new Set<string>()).add(op.method))
      if (isServed(op)) register(literals, op.method, op.path, [() => undefined])
    }
  for (const op of OPERATIONS) {
    const limit = op.rateLimit === undefined ? [] : [rateLimit(useCases.checkRateLimit, log, op.rateLimit, config.rateLimitHoldMs ?? 0)]
    if (isServed(op)) {
      const optional = op.tokenOptional === true
      register(served, op.method, koaPath(op.path), [
        optional ? authenticate(verify, log, true) : authn,
        ...limit,
        authorize(useCases.authorize, log, config, op.scope, optional),
        deps.tracer === undefined ? serve(op, deps) : traceOperation(deps.tracer, op.operationId, serve(op, deps)),
      ])
    } else
      register(counted, op.method, koaPath(op.path), [
        authn,
        ...limit,
        (ctx) => {
          sendErrorResponse(ctx, notFoundResponse())
        },
      ])
  }

  const app = new Koa<OrkaState>()
  // First, so that the access log sees the server span. Tracing off, nothing is installed.
  if (deps.tracer !== undefined) app.use(traceRequests(deps.tracer))
  app.use(accessLog(log, deps.onRequestDone))
  app.use(catchErrors(log))
  // Unset (the default), nothing is installed: no request pays for CORS, no response changes.
  if (config.corsAllowedOrigins !== undefined && config.corsAllowedOrigins.length > 0)
    app.use(cors(OPERATIONS, { allowedOrigins: config.corsAllowedOrigins, merchantAccountHeader: config.merchantAccountHeader }))
  // The published contract (/openapi.json, /docs): no token, no rate limit, still access-logged.
  const docs = docsRouter({
    merchantAccountHeader: config.merchantAccountHeader,
    defaultMerchantAccountId: config.defaultMerchantAccountId,
    publicBaseUrls: config.publicBaseUrls ?? DEFAULT_PUBLIC_BASE_URLS,
    instanceId: config.instanceId ?? DEFAULT_INSTANCE_ID,
    ...(config.webhookHeaderPrefix === undefined ? {} : { webhookHeaderPrefix: config.webhookHeaderPrefix }),
  })
  app.use(docs.routes())
  app.use(healthRouter(deps.ready ?? (() => Promise.resolve('ready'))).routes())
  app.use(secureFieldsRouter(config.corsAllowedOrigins ?? []).routes())
  app.use(providerWebhooksRouter(useCases, log).routes())
  if (deps.demoCheckout !== undefined) app.use(demoCheckoutRouter(deps.demoCheckout, log).routes())
  app.use(fixedPathsFirst(literals, taken))
  app.use(served.routes())
  app.use(counted.routes())
  app.use(notRouted(served))
  // Only errors outside the middleware (e.g. writing to a closed socket) reach Koa's own handler.
  app.on('error', (err: unknown) => {
    log.error({ err: serializeError(err) }, 'http server error')
  })
  return app
}
