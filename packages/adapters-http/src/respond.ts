import type { ParameterizedContext } from 'koa'
import { DomainError, IDEMPOTENCY_KEY_REUSED, ServiceKind } from '@orka/domain'
import { errorBodyJson, ErrorResponse, toErrorResponse } from './error-response'
import type { HttpLog } from './http-log'
import type { OrkaState } from './context'
import { redactCardNumbers, redactLogFields } from './log-redaction'

type AnyCtx = ParameterizedContext<OrkaState>

const sendJsonText = (ctx: AnyCtx, status: number, json: string, headers: Readonly<Record<string, string>>): void => {
  ctx.status = status
  ctx.set(headers)
  // Set as is: Koa's `type` setter would look the media type up on every response.
  ctx.set('Content-Type', 'application/json; charset=utf-8')
  ctx.body = json
}

/** Every response body is JSON we serialise ourselves, so its bytes are exactly what we encoded. */
export const sendJson = (ctx: AnyCtx, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void => {
  sendJsonText(ctx, status, JSON.stringify(body), headers)
}

export const sendNoContent = (ctx: AnyCtx): void => {
  ctx.status = 204
  ctx.body = null
}

/** An error body is bounded as it is serialised, whatever built it. */
export const sendErrorResponse = (ctx: AnyCtx, r: ErrorResponse): void => {
  sendJsonText(ctx, r.status, errorBodyJson(r.body), r.headers)
}

/**
 * An error's name, message and stack, for the log; never the request that caused it. A message
 * may still quote input (a parser's, a driver's), so card numbers in it are masked.
 */
export const serializeError = (e: unknown): Record<string, unknown> =>
  e instanceof Error
    ? redactLogFields({ type: e.name, message: e.message, stack: e.stack })
    : { type: typeof e, message: redactCardNumbers(String(e)) }

const SERVICE_NAMES: Readonly<Record<ServiceKind, string>> = { card: 'card service', 'gift-card': 'gift card service' }

/**
 * Says in the log what the response body must not (why a token or an access was refused, what
 * failed). Reasons may quote what a client or a gift card service sent: every string is redacted.
 */
const logDomainError = (log: HttpLog, requestId: string, e: DomainError): void => {
  switch (e._tag) {
    case 'Unauthenticated':
      log.info(redactLogFields({ requestId, reason: e.reason }), 'authentication failed')
      return
    case 'Forbidden':
      log.info(redactLogFields({ requestId, reason: e.reason }), 'access denied')
      return
    case 'ServiceFailed':
      log.warn(redactLogFields({ requestId, service: e.service, reason: e.reason }), `${SERVICE_NAMES[e.service]} failed`)
      return
    case 'ServiceTimeout':
      log.warn(redactLogFields({ requestId, service: e.service }), `${SERVICE_NAMES[e.service]} timed out`)
      return
    case 'Unavailable':
      log.error(redactLogFields({ requestId, err: serializeError(e.cause) }), 'dependency unavailable')
      return
    default:
      return
  }
}

export const sendDomainError = (ctx: AnyCtx, log: HttpLog, e: DomainError): void => {
  logDomainError(log, ctx.state.requestId, e)
  if (e._tag === 'InFlight') ctx.state.idempotencyConflict = 'in_flight'
  else if (e._tag === 'InvalidRequest' && e.problems.some((p) => p.type === IDEMPOTENCY_KEY_REUSED))
    ctx.state.idempotencyConflict = 'key_reused'
  sendErrorResponse(ctx, toErrorResponse(e))
}
