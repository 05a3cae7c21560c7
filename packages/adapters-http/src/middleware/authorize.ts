import * as E from 'fp-ts/Either'
import type { makeAuthorize, Scope } from '@orka/domain'
import type { HttpLog } from '../app'
import { principalOf, RouteMiddleware } from '../context'
import { sendDomainError } from '../respond'

export interface MerchantAccountSelection {
  readonly merchantAccountHeader: string
  readonly defaultMerchantAccountId: string
}

/** The route's scope against the token and its key, for the merchant account the request names. */
export const authorize =
  (check: ReturnType<typeof makeAuthorize>, log: HttpLog, config: MerchantAccountSelection, required: Scope): RouteMiddleware =>
  async (ctx, next) => {
    const merchantAccountId = ctx.get(config.merchantAccountHeader) || config.defaultMerchantAccountId
    const r = await check({ principal: principalOf(ctx), merchantAccountId, required })()
    if (E.isLeft(r)) return sendDomainError(ctx, log, r.left)
    ctx.state.access = r.right
    await next()
  }
