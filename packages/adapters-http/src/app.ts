import Koa from 'koa'
import Router from '@koa/router'
import { makeTokenVerifier } from './auth/verify-token'
import type { OrkaState, RouteMiddleware } from './context'
import { notFoundResponse } from './error-response'
import { accessLog } from './middleware/access-log'
import { authenticate } from './middleware/authenticate'
import { authorize } from './middleware/authorize'
import { catchErrors } from './middleware/catch-errors'
import { notRouted } from './middleware/not-routed'
import { rateLimit } from './middleware/rate-limit'
import { DEFAULT_INSTANCE_ID, DEFAULT_PUBLIC_BASE_URLS } from './openapi/document'
import { sendErrorResponse, serializeError } from './respond'
import type { HttpDeps } from './types'
import { createBuyer, listBuyers } from './routes/buyers'
import { docsRouter } from './routes/docs'
import { healthRouter } from './routes/health'
import { activateGiftCard } from './routes/gift-cards'
import { listRoles } from './routes/roles'
import { RouteHandler } from './routes/route-deps'
import { COUNTED_UNSERVED_ROUTES, koaPath, OperationId, RouteDescription, ROUTES } from './routes/table'
import {
  createWebhookSubscription,
  deleteWebhookSubscription,
  getWebhookSubscription,
  listWebhookSubscriptions,
  rotateWebhookSecret,
  updateWebhookSubscription,
} from './routes/webhook-subscriptions'
import { listWebhookDeliveries, redeliverWebhookDelivery } from './routes/webhook-deliveries'

/** Exhaustive over `OperationId`: a route in the table without a handler fails to compile. */
const HANDLERS: Record<OperationId, RouteHandler> = {
  activate_gift_card: activateGiftCard,
  list_roles: listRoles,
  add_buyer: createBuyer,
  list_buyers: listBuyers,
  create_webhook_subscription: createWebhookSubscription,
  list_webhook_subscription: listWebhookSubscriptions,
  read_webhook_subscription: getWebhookSubscription,
  delete_webhook_subscription: deleteWebhookSubscription,
  update_webhook_subscription: updateWebhookSubscription,
  rotate_webhook_subscription_secret: rotateWebhookSecret,
  list_webhook_deliveries: listWebhookDeliveries,
  redeliver_webhook_delivery: redeliverWebhookDelivery,
}

const register = (router: Router<OrkaState>, method: RouteDescription['method'], path: string, chain: RouteMiddleware[]) => {
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
 * headers and body (422), run the use case. Routing is case-sensitive; a trailing slash is
 * tolerated.
 */
export const createHttpApp = (deps: HttpDeps): Koa<OrkaState> => {
  const { log, config, useCases } = deps
  const verify = makeTokenVerifier({
    keys: deps.keys,
    clock: deps.clock,
    mac: deps.mac,
    cacheSize: config.tokenCacheSize,
    maxTokenLifetimeS: config.maxTokenLifetimeS ?? 86400,
  })
  const authn = authenticate(verify, log)

  const served = new Router<OrkaState>({ sensitive: true })
  for (const route of ROUTES) {
    const path = koaPath(route.path)
    register(served, route.method, path, [
      authn,
      rateLimit(useCases.checkRateLimit, log, path),
      authorize(useCases.authorize, log, config, route.scope),
      HANDLERS[route.operationId]({ log, config, useCases }),
    ])
  }

  // Kept apart from `served` so that these paths never answer 405: to a client they do not exist.
  const counted = new Router<OrkaState>({ sensitive: true })
  for (const route of COUNTED_UNSERVED_ROUTES) {
    const path = koaPath(route.path)
    register(counted, route.method, path, [
      authn,
      rateLimit(useCases.checkRateLimit, log, path),
      async (ctx) => sendErrorResponse(ctx, notFoundResponse()),
    ])
  }

  const app = new Koa<OrkaState>()
  app.use(accessLog(log))
  app.use(catchErrors(log))
  // The published contract (/openapi.json, /docs): no token, no rate limit, still access-logged.
  const docs = docsRouter({
    merchantAccountHeader: config.merchantAccountHeader,
    defaultMerchantAccountId: config.defaultMerchantAccountId,
    publicBaseUrls: config.publicBaseUrls ?? DEFAULT_PUBLIC_BASE_URLS,
    instanceId: config.instanceId ?? DEFAULT_INSTANCE_ID,
    ...(config.webhookHeaderPrefix === undefined ? {} : { webhookHeaderPrefix: config.webhookHeaderPrefix }),
  })
  app.use(docs.routes())
  app.use(healthRouter(deps.ready ?? (async () => 'ready')).routes())
  app.use(served.routes())
  app.use(counted.routes())
  app.use(notRouted(served))
  // Only errors outside the middleware (e.g. writing to a closed socket) reach Koa's own handler.
  app.on('error', (err: unknown) => log.error({ err: serializeError(err) }, 'http server error'))
  return app
}
