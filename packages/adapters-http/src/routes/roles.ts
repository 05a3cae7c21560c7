import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { Role } from '@orka/domain'
import { accessOf } from '../context'
import { decodeQuery } from '../decode/decode'
import { validationErrorResponse } from '../error-response'
import { sendDomainError, sendErrorResponse, sendJson } from '../respond'
import { encodePage, pageQueryOf, pageQueryProps, rawPageQuery } from './page'
import { RouteHandler } from './route-deps'

const RolesQuery = t.partial(pageQueryProps)

/** GET /roles: the instance's catalogue, paginated; cursors are bound to the merchant account. */
export const listRoles: RouteHandler = (deps) => async (ctx) => {
  const access = accessOf(ctx)
  const q = decodeQuery(RolesQuery, ctx, rawPageQuery)
  if (E.isLeft(q)) return sendErrorResponse(ctx, validationErrorResponse(q.left))
  const r = await deps.useCases.listRoles({ merchantAccountId: access.merchantAccount.id, ...pageQueryOf(q.right) })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 200, encodePage(Role, r.right))
}
