import { randomUUID } from 'node:crypto'
import type { RouterContext, RouterMiddleware } from '@koa/router'
import type { Access, Principal, RateLimitPolicy } from '@orka/domain'
import { containsCardNumber } from './log-redaction'

/** What the middleware chain learns about a request, in order: id, then caller, then access. */
export interface OrkaState {
  requestId: string
  principal?: Principal
  access?: Access
  /** Set when a rate limit refused the request: which one (for the request observer). */
  rateLimited?: RateLimitPolicy
  /** Set when the request was refused for its idempotency key (for the request observer). */
  idempotencyConflict?: IdempotencyConflict
}

/** Why an idempotency key refused a request: another with it still runs (425), or it came with another body (400). */
export type IdempotencyConflict = 'in_flight' | 'key_reused'

/** A client's id is taken only when it is plainly an id, so it cannot forge log lines. */
const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * A fresh UUID, drawn again in the rare case (about 1 in 28: dashes count as separators) that its
 * hex digits form a run the log would mask.
 */
const freshRequestId = (): string => {
  for (;;) {
    const id = randomUUID()
    if (!containsCardNumber(id)) return id
  }
}

/**
 * The request id: the client's `x-request-id` when it is a plain token of at most 128
 * characters without a run of 12 or more digits (a card number, with or without separators:
 * it would be echoed and logged), else a fresh UUID.
 */
export const requestIdFor = (given: string): string =>
  SAFE_REQUEST_ID.test(given) && !containsCardNumber(given) ? given : freshRequestId()

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
