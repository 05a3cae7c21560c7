import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { canonicalUuid, WebhookDelivery, WebhookDeliveryStatus } from '@orka/domain'
import { decodeQuery, decodeWith } from '../decode/decode'
import { validationErrorResponse } from '../error-response'
import { sendDomainError, sendErrorResponse, sendJson } from '../respond'
import { encodePage, pageQueryOf, pageQueryProps, rawPageQuery } from './page'
import { RouteHandler } from './route-deps'
import { scopeOf, SubscriptionPath } from './webhook-subscriptions'

const DeliveriesQuery = t.partial({ ...pageQueryProps, status: WebhookDeliveryStatus })
const DeliveryPath = t.type({ subscription_id: canonicalUuid, delivery_id: canonicalUuid })

/** GET deliveries: the subscription's delivery log, newest first, optionally by `status`. */
export const listWebhookDeliveries: RouteHandler = (deps) => async (ctx) => {
  const scope = scopeOf(ctx)
  const p = decodeWith(SubscriptionPath, 'path')(ctx.params)
  if (E.isLeft(p)) return sendErrorResponse(ctx, validationErrorResponse(p.left))
  const q = decodeQuery(DeliveriesQuery, ctx, (query) => ({ ...rawPageQuery(query), status: query['status'] }))
  if (E.isLeft(q)) return sendErrorResponse(ctx, validationErrorResponse(q.left))
  const { status, ...page } = q.right
  const r = await deps.useCases.listWebhookDeliveries({
    scope,
    subscriptionId: p.right.subscription_id,
    filter: status === undefined ? {} : { status },
    ...pageQueryOf(page),
  })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 200, encodePage(WebhookDelivery, r.right))
}

/** POST redeliver: 202, the delivery pending again; its attempt runs in the background. */
export const redeliverWebhookDelivery: RouteHandler = (deps) => async (ctx) => {
  const scope = scopeOf(ctx)
  const p = decodeWith(DeliveryPath, 'path')(ctx.params)
  if (E.isLeft(p)) return sendErrorResponse(ctx, validationErrorResponse(p.left))
  const r = await deps.useCases.redeliverWebhookDelivery({ scope, subscriptionId: p.right.subscription_id, deliveryId: p.right.delivery_id })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 202, WebhookDelivery.encode(r.right))
}
