import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import type { makeCheckRateLimit } from '@orka/domain'
import type { HttpLog } from '../types'
import { principalOf, RouteMiddleware } from '../context'
import { rateLimitHeaders } from '../error-response'
import { sendDomainError } from '../respond'

/**
 * The route's own path with its parameters filled in: the domain decides which routes are
 * limited by method and path, and it must see the canonical form whatever case, encoding or
 * trailing slash the client used.
 */
export const canonicalPath = (template: string, params: Readonly<Record<string, string>>): string =>
  template.replace(/:(\w+)/g, (_m, name: string) => encodeURIComponent(params[name] ?? ''))

/**
 * Draws on the caller's quota before anything else is checked, so even refused requests count.
 * A limited route sends its RateLimit headers on every response, 429 included.
 */
export const rateLimit =
  (check: ReturnType<typeof makeCheckRateLimit>, log: HttpLog, template: string): RouteMiddleware =>
  async (ctx, next) => {
    const r = await check({ method: ctx.method, path: canonicalPath(template, ctx.params), principal: principalOf(ctx) })()
    if (E.isLeft(r)) return sendDomainError(ctx, log, r.left)
    if (O.isSome(r.right)) ctx.set(rateLimitHeaders(r.right.value))
    await next()
  }
