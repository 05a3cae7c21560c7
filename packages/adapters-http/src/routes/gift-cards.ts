import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { boundedString, GiftCard, GiftCardActivationCreate } from '@orka/domain'
import { accessOf } from '../context'
import { decodeWith, singleHeader, violationsOf } from '../decode/decode'
import { readJsonBody } from '../decode/json-body'
import { validationErrorResponse } from '../error-response'
import { sendDomainError, sendErrorResponse, sendJson } from '../respond'
import { RouteHandler } from './route-deps'

/** A wire constraint of the header itself (the domain only ever sees a usable key or null). */
export const IDEMPOTENCY_KEY = boundedString('idempotency-key', { min: 1, max: 255 })
const IdempotencyHeaders = t.partial({ 'idempotency-key': IDEMPOTENCY_KEY })

/**
 * POST /gift-cards/activations. A replay (same key, same body) answers with the first
 * response's status and bytes plus `Idempotent-Replayed: true`, failures included.
 */
export const activateGiftCard: RouteHandler = (deps) => async (ctx) => {
  const access = accessOf(ctx)
  // Sent twice is refused (422), not joined into one key.
  const headers = E.chain((key: string | undefined) => decodeWith(IdempotencyHeaders, 'header')(key === undefined ? {} : { 'idempotency-key': key }))(
    singleHeader(ctx.req, 'idempotency-key'),
  )
  const body = E.chain(decodeWith(GiftCardActivationCreate, 'body'))(await readJsonBody(ctx, deps.config.maxBodyBytes))
  if (E.isLeft(headers) || E.isLeft(body)) return sendErrorResponse(ctx, validationErrorResponse(violationsOf(headers, body)))
  const r = await deps.useCases.activateGiftCard({
    merchantAccountId: access.merchantAccount.id,
    input: body.right,
    idempotencyKey: headers.right['idempotency-key'] ?? null,
  })()
  if (E.isLeft(r)) return sendDomainError(ctx, deps.log, r.left)
  sendJson(ctx, 201, GiftCard.encode(r.right.card), r.right.replayed ? { 'Idempotent-Replayed': 'true' } : {})
}
