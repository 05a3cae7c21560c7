import getRawBody from 'raw-body'
import * as E from 'fp-ts/Either'
import type { IncomingMessage } from 'node:http'
import type { ParameterizedContext } from 'koa'
import type { OrkaState } from '../context'
import { closeConnectionAfterResponse } from '../close-connection'
import { Decoded } from './decode'
import { Violation } from './violations'
import { messageOf } from './messages'

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json$/i

const fault = (type: string, msg: string): Decoded<never> => E.left([{ loc: ['body'], msg, type }])

/**
 * Every way reading the body can fail is a 422 on `['body']` (type `value_error`), never an
 * exception: raw-body's own errors by their `type`, anything else (the stream's errors, a
 * parser fault, a socket already gone) as "could not be read". The messages are fixed texts.
 */
export const BODY_READ_MESSAGES = {
  tooLarge: (maxBytes: number) => `Request body must not exceed ${maxBytes} bytes`,
  lengthMismatch: 'Request body length does not match Content-Length',
  incomplete: 'Request body was not received completely',
  unreadable: 'Request body could not be read',
  /** type `json_invalid`: the bytes are not UTF-8 (RFC 8259 requires it), nothing is decoded. */
  notUtf8: 'Request body must be valid UTF-8',
} as const

interface RawBodyError {
  readonly type?: string
}
const rawBodyErrorType = (e: unknown): string | undefined =>
  typeof e === 'object' && e !== null && typeof (e as RawBodyError).type === 'string' ? (e as RawBodyError).type : undefined

const readFailure = (e: unknown, maxBytes: number): Decoded<never> => {
  switch (rawBodyErrorType(e)) {
    case 'entity.too.large':
      return fault('value_error', BODY_READ_MESSAGES.tooLarge(maxBytes))
    case 'request.size.invalid':
      return fault('value_error', BODY_READ_MESSAGES.lengthMismatch)
    case 'request.aborted':
      return fault('value_error', BODY_READ_MESSAGES.incomplete)
    // 'stream.not.readable' (the request was destroyed before we read it), 'stream.encoding.set',
    // an error of the stream itself (ECONNRESET, a parse error), or anything unforeseen.
    default:
      return fault('value_error', BODY_READ_MESSAGES.unreadable)
  }
}

/**
 * The declared `Content-Length`: a number, `undefined` when there is none, `Infinity` when it
 * is not a safe integer. (Koa's `request.length` truncates it to 32 bits: 4294967297 reads as 1.)
 */
export const declaredLength = (req: IncomingMessage): number | undefined => {
  const v = req.headers['content-length']
  if (v === undefined || v === '') return undefined
  const n = /^\d{1,15}$/.test(v.trim()) ? Number(v.trim()) : Number.POSITIVE_INFINITY
  return Number.isSafeInteger(n) ? n : Number.POSITIVE_INFINITY
}

/**
 * The body's bytes, at most `limit`. raw-body settles on `end`, `error` and `aborted`; should the
 * request close without any of them, its listeners go and its promise would never settle, so a
 * `close` that leaves it unsettled is an abort too.
 */
const readBytes = (req: IncomingMessage, limit: number, length: number | undefined): Promise<Buffer> =>
  new Promise<Buffer>((resolve, reject) => {
    let settled = false
    const settle = (f: () => void) => {
      if (settled) return
      settled = true
      req.removeListener('close', onClose)
      f()
    }
    const onClose = () =>
      setImmediate(() => {
        settle(() => {
          reject(Object.assign(new Error('request closed before its body was read'), { type: 'request.aborted' }))
        })
      })
    req.once('close', onClose)
    getRawBody(req, { limit, ...(length === undefined ? {} : { length }) }).then(
      (b) => {
        settle(() => {
          resolve(b)
        })
      },
      (e: unknown) => {
        settle(() => {
          // raw-body rejects with its own errors (status, type, expose): passed on as they are.
          reject(e instanceof Error ? e : new Error('request body could not be read', { cause: e }))
        })
      },
    )
  })

const UTF8 = new TextDecoder('utf-8', { fatal: true })

