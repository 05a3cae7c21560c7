import getRawBody from 'raw-body'
import * as E from 'fp-ts/Either'
import type { ParameterizedContext } from 'koa'
import { Violation } from '@orka/domain'
import type { OrkaState } from '../context'
import { Decoded } from './decode'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i

const fault = (type: string, msg: string): Decoded<never> => E.left([{ loc: ['body'], msg, type }])

interface RawBodyError {
  readonly type?: string
}
const rawBodyErrorType = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && typeof (e as RawBodyError).type === 'string' ? (e as RawBodyError).type : undefined

/**
 * The request body as a JSON value, read with a size cap. Every way it can be unusable is a 422
 * on `['body']`; nothing the client sent is echoed, since the body may hold a card number.
 * No `Content-Type` is accepted and parsed as JSON (clients built for the original API do
 * this); a `Content-Type` that is not JSON is refused.
 */
export const readJsonBody = async (ctx: ParameterizedContext<OrkaState>, maxBytes: number): Promise<Decoded<unknown>> => {
  const encoding = ctx.get('content-encoding').toLowerCase()
  if (encoding !== '' && encoding !== 'identity')
    return fault('value_error', `Content-Encoding '${encoding.slice(0, 40)}' is not supported; send the body uncompressed`)
  const length = ctx.request.length
  let text: string
  try {
    text = await getRawBody(ctx.req, { limit: maxBytes, encoding: 'utf-8', ...(length === undefined ? {} : { length }) })
  } catch (e) {
    const type = rawBodyErrorType(e)
    if (type === 'entity.too.large') {
      // The rest of an oversized body is not read: close the connection instead of draining it.
      ctx.set('Connection', 'close')
      return fault('value_error', `Request body must not exceed ${maxBytes} bytes`)
    }
    if (type === 'request.size.invalid') return fault('value_error', 'Request body length does not match Content-Length')
    if (type === 'request.aborted') return fault('value_error', 'Request body was not received completely')
    throw e
  }
  if (text.length === 0) return E.left<ReadonlyArray<Violation>>([{ loc: ['body'], msg: 'Field required', type: 'missing' }])
  const contentType = ctx.get('content-type')
  if (contentType !== '' && !JSON_TYPE.test(ctx.request.type))
    return fault('model_attributes_type', 'Request body must be JSON: send it with Content-Type: application/json')
  try {
    return E.right(JSON.parse(text))
  } catch {
    // No input and no parser message: both would echo what was sent.
    return fault('json_invalid', 'JSON decode error')
  }
}

/**
 * Like `readJsonBody`, for an operation whose body may be left out: a request without one (no
 * `Content-Length`, or `0`, and no `Transfer-Encoding`) reads as `absent`.
 */
export const readOptionalJsonBody = async (ctx: ParameterizedContext<OrkaState>, maxBytes: number, absent: unknown): Promise<Decoded<unknown>> => {
  const hasBody = (ctx.request.length ?? 0) > 0 || ctx.get('transfer-encoding') !== ''
  return hasBody ? readJsonBody(ctx, maxBytes) : E.right(absent)
}
