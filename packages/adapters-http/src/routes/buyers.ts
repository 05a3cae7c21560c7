import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { Buyer, BuyerCreate } from '@orka/domain'
import { accessOf } from '../context'
import { decodeQuery, decodeWith } from '../decode/decode'
import { readJsonBody } from '../decode/json-body'
import { validationErrorResponse } from '../error-response'
import { sendDomainError, sendErrorResponse, sendJson } from '../respond'
import { encodePage, pageQueryOf, pageQueryProps, rawPageQuery } from './page'
import { RouteHandler } from './route-deps'

/** The filter has the constraints of the field it filters on. */
const BuyersQuery = t.partial({ ...pageQueryProps, external_identifier: BuyerCreate.optional.external_identifier.inner })

/** POST /buyers: 201 with the buyer; a taken `external_identifier` is a 409 naming the existing buyer. */
export const createBuyer: RouteHandler = (deps) => async (ctx) => {
  const access = accessOf(ctx)
  const body = E.chain(decodeWith(BuyerCreate, 'body'))(await readJsonBody(ctx, deps.config.maxBodyBytes))
  if (E.isLeft(body)) return sendErrorResponse(ctx, validationErrorResponse(body.left))
  const r = await deps.useCases.createBuyer({ merchantAccountId: access.merchantAccount.id, input: body.right })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 201, Buyer.encode(r.right))
}

/** GET /buyers: the account's buyers, newest first, optionally by `external_identifier`. */
export const listBuyers: RouteHandler = (deps) => async (ctx) => {
  const access = accessOf(ctx)
  const q = decodeQuery(BuyersQuery, ctx, (query) => ({ ...rawPageQuery(query), external_identifier: query['external_identifier'] }))
  if (E.isLeft(q)) return sendErrorResponse(ctx, validationErrorResponse(q.left))
  const { external_identifier, ...page } = q.right
  const r = await deps.useCases.listBuyers({
    merchantAccountId: access.merchantAccount.id,
    filter: external_identifier === undefined ? {} : { external_identifier },
    ...pageQueryOf(page),
  })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 200, encodePage(Buyer, r.right))
}
