import Router from '@koa/router'
import * as E from 'fp-ts/Either'
import type { OrkaState } from '../context'
import { readTextBody } from '../decode/json-body'
import { validationErrorResponse } from '../error-response'
import type { HttpLog } from '../http-log'
import { sendDomainError, sendErrorResponse } from '../respond'
import type { UseCases } from '../types'

/** Where each payment service's provider sends its webhooks (its `webhook_url`, under `PUBLIC_URL`). */
export const PROVIDER_WEBHOOK_PATH = '/provider-webhooks'

/** A provider's event is a few kilobytes; a body over this is no webhook of theirs. */
export const PROVIDER_WEBHOOK_MAX_BYTES = 256 * 1024

/** The request's headers as sent, a header sent twice as its list: the connector decides what that means for a signature. */
const headersOf = (raw: readonly string[]): Record<string, string | string[]> => {
  const out: Record<string, string | string[]> = {}
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase()
    const value = raw[i + 1] ?? ''
    const before = out[name]
    out[name] = before === undefined ? value : [...[before].flat(), value]
  }
  return out
}

/**
 * `POST /provider-webhooks/{merchant_account_id}/{payment_service_id}`: no token (a provider
 * has none); only a request signed with that service's secret is read (`401` otherwise, the
 * same answer whatever was wrong). The body is read as its exact bytes, bounded. Answered what
 * the provider expects (Adyen: `[accepted]`) once every event is applied; a `5xx` when storage
 * failed, so that the provider sends it again (applying is idempotent).
 */
export const providerWebhooksRouter = (useCases: Pick<UseCases, 'receiveProviderWebhook'>, log: HttpLog): Router<OrkaState> =>
  new Router<OrkaState>({ sensitive: true }).post(`${PROVIDER_WEBHOOK_PATH}/:merchant_account_id/:payment_service_id`, async (ctx) => {
    const body = await readTextBody(ctx, PROVIDER_WEBHOOK_MAX_BYTES)
    if (E.isLeft(body)) {
      sendErrorResponse(ctx, validationErrorResponse(body.left))
      return
    }
    const r = await useCases.receiveProviderWebhook({
      merchantAccountId: ctx.params.merchant_account_id ?? '',
      paymentServiceId: ctx.params.payment_service_id ?? '',
      webhook: { headers: headersOf(ctx.req.rawHeaders), body: body.right },
    })()
    if (E.isLeft(r)) {
      sendDomainError(ctx, log, r.left)
      return
    }
    ctx.status = 200
    ctx.type = r.right.contentType
    ctx.body = r.right.body
  })
