import Router from '@koa/router'
import koaCors from '@koa/cors'
import type { Middleware } from 'koa'
import type { OrkaState } from '../context'
import { isBrowserOperation, Operation } from '../operations'

/** How long a browser may reuse a preflight's answer, in seconds (its own cap may be lower). */
export const CORS_MAX_AGE_S = 600
/** What a page may read of a response: the rate limit, the replay flag and the id to quote to support. */
export const CORS_EXPOSED_HEADERS = ['Retry-After', 'RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed', 'X-Request-Id']

export interface CorsOptions {
  /** Exact origins, as browsers send them (`https://shop.example`): never a pattern. */
  readonly allowedOrigins: readonly string[]
  /** Lower-case header naming the merchant account: a page may send it. */
  readonly merchantAccountHeader: string
}

const ORDER = ['GET', 'POST', 'PUT', 'DELETE']

/** `/a/{id}` to the router's `/a/:id`. */
const koaPath = (openApiPath: string): string => openApiPath.replace(/\{(\w+)\}/g, ':$1')

/**
 * The methods of the browser operations at a request path, as the router would route it: a
 * fixed path (`/gift-cards/balances`) is only its own routes', never a value of a sibling's path
 * parameter (`/gift-cards/{gift_card_id}`), as `fixedPathsFirst` decides for routing.
 */
const browserMethods = (operations: readonly Operation[]) => {
  const router = new Router({ sensitive: true })
  const fixed = new Map<string, Set<string>>()
  for (const op of operations) {
    const browser = isBrowserOperation(op)
    if (browser) router.register(koaPath(op.path), [op.method], () => undefined)
    if (op.path.includes('{')) continue
    const methods = fixed.get(op.path) ?? new Set<string>()
    fixed.set(op.path, browser ? methods.add(op.method) : methods)
  }
  const inOrder = (methods: Iterable<string>) => {
    const set = new Set(methods)
    return ORDER.filter((m) => set.has(m))
  }
  return (path: string): readonly string[] => {
    const own = fixed.get(path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path)
    return inOrder(own ?? router.match(path, 'OPTIONS').path.flatMap((l) => l.methods))
  }
}

/**
 * CORS for the operations a browser may call (`isBrowserOperation`: the descriptors decide),
 * applied by `@koa/cors`. A request from a listed origin to such an operation gets
 * `Access-Control-Allow-Origin` (that origin, never `*`) and `Access-Control-Expose-Headers` on
 * every answer, errors included (`catchErrors` keeps them); a preflight (`OPTIONS` with
 * `Access-Control-Request-Method` naming such an operation's method) is answered `204` with the
 * methods of the browser operations at that path. Responses of browser operations carry `Vary: Origin` whatever the
 * origin, so that no cache hands one origin's answer to another. Every other request passes
 * untouched: other routes, unlisted origins (`OPTIONS` then answers `Allow` as ever). No
 * credentials mode: tokens are bearer headers, never cookies.
 */
export const cors = (operations: readonly Operation[], o: CorsOptions): Middleware<OrkaState> => {
  const allowed = new Set(o.allowedOrigins)
  const methodsAt = browserMethods(operations)
  const allowHeaders = ['authorization', 'content-type', 'idempotency-key', o.merchantAccountHeader].join(', ')
  // One `@koa/cors` per set of methods (a handful): its `allowMethods` is fixed when it is built.
  const byMethods = new Map<string, Middleware<OrkaState>>()
  const corsFor = (methods: readonly string[]): Middleware<OrkaState> => {
    const key = methods.join(', ')
    let m = byMethods.get(key)
    if (m === undefined) {
      m = koaCors({
        // Checked by the caller too: only ever a listed origin, echoed as listed.
        origin: (ctx) => (allowed.has(ctx.get('Origin')) ? ctx.get('Origin') : ''),
        allowMethods: key,
        allowHeaders,
        exposeHeaders: CORS_EXPOSED_HEADERS.join(', '),
        maxAge: CORS_MAX_AGE_S,
        credentials: false,
        keepHeadersOnError: true,
      }) as Middleware<OrkaState>
      byMethods.set(key, m)
    }
    return m
  }
  return async (ctx, next) => {
    const methods = methodsAt(ctx.path)
    // A preflight asks about the method named in its header (none: not a preflight, `Allow` answers it).
    const method = ctx.method === 'OPTIONS' ? ctx.get('Access-Control-Request-Method') : ctx.method === 'HEAD' ? 'GET' : ctx.method
    if (methods.length === 0 || (method !== '' && !methods.includes(method))) {
      await next()
      return
    }
    if (!allowed.has(ctx.get('Origin'))) {
      ctx.vary('Origin')
      await next()
      return
    }
    await corsFor(methods)(ctx, next)
  }
}
