import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { Access, actsAsServer, Answered, boundedString, failedValidation, forbidden, problem, Refined } from '@orka/domain'
import { accessOf, Ctx, RouteMiddleware } from '../context'
import { Decoded, decodeQuery, decodeWith, singleHeader, violationsOf } from '../decode/decode'
import { readJsonBody, readOptionalJsonBody } from '../decode/json-body'
import { validationErrorResponse } from '../error-response'
import { sendDomainError, sendErrorResponse, sendJson, sendNoContent } from '../respond'
import type { HttpDeps } from '../types'
import type { ParameterDocs, ServedOperation } from './operation'

/** A wire constraint of the header itself (the domain only ever sees a usable key or null). */
export const IDEMPOTENCY_KEY = boundedString('idempotency-key', { min: 1, max: 255 })
const IdempotencyHeaders = t.partial({ 'idempotency-key': IDEMPOTENCY_KEY })

/** Sent twice is refused (422), not joined into one key. */
const idempotencyKeyOf = (ctx: Ctx): Decoded<string | null> =>
  E.map((h: t.TypeOf<typeof IdempotencyHeaders>) => h['idempotency-key'] ?? null)(
    E.chain((key: string | undefined) => decodeWith(IdempotencyHeaders, 'header')(key === undefined ? {} : { 'idempotency-key': key }))(
      singleHeader(ctx.req, 'idempotency-key'),
    ),
  )

const codecs = (docs: ParameterDocs): t.Props => Object.fromEntries(Object.entries(docs).map(([name, p]) => [name, p.codec]))

/** The declared parameters, read from the query as their `parse` says; other query parameters are ignored. */
const pick = (docs: ParameterDocs) => (query: Record<string, string | string[] | undefined>) =>
  Object.fromEntries(Object.entries(docs).map(([name, p]) => [name, p.parse ? p.parse(query[name]) : query[name]]))

/** Only the query parameters that were sent: an absent one is no key at all. */
const sent = (values: Record<string, unknown>) => Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined))

const NONE = E.right({})

/** A `serverOnly` operation's scope must be granted to the token as a server's (`actsAsServer`). */
const byServer = (access: Access | null, scope: string): boolean => access === null || actsAsServer(access.principal, scope)

const queryOf = (docs: ParameterDocs, rules: ServedOperation['queryRules']) => {
  const codec = rules ? new Refined(t.partial(codecs(docs)), rules) : t.partial(codecs(docs))
  return {
    codec,
    pick: pick(docs),
    // No query string is the common case: its answer is the same every time (codecs are pure), shared frozen.
    none: E.map((v: Record<string, unknown>) => Object.freeze(sent(v)))(decodeWith(codec, 'query')({})),
  }
}

/**
 * The route handler of an operation: decode, call the use case, respond. Path parameters are
 * decoded first, then the query (each failing alone), then headers and body together.
 */
export const serve = (op: ServedOperation, deps: Pick<HttpDeps, 'log' | 'config' | 'useCases'>): RouteMiddleware => {
  const handle = op.handle(deps.useCases)
  const path = op.params && t.type(codecs(op.params))
  const query = op.query && queryOf(op.query, op.queryRules)
  const readBody = (ctx: Ctx) =>
    op.optionalBody ? readOptionalJsonBody(ctx, deps.config.maxBodyBytes, {}) : readJsonBody(ctx, deps.config.maxBodyBytes)
  return async (ctx) => {
    const access = op.tokenOptional === true ? (ctx.state.access ?? null) : accessOf(ctx)
    const params = path ? decodeWith(path, 'path')(ctx.params) : NONE
    if (E.isLeft(params)) {
      sendErrorResponse(ctx, validationErrorResponse(params.left))
      return
    }
    const refused = op.refusedQuery?.filter((name) => ctx.query[name] !== undefined) ?? []
    if (refused.length > 0) {
      sendDomainError(
        ctx,
        deps.log,
        failedValidation(...refused.map((n) => problem('query', [n], `\`${n}\` is not supported`, 'unsupported'))),
      )
      return
    }
    const q = !query ? NONE : ctx.querystring === '' ? query.none : E.map(sent)(decodeQuery(query.codec, ctx, query.pick))
    if (E.isLeft(q)) {
      sendErrorResponse(ctx, validationErrorResponse(q.left))
      return
    }
    const key = op.idempotent ? idempotencyKeyOf(ctx) : E.right(null)
    const body = op.body ? E.chain(decodeWith(op.body, 'body'))(await readBody(ctx)) : E.right(undefined)
    if (E.isLeft(key) || E.isLeft(body)) {
      sendErrorResponse(ctx, validationErrorResponse(violationsOf(key, body)))
      return
    }
    const prefer = [ctx.req.headers.prefer ?? []].flat().join(',') || null
    const r =
      op.serverOnly === true && !byServer(access, op.scope)
        ? E.left(forbidden('missing_scope'))
        : await handle({ access, params: params.right, query: q.right, body: body.right, idempotencyKey: key.right, prefer })()
    if (E.isLeft(r)) {
      sendDomainError(ctx, deps.log, r.left)
      return
    }
    if (op.success.codec === undefined) {
      sendNoContent(ctx)
      return
    }
    const { value, replayed } = op.idempotent ? (r.right as Answered<unknown>) : { value: r.right, replayed: false }
    sendJson(ctx, op.success.status, op.success.codec.encode(value), replayed ? { 'Idempotent-Replayed': 'true' } : {})
  }
}
