import * as E from 'fp-ts/Either'
import { unauthenticated } from '@orka/domain'
import type { HttpLog } from '../types'
import type { TokenVerifier } from '../auth/verify-token'
import { closeConnectionAfterResponse } from '../close-connection'
import type { RouteMiddleware } from '../context'
import { sendDomainError } from '../respond'

/** How many `Authorization` header lines the client sent (Node keeps only the first in `req.headers`). */
const authorizationHeaders = (rawHeaders: readonly string[]): number => {
  let n = 0
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === 'authorization') n++
  return n
}

/**
 * Bearer token to `ctx.state.principal`, or 401 (500 when the key store fails). With
 * `tokenOptional`, a request without an `Authorization` header goes on without a principal;
 * one that sends a header is checked all the same.
 */
export const authenticate =
  (verify: TokenVerifier, log: HttpLog, tokenOptional = false): RouteMiddleware =>
  async (ctx, next) => {
    if (tokenOptional && authorizationHeaders(ctx.req.rawHeaders) === 0) {
      await next()
      return
    }
    // Two credentials are none: which one would a proxy, a log or another parser have seen?
    const r =
      authorizationHeaders(ctx.req.rawHeaders) > 1
        ? E.left(unauthenticated('more than one Authorization header'))
        : await verify(ctx.get('authorization') || undefined)()
    if (E.isLeft(r)) {
      // The body of a refused request is worthless: answered without being read.
      if (r.left._tag === 'Unauthenticated') closeConnectionAfterResponse(ctx)
      sendDomainError(ctx, log, r.left)
      return
    }
    ctx.state.principal = r.right
    await next()
  }
