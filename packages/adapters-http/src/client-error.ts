import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { HttpLog } from './types'
import { ErrorBody, errorBody } from './error-response'

/** Re-exported here so that the package index exports everything log-related from one place. */
export { CARD_NUMBER_MIN_DIGITS, containsCardNumber, redactCardNumbers, redactJsonLine, redactLogFields } from './log-redaction'

/**
 * Client mistakes at the connection level: HTTP that does not parse (a bad chunk size, a bad
 * header line, a garbage request line, headers too large) and requests too slow to arrive
 * (Node's `headersTimeout`/`requestTimeout`). Node reports them as the server's `clientError`
 * event; without a listener it answers a bare `400` with no body. `clientErrorHandler` answers
 * in the spec's error envelope instead, closes the connection, and logs one line with the
 * error code only (the raw bytes a client sent never reach the log).
 */

/** The 408 body, in the spec's shape (the spec's table has no 408; the code is ours). */
export const REQUEST_TIMEOUT_BODY: ErrorBody = {
  type: 'error',
  code: 'request_timeout',
  status: 408,
  message: 'Request timed out',
  details: [],
}

export type ClientFaultStatus = 400 | 408

const REASON: Record<ClientFaultStatus, string> = { 400: 'Bad Request', 408: 'Request Timeout' }

/** The envelope a client fault is answered with. */
export const clientFaultBody = (status: ClientFaultStatus): ErrorBody => (status === 408 ? REQUEST_TIMEOUT_BODY : errorBody(400))

/** A whole HTTP/1.1 response, for the socket: there is no `ServerResponse` at this level. */
export const rawClientFaultResponse = (status: ClientFaultStatus): string => {
  const body = JSON.stringify(clientFaultBody(status))
  return (
    `HTTP/1.1 ${status} ${REASON[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n' +
    `\r\n${body}`
  )
}

interface ErrorFields {
  readonly name?: unknown
  readonly code?: unknown
  readonly type?: unknown
  readonly status?: unknown
  readonly statusCode?: unknown
  readonly expose?: unknown
  readonly message?: unknown
}
const fields = (e: unknown): ErrorFields => (typeof e === 'object' && e !== null ? e : {})

/** An error code as Node and raw-body write them; anything else is not logged. */
const SAFE_CODE = /^[A-Za-z][A-Za-z0-9_.]{0,63}$/
const safeCode = (v: unknown): string | undefined => (typeof v === 'string' && SAFE_CODE.test(v) ? v : undefined)

/** HTTP parser errors (llhttp's `HPE_*`): only ever caused by what a client sent. */
const isParseError = (code: string | undefined): boolean => code?.startsWith('HPE_') === true
const TIMEOUT = 'ERR_HTTP_REQUEST_TIMEOUT'
/** What a stream reports when the other end went away; a client fault only when our client did. */
const GONE_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ERR_STREAM_DESTROYED',
  'ERR_STREAM_WRITE_AFTER_END',
])

/** The request's connection is gone, or its body was cut short. Node's types say `socket` is always there; it can be null. */
const clientGone = (req: IncomingMessage | undefined): boolean =>
  req !== undefined && ((req.destroyed && !req.complete) || (req.socket as Socket | null)?.destroyed === true)

/**
 * Whether an error that escaped a request was the client's doing: a parser error, a request
 * timeout, an HTTP error marked for the client (`expose` with a 4xx status, as raw-body and
 * `ctx.throw` make them), or the request's own connection going away. Anything else (an
 * `ECONNRESET` from a storage or gift card service call while the client is still there) is
 * a server fault.
 */
export const isClientFault = (e: unknown, req?: IncomingMessage): boolean => {
  const f = fields(e)
  const code = safeCode(f.code)
  if (isParseError(code) || code === TIMEOUT) return true
  const status = typeof f.status === 'number' ? f.status : typeof f.statusCode === 'number' ? f.statusCode : undefined
  if (f.expose === true && status !== undefined && status >= 400 && status < 500) return true
  return clientGone(req) && ((code !== undefined && GONE_CODES.has(code)) || f.message === 'aborted')
}

/** 408 for a timeout, 400 for anything else the client got wrong. */
export const clientFaultStatus = (e: unknown): ClientFaultStatus => {
  const f = fields(e)
  return f.code === TIMEOUT || f.status === 408 || f.statusCode === 408 ? 408 : 400
}

/** What a log line says about a client fault: its class and code, never its message or bytes. */
export const clientFaultSummary = (e: unknown): { type: string; code?: string } => {
  const f = fields(e)
  const type = safeCode(f.name) ?? (e instanceof Error ? 'Error' : typeof e)
  const code = safeCode(f.code) ?? safeCode(f.type)
  return code === undefined ? { type } : { type, code }
}

/** Broken HTTP is worth a look (a broken client, or someone probing); slow or gone clients are routine. */
export const clientFaultLevel = (e: unknown): 'info' | 'warn' => (isParseError(safeCode(fields(e).code)) ? 'warn' : 'info')

/**
 * Connections cut for a parser error or a timeout, with the status the client was sent (null:
 * none, or none we know of). The access log reads it to say what became of a request in flight.
 */
const rejected = new WeakMap<object, ClientFaultStatus | null>()
export const rejectedWith = (socket: object | null | undefined): ClientFaultStatus | null | undefined =>
  socket ? rejected.get(socket) : undefined

/** Whether `e` makes Node's HTTP server cut the connection (a parser error, a timeout). */
export const isConnectionFault = (e: unknown): boolean => {
  const code = safeCode(fields(e).code)
  return isParseError(code) || code === TIMEOUT
}

/** Records that the connection was cut for `e`, when it is a parser error or a timeout, unless the handler already said how. */
export const noteConnectionFault = (socket: object | null | undefined, e: unknown): void => {
  if (socket && isConnectionFault(e) && !rejected.has(socket)) rejected.set(socket, null)
}

interface InFlight {
  readonly _httpMessage?: { readonly headersSent?: boolean } | null
}

/** How long the answer may take to flush before the connection is cut anyway. */
const FLUSH_MS = 1000

/**
 * The server's `clientError` listener: `server.on('clientError', clientErrorHandler(log))`.
 * A parser error is answered `400` (`bad_request`), a request or headers timeout `408`
 * (`request_timeout`), both in the error envelope and with `Connection: close`, when the
 * socket can still be written and no response has started on it; then the connection is
 * closed. A reset connection is just closed. One log line: the code and the status sent.
 */
export const clientErrorHandler =
  (log: HttpLog) =>
  (err: Error, socket: Duplex): void => {
    const code = safeCode(fields(err).code)
    const status: ClientFaultStatus | null = isParseError(code) ? 400 : code === TIMEOUT ? 408 : null
    const inFlight = (socket as Duplex & InFlight)._httpMessage
    const canAnswer = status !== null && socket.writable && !socket.destroyed && inFlight?.headersSent !== true
    const sent = canAnswer ? status : null
    if (status !== null) rejected.set(socket, sent)
    log[clientFaultLevel(err)]({ code: code ?? 'unknown', status: sent }, 'client connection error')
    if (sent === null) {
      socket.destroy()
      return
    }
    const cut = setTimeout(() => socket.destroy(), FLUSH_MS)
    cut.unref()
    socket.end(rawClientFaultResponse(sent), () => {
      clearTimeout(cut)
      socket.destroy()
    })
  }
