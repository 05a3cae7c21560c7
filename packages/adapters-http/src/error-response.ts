import { CommandField, DomainError, Problem, Quota } from '@orka/domain'
import { Violation } from './decode/violations'
import { messageOf } from './decode/messages'

export type ErrorLocation = 'query' | 'body' | 'path' | 'header' | 'unknown'

/** One faulty property of a request: the spec's ErrorDetail. */
export interface ErrorDetail {
  readonly location: ErrorLocation
  readonly pointer: string
  readonly message: string
  readonly type: string
}

/**
 * Where each field of a use case's command arrives in a request: the part, and the pointer of
 * the field itself (a problem's path inside the field extends it).
 */
const ARRIVES: Readonly<Record<CommandField, { readonly location: ErrorLocation; readonly pointer: string }>> = {
  input: { location: 'body', pointer: '' },
  query: { location: 'query', pointer: '' },
  cursor: { location: 'query', pointer: '/cursor' },
  idempotencyKey: { location: 'header', pointer: '/idempotency-key' },
  subscriptionId: { location: 'path', pointer: '/subscription_id' },
  deliveryId: { location: 'path', pointer: '/delivery_id' },
}

const escapePointer = (step: string) => step.replace(/~/g, '~0').replace(/\//g, '~1')

const errorDetail = (p: Problem): ErrorDetail => {
  const { location, pointer } = p.field === null ? { location: 'unknown' as const, pointer: '' } : ARRIVES[p.field]
  return { location, pointer: pointer + p.path.map((step) => `/${escapePointer(step)}`).join(''), message: p.message, type: p.type }
}

/** The spec's error body (every status but 422). `resource_id` only ever appears on a 409. */
export interface ErrorBody {
  readonly type: 'error'
  readonly code: string
  readonly status: number
  readonly message: string
  readonly details: readonly ErrorDetail[]
  readonly resource_id?: string | null
}

/** The 422 body: FastAPI/pydantic style `detail[]`, built by `toViolations`. */
export interface ValidationBody {
  readonly detail: readonly Violation[]
}

export interface ErrorResponse {
  readonly status: number
  readonly body: ErrorBody | ValidationBody
  readonly headers: Readonly<Record<string, string>>
}

const CODES = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  409: 'duplicate_record',
  425: 'too_early',
  429: 'too_many_requests',
  500: 'server_error',
  502: 'bad_gateway',
  504: 'gateway_timeout',
} as const
export type ErrorStatus = keyof typeof CODES

const defaultMessage = (status: ErrorStatus): string => {
  switch (status) {
    case 401:
      return 'No valid API authentication found'
    case 404:
      return 'The resource could not be found'
    case 405:
      return 'Method Not Allowed'
    case 500:
    case 502:
    case 504:
      return 'Request could not be processed'
    default:
      return 'Generic error'
  }
}

export const errorBody = (status: ErrorStatus, details: readonly ErrorDetail[] = []): ErrorBody => ({
  type: 'error',
  code: CODES[status],
  status,
  message: defaultMessage(status),
  details,
})

const respond = (status: ErrorStatus, details: readonly ErrorDetail[] = [], headers: Record<string, string> = {}): ErrorResponse => ({
  status,
  body: errorBody(status, details),
  headers,
})

/**
 * `Retry-After` (seconds) on a `500` caused by `Unavailable`: storage failed, or did not answer
 * within `STORAGE_TIMEOUT_MS`. Such failures are transient (the driver reconnects by itself), so
 * a client may retry soon; one second keeps retries from hammering a struggling database while
 * readiness (`/readyz`, 503) steers load balancers away. An unexpected exception gets no
 * `Retry-After`: retrying a bug does not help.
 */
export const UNAVAILABLE_RETRY_AFTER_S = 1

/** IETF httpapi RateLimit headers (draft-ietf-httpapi-ratelimit-headers, structured-field form). */
export const rateLimitHeaders = (q: Quota): Record<string, string> => ({
  'RateLimit-Policy': `"${q.policy}";q=${q.limit};w=${q.windowS}`,
  RateLimit: `"${q.policy}";r=${q.remaining};t=${q.resetS}`,
})

/**
 * The one place a domain error becomes HTTP. No `default`: a new variant of `DomainError`
 * fails to compile here until it is given a status.
 */
