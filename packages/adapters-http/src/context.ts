import type { RouterContext, RouterMiddleware } from '@koa/router'
import type { Access, Principal } from '@orka/domain'

/** What the middleware chain learns about a request, in order: id, then caller, then access. */
export interface OrkaState {
  requestId: string
  principal?: Principal
  access?: Access
}

export type Ctx = RouterContext<OrkaState>
export type RouteMiddleware = RouterMiddleware<OrkaState>

/** Only reachable after `authenticate`; a missing principal is a wiring bug, hence a throw (500). */
export const principalOf = (ctx: Ctx): Principal => {
  if (!ctx.state.principal) throw new Error('route reached without authentication')
  return ctx.state.principal
}

/** Only reachable after `authorize`. */
export const accessOf = (ctx: Ctx): Access => {
  if (!ctx.state.access) throw new Error('route reached without authorization')
  return ctx.state.access
}
