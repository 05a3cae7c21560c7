import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { canonicalUuid, WebhookScope, WebhookSecretRotation, WebhookSubscription, WebhookSubscriptionCreate, WebhookSubscriptionUpdate } from '@orka/domain'
import { accessOf, Ctx } from '../context'
import { decodeQuery, decodeWith } from '../decode/decode'
import { readJsonBody, readOptionalJsonBody } from '../decode/json-body'
import { validationErrorResponse } from '../error-response'
import { sendDomainError, sendErrorResponse, sendJson, sendNoContent } from '../respond'
import { encodePage, pageQueryOf, pageQueryProps, rawPageQuery } from './page'
import { RouteHandler } from './route-deps'

const ListQuery = t.partial(pageQueryProps)
/** Path ids are UUIDs compared case-insensitively: decoded to lower case, the form stored ids have. */
export const SubscriptionPath = t.type({ subscription_id: canonicalUuid })

/** The account's subscriptions, plus the instance-wide ones for a key bound to no account. */
export const scopeOf = (ctx: Ctx): WebhookScope => {
  const access = accessOf(ctx)
  return { merchantAccountId: access.merchantAccount.id, includeInstanceWide: access.principal.key.merchant_account_id === null }
}

export const createWebhookSubscription: RouteHandler = (deps) => async (ctx) => {
  const access = accessOf(ctx)
  const body = E.chain(decodeWith(WebhookSubscriptionCreate, 'body'))(await readJsonBody(ctx, deps.config.maxBodyBytes))
  if (E.isLeft(body)) return sendErrorResponse(ctx, validationErrorResponse(body.left))
  const r = await deps.useCases.createWebhookSubscription({ merchantAccountId: access.merchantAccount.id, input: body.right })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 201, WebhookSubscription.encode(r.right))
}

export const listWebhookSubscriptions: RouteHandler = (deps) => async (ctx) => {
  const scope = scopeOf(ctx)
  const q = decodeQuery(ListQuery, ctx, rawPageQuery)
  if (E.isLeft(q)) return sendErrorResponse(ctx, validationErrorResponse(q.left))
  const r = await deps.useCases.listWebhookSubscriptions({ scope, ...pageQueryOf(q.right) })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 200, encodePage(WebhookSubscription, r.right))
}

export const getWebhookSubscription: RouteHandler = (deps) => async (ctx) => {
  const scope = scopeOf(ctx)
  const p = decodeWith(SubscriptionPath, 'path')(ctx.params)
  if (E.isLeft(p)) return sendErrorResponse(ctx, validationErrorResponse(p.left))
  const r = await deps.useCases.getWebhookSubscription({ scope, id: p.right.subscription_id })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 200, WebhookSubscription.encode(r.right))
}

/** DELETE: 204 and no body; unknown, already deleted and another account's are all 404. */
export const deleteWebhookSubscription: RouteHandler = (deps) => async (ctx) => {
  const scope = scopeOf(ctx)
  const p = decodeWith(SubscriptionPath, 'path')(ctx.params)
  if (E.isLeft(p)) return sendErrorResponse(ctx, validationErrorResponse(p.left))
  const r = await deps.useCases.deleteWebhookSubscription({ scope, id: p.right.subscription_id })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendNoContent(ctx)
}

/** PUT: the original API's update; `active: false` also cancels what was queued for it. */
export const updateWebhookSubscription: RouteHandler = (deps) => async (ctx) => {
  const scope = scopeOf(ctx)
  const p = decodeWith(SubscriptionPath, 'path')(ctx.params)
  if (E.isLeft(p)) return sendErrorResponse(ctx, validationErrorResponse(p.left))
  const body = E.chain(decodeWith(WebhookSubscriptionUpdate, 'body'))(await readJsonBody(ctx, deps.config.maxBodyBytes))
  if (E.isLeft(body)) return sendErrorResponse(ctx, validationErrorResponse(body.left))
  const r = await deps.useCases.updateWebhookSubscription({ scope, id: p.right.subscription_id, input: body.right })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 200, WebhookSubscription.encode(r.right))
}

/** POST rotate-secret: the body is optional (no body: the previous secret stops at once). */
export const rotateWebhookSecret: RouteHandler = (deps) => async (ctx) => {
  const scope = scopeOf(ctx)
  const p = decodeWith(SubscriptionPath, 'path')(ctx.params)
  if (E.isLeft(p)) return sendErrorResponse(ctx, validationErrorResponse(p.left))
  const body = E.chain(decodeWith(WebhookSecretRotation, 'body'))(await readOptionalJsonBody(ctx, deps.config.maxBodyBytes, {}))
  if (E.isLeft(body)) return sendErrorResponse(ctx, validationErrorResponse(body.left))
  const r = await deps.useCases.rotateWebhookSecret({ scope, id: p.right.subscription_id, input: body.right })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 200, WebhookSubscription.encode(r.right))
}
