import * as E from 'fp-ts/Either'
import type { HttpLog } from '../app'
import type { TokenVerifier } from '../auth/verify-token'
import type { RouteMiddleware } from '../context'
import { sendDomainError } from '../respond'

/** Bearer token to `ctx.state.principal`, or 401 (500 when the key store fails). */
export const authenticate =
  (verify: TokenVerifier, log: HttpLog): RouteMiddleware =>
  async (ctx, next) => {
    const r = await verify(ctx.get('authorization') || undefined)()
    if (E.isLeft(r)) return sendDomainError(ctx, log, r.left)
    ctx.state.principal = r.right
    await next()
  }
