import type Router from '@koa/router'
import type { Middleware } from 'koa'
import type { OrkaState } from '../context'
import { methodNotAllowedResponse, notFoundResponse } from '../error-response'
import { sendErrorResponse } from '../respond'

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

/**
 * What the served routes accept at a path: the router adds HEAD to every GET route (Koa then
 * answers it as the GET without a body), and OPTIONS is answered here for every known path.
 */
export const allowedMethods = (router: Router<OrkaState>, path: string): string[] => {
  const layers = router.match(path, 'OPTIONS').path.filter((l) => l.methods.length > 0)
  if (layers.length === 0) return []
  const methods = new Set(layers.flatMap((l) => l.methods))
  return [...ORDER.filter((m) => methods.has(m)), ...[...methods].filter((m) => !ORDER.includes(m)).sort(), 'OPTIONS']
}

/**
 * Runs when no served route took the request. Unknown path: 404. Known path, other method:
 * 405 with `Allow`. OPTIONS on a known path: 204 with `Allow` (RFC 9110 §9.3.7), for discovery
 * only: a CORS preflight from a listed origin is answered before it comes here (`cors`). None of these needs a token: they disclose nothing
 * beyond the published route list.
 */
export const notRouted =
  (router: Router<OrkaState>): Middleware<OrkaState> =>
  (ctx) => {
    const allow = allowedMethods(router, ctx.path)
    if (allow.length === 0) {
      sendErrorResponse(ctx, notFoundResponse())
      return
    }
    if (ctx.method === 'OPTIONS') {
      ctx.set('Allow', allow.join(', '))
      ctx.status = 204
      ctx.body = null
      return
    }
    sendErrorResponse(ctx, methodNotAllowedResponse(allow))
  }

/**
 * A path that names a fixed route (`/gift-cards/activations`, `/gift-cards/balances`) is that
 * route's, never a value of a sibling's path parameter (`/gift-cards/{gift_card_id}`): a method
 * the fixed route does not take is answered as at any known path (405 with `Allow`, or 404 for a
 * route Orka does not serve) instead of reaching the parameterised route. `literals` holds the
 * served routes without parameters; `taken` every fixed path with the methods it takes.
 */
export const fixedPathsFirst = (literals: Router<OrkaState>, taken: ReadonlyMap<string, ReadonlySet<string>>): Middleware<OrkaState> => {
  const answer = notRouted(literals)
  return async (ctx, next) => {
    const path = ctx.path.length > 1 && ctx.path.endsWith('/') ? ctx.path.slice(0, -1) : ctx.path
    const methods = taken.get(path)
    if (methods === undefined || methods.has(ctx.method) || (ctx.method === 'HEAD' && methods.has('GET'))) {
      await next()
      return
    }
    await answer(ctx, () => Promise.resolve())
  }
}