/**
 * The request body as a JSON value, read with a size cap. Every way it can be unusable is a 422
 * on `['body']`; nothing the client sent is echoed, since the body may hold a card number.
 * No `Content-Type` is accepted and parsed as JSON (clients built for the original API do
 * this); a `Content-Type` that is not JSON is refused. A body declared larger than the cap is
 * refused without reading it; when the body is refused for its size or could not be read, the
 * connection is closed after the answer rather than drained.
 */
export const readJsonBody = (ctx: ParameterizedContext<OrkaState>, maxBytes: number): Promise<Decoded<unknown>> =>
  readBody(ctx, maxBytes, undefined)

/** The body's bytes, at most `maxBytes`, uncompressed; a 422 for any other. */
const readRaw = async (ctx: ParameterizedContext<OrkaState>, maxBytes: number): Promise<Decoded<Buffer>> => {
  const encoding = ctx.get('content-encoding').toLowerCase()
  if (encoding !== '' && encoding !== 'identity')
    return fault('value_error', `Content-Encoding '${encoding.slice(0, 40)}' is not supported; send the body uncompressed`)
  const length = declaredLength(ctx.req)
  if (length !== undefined && length > maxBytes) {
    closeConnectionAfterResponse(ctx)
    return fault('value_error', BODY_READ_MESSAGES.tooLarge(maxBytes))
  }
  try {
    return E.right(await readBytes(ctx.req, maxBytes, length))
  } catch (e) {
    closeConnectionAfterResponse(ctx)
    return readFailure(e, maxBytes)
  }
}

/** Strict: a byte sequence that is not UTF-8 is refused, not turned into U+FFFD (which would make two different bodies one). */
const utf8Of = (bytes: Buffer): Decoded<string> => {
  try {
    return E.right(UTF8.decode(bytes))
  } catch {
    return fault('json_invalid', BODY_READ_MESSAGES.notUtf8)
  }
}

/**
 * The body's exact text, read with the same cap and refusals as a JSON body (for what is checked
 * over its bytes: a provider's signed webhook). No bytes is the empty text.
 */
export const readTextBody = async (ctx: ParameterizedContext<OrkaState>, maxBytes: number): Promise<Decoded<string>> =>
  E.flatMap(utf8Of)(await readRaw(ctx, maxBytes))

/** `empty`: what a body of no bytes reads as; a 422 `missing` when there is none. */
const readBody = async (
  ctx: ParameterizedContext<OrkaState>,
  maxBytes: number,
  empty: { readonly value: unknown } | undefined,
): Promise<Decoded<unknown>> => {
  const raw = await readRaw(ctx, maxBytes)
  if (E.isLeft(raw)) return raw
  const bytes = raw.right
  if (bytes.length === 0)
    return empty !== undefined
      ? E.right(empty.value)
      : E.left<readonly Violation[]>([{ loc: ['body'], msg: messageOf({ type: 'missing' }), type: 'missing' }])
  const contentType = ctx.get('content-type')
  if (contentType !== '' && !JSON_TYPE.test(ctx.request.type))
    return fault('model_attributes_type', 'Request body must be JSON: send it with Content-Type: application/json')
  // A leading byte order mark is dropped (TextDecoder's default).
  const text = utf8Of(bytes)
  if (E.isLeft(text)) return text
  try {
    return E.right(JSON.parse(text.right))
  } catch {
    // No input and no parser message: both would echo what was sent.
    return fault('json_invalid', 'JSON decode error')
  }
}

/**
 * Like `readJsonBody`, for an operation whose body may be left out: a request without one (no
 * `Content-Length`, or `0`, and no `Transfer-Encoding`), or whose body has no bytes (chunked,
 * ending at once), reads as `absent`, whatever its `Content-Type`.
 */
export const readOptionalJsonBody = async (
  ctx: ParameterizedContext<OrkaState>,
  maxBytes: number,
  absent: unknown,
): Promise<Decoded<unknown>> => {
  const hasBody = (declaredLength(ctx.req) ?? 0) > 0 || ctx.get('transfer-encoding') !== ''
  return hasBody ? readBody(ctx, maxBytes, { value: absent }) : E.right(absent)
}
