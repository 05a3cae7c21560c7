import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { inputStr } from '@orka/domain'
import type { makeAuthorize, Scope } from '@orka/domain'
import type { HttpLog } from '../types'
import { principalOf, RouteMiddleware } from '../context'
import { decodeWith, singleHeader } from '../decode/decode'
import { validationErrorResponse } from '../error-response'
import { sendDomainError, sendErrorResponse } from '../respond'

export interface MerchantAccountSelection {
  readonly merchantAccountHeader: string
  readonly defaultMerchantAccountId: string
}

/**
 * The merchant account header, as sent: once at most (sent twice, Node would join the values
 * with `, `), and a string the domain accepts (no NUL). Any value is otherwise looked up as it
 * is, so that an unknown and a malformed id get the same 403.
 */
const merchantAccountHeader = (name: string) => {
  const lower = name.toLowerCase()
  // Built once per route, not per request.
  const decode = decodeWith(t.partial({ [lower]: inputStr }), 'header')
  return (ctx: Parameters<RouteMiddleware>[0]) =>
    E.chain((v: string | undefined) =>
      // Most requests send none: nothing to decode.
      v === undefined ? E.right(undefined) : E.map((h: Record<string, string | undefined>) => h[lower])(decode({ [lower]: v })),
    )(singleHeader(ctx.req, lower))
}

/**
 * The route's scope against the token and its key, for the merchant account the request names.
 * A merchant account header sent more than once is a 422 on `['header', <name>]`. With
 * `tokenOptional`, a request that came without a token goes on with no access.
 */
export const authorize = (
  check: ReturnType<typeof makeAuthorize>,
  log: HttpLog,
  config: MerchantAccountSelection,
  required: Scope,
  tokenOptional = false,
): RouteMiddleware => {
  const accountOf = merchantAccountHeader(config.merchantAccountHeader)
  return async (ctx, next) => {
    if (tokenOptional && ctx.state.principal === undefined) {
      await next()
      return
    }
    const header = accountOf(ctx)
    if (E.isLeft(header)) {
      sendErrorResponse(ctx, validationErrorResponse(header.left))
      return
    }
    const sent = header.right
    const merchantAccountId = sent === undefined || sent === '' ? config.defaultMerchantAccountId : sent
    const r = await check({ principal: principalOf(ctx), merchantAccountId, required })()
    if (E.isLeft(r)) {
      sendDomainError(ctx, log, r.left)
      return
    }
    ctx.state.access = r.right
    await next()
  }
}
