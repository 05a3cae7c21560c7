import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { makeCheckRateLimit, RateLimitPolicy, RateLimitRequest } from '@orka/domain'
import { Ctx, principalOf, RouteMiddleware } from '../context'
import { rateLimitHeaders } from '../error-response'
import { sendDomainError } from '../respond'
import type { HttpLog } from '../types'

/** The path parameter naming the checkout session, on an operation limited per `checkout-session`. */
export const SESSION_PARAM = 'session_id'

/** The policy the operation declares, with what keys it; a policy without its key material is a wiring bug (500). */
const rateLimitRequest = (policy: RateLimitPolicy, ctx: Ctx): RateLimitRequest => {
  switch (policy) {
    case 'embed':
      return { policy, principal: principalOf(ctx) }
    case 'checkout-session': {
      const sessionId = ctx.params[SESSION_PARAM]
      if (sessionId === undefined) throw new Error(`a checkout-session limited route without {${SESSION_PARAM}}`)
      // A request without a token (Secure Fields) is limited by the session alone.
      return { policy, principal: ctx.state.principal ?? null, sessionId }
    }
  }
}

/**
 * Draws on the caller's quota before anything else is checked, so even refused requests count.
 * A limited route sends its RateLimit headers on every response, 429 included.
 *
 * A 429 is held `holdMs` (at most its `Retry-After`) before it is sent: the client may not
 * retry before then anyway, and a flood that waits for its answers (a browser, most scripts)
 * then sends one request per connection per hold instead of as many as this process can
 * refuse, which would take the CPU from every other account's requests.
 */
export const rateLimit =
  (check: ReturnType<typeof makeCheckRateLimit>, log: HttpLog, policy: RateLimitPolicy, holdMs: number): RouteMiddleware =>
  async (ctx, next) => {
    const r = await check(rateLimitRequest(policy, ctx))()
    if (E.isLeft(r)) {
      const hold = r.left._tag === 'RateLimited' ? Math.min(holdMs, r.left.retryAfterS * 1000) : 0
      if (r.left._tag === 'RateLimited') ctx.state.rateLimited = policy
      if (hold > 0) await new Promise((resolve) => setTimeout(resolve, hold))
      sendDomainError(ctx, log, r.left)
      return
    }
    if (O.isSome(r.right)) ctx.set(rateLimitHeaders(r.right.value))
    await next()
  }