export function toErrorResponse(e: DomainError): ErrorResponse {
  switch (e._tag) {
    case 'Unauthenticated':
      // The reason is for the log only: telling a caller which check failed helps forgers.
      return respond(401, [], { 'WWW-Authenticate': 'Bearer' })
    case 'Forbidden':
      // Every reason gets the same body, so a caller cannot probe merchant account ids.
      return respond(403)
    case 'NotFound':
      return respond(404, e.problem === undefined ? [] : [errorDetail(e.problem)])
    case 'InvalidRequest': {
      const r = respond(400, e.problems.map(errorDetail))
      return e.message === undefined ? r : { ...r, body: { ...r.body, message: e.message } }
    }
    case 'InvalidInput':
      // Same 422 shape as a codec failure; the value is not echoed (a URL may carry credentials).
      return validationErrorResponse(
        e.violations.map((v) => ({ loc: ['body', ...v.path], msg: messageOf({ type: 'value_error', rule: v.msg }), type: 'value_error' })),
      )
    case 'Conflict':
      return { status: 409, body: { ...errorBody(409, [errorDetail(e.problem)]), resource_id: e.resourceId }, headers: {} }
    case 'CardDeclined':
      return respond(400, [{ location: 'body', pointer: '/number', message: e.reason, type: 'card_declined' }])
    case 'Duplicate':
      return { status: 409, body: { ...errorBody(409), resource_id: e.existingId }, headers: {} }
    case 'InFlight':
      return respond(425, [], { 'Retry-After': `${e.retryAfterS}` })
    case 'RateLimited':
      return respond(429, [], { 'Retry-After': `${e.retryAfterS}`, ...rateLimitHeaders(e.quota) })
    case 'Replayed': {
      const inner = toErrorResponse(e.error)
      return { ...inner, headers: { ...inner.headers, 'Idempotent-Replayed': 'true' } }
    }
    case 'ServiceFailed':
      return respond(502)
    case 'ServiceTimeout':
      return respond(504)
    case 'Unavailable':
      // The body says nothing of the cause (the log has it); the header says it is worth retrying.
      return respond(500, [], { 'Retry-After': `${UNAVAILABLE_RETRY_AFTER_S}` })
  }
}

/** A request that fails its declared schema: 422 with the violations the codecs explained. */
export const validationErrorResponse = (detail: readonly Violation[]): ErrorResponse => ({ status: 422, body: { detail }, headers: {} })

/** The most entries an error body lists (422 `detail`, others' `details`); the last then says how many there were. */
export const MAX_ERROR_ENTRIES = 50
/** No error body is larger, whatever the request. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024
/** The `type` of the entry that stands for the faults left out. */
export const TOO_MANY_ERRORS = 'too_many_errors'

const omittedMessage = (more: number, total: number) => `... and ${more} more error${more === 1 ? '' : 's'} (${total} in all)`
const omittedViolation = (next: Violation, more: number, total: number): Violation => ({
  loc: next.loc.slice(0, 1),
  msg: omittedMessage(more, total),
  type: TOO_MANY_ERRORS,
  ctx: { total },
})
const omittedDetail = (next: ErrorDetail, more: number, total: number): ErrorDetail => ({
  location: next.location,
  pointer: '',
  message: omittedMessage(more, total),
  type: TOO_MANY_ERRORS,
})

/**
 * The JSON of a body listing `entries`: all of them when they are at most `MAX_ERROR_ENTRIES`
 * and fit in `MAX_ERROR_BODY_BYTES`; else the first ones that fit with room for one more entry,
 * `omitted`, saying how many were left out. Sizes are measured serialised, escapes included;
 * the rest of a body is ours and small, so this bounds the whole body whatever a codec explains.
 */
const fitted = <T>(
  entries: readonly T[],
  render: (kept: readonly T[]) => string,
  omitted: (next: T, more: number, total: number) => T,
): string => {
  const total = entries.length
  if (total <= MAX_ERROR_ENTRIES) {
    const text = render(entries)
    if (total === 0 || Buffer.byteLength(text) <= MAX_ERROR_BODY_BYTES) return text
  }
  const summary = (kept: number) => omitted(entries[kept] as T, total - kept, total)
  // The bytes of each entry that may be kept, its comma included: the body is rendered once more, knowing it fits.
  const sizes = entries.slice(0, Math.min(total, MAX_ERROR_ENTRIES) - 1).map((e) => Buffer.byteLength(JSON.stringify(e)) + 1)
  let bytes = Buffer.byteLength(render([])) + sizes.reduce((a, b) => a + b, 0)
  while (sizes.length > 0 && bytes + Buffer.byteLength(JSON.stringify(summary(sizes.length))) > MAX_ERROR_BODY_BYTES)
    bytes -= sizes.pop() ?? 0
  return render([...entries.slice(0, sizes.length), summary(sizes.length)])
}

/** An error body as sent: at most `MAX_ERROR_ENTRIES` entries and `MAX_ERROR_BODY_BYTES` bytes (see `fitted`). */
export const errorBodyJson = (body: ErrorBody | ValidationBody): string =>
  'detail' in body
    ? fitted(body.detail, (detail) => JSON.stringify({ ...body, detail }), omittedViolation)
    : fitted(body.details, (details) => JSON.stringify({ ...body, details }), omittedDetail)

/** Unknown route. */
export const notFoundResponse = (): ErrorResponse => respond(404)

/** Known path, method not served there. */
export const methodNotAllowedResponse = (allow: readonly string[]): ErrorResponse => respond(405, [], { Allow: allow.join(', ') })

/** An unexpected exception: a body that says nothing about what went wrong. */
export const serverErrorResponse = (): ErrorResponse => respond(500)
