import { EMBED_SCOPES, EMBED } from '@orka/domain'
import { isServed, OPERATIONS, ServedOperation } from '../operations'
import type { ParameterDoc, Tag } from '../operations/operation'
import { IDEMPOTENCY_KEY } from '../operations/serve'
import { codecToSchema, JsonSchema, SchemaRegistry } from './codec-to-schema'
import { ERROR_DESCRIPTIONS, ERROR_STATUSES, errorSchemaName, errorSchemas } from './error-schemas'
import { healthPaths, OPERATIONS_TAG } from './health-paths'
import { webhookEvents } from './webhook-events'
import type { PublicBaseUrls } from '../types'

/** Reserved `.example` names (RFC 2606): a document that was never configured points nowhere real. */
export const DEFAULT_PUBLIC_BASE_URLS: PublicBaseUrls = {
  sandbox: 'https://api.sandbox.{id}.orka.example',
  production: 'https://api.{id}.orka.example',
}
export const DEFAULT_INSTANCE_ID = 'example'

export interface OpenApiConfig {
  /** Lower-case header naming the merchant account. */
  readonly merchantAccountHeader: string
  readonly defaultMerchantAccountId: string
  readonly publicBaseUrls: PublicBaseUrls
  /** Default of the servers' `{id}` variable. */
  readonly instanceId: string
  /** Prefix of the webhook signature headers (`X-Orka`). */
  readonly webhookHeaderPrefix?: string
}

export interface OpenApiDocument {
  readonly openapi: '3.1.0'
  readonly info: { readonly title: string; readonly version: string; readonly description: string }
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly schemas: Record<string, JsonSchema>; readonly [k: string]: unknown }
  readonly [k: string]: unknown
}
export interface Operation {
  readonly operationId: string
  readonly parameters: readonly Parameter[]
  readonly requestBody?: { readonly required: boolean; readonly content: { readonly 'application/json': { readonly schema: JsonSchema } } }
  readonly responses: Record<string, Response>
  readonly [k: string]: unknown
}
export interface Parameter {
  readonly name: string
  readonly in: string
  readonly required: boolean
  readonly schema: JsonSchema
  readonly [k: string]: unknown
}
export interface Response {
  readonly description: string
  readonly headers?: Record<string, unknown>
  readonly content?: { readonly 'application/json': { readonly schema: JsonSchema } }
}

const DESCRIPTION = `Orka is a payment orchestration API: activate gift cards, manage buyers and webhook subscriptions, read the role \
catalogue.

Every request and response body is JSON. Choose the environment (sandbox or production) and your instance's \`{id}\` in the server URL.

## Authentication

\`Authorization: Bearer <JWT>\`: an ES512 token signed with the private key of one of your API key pairs (\`kid\` is the key's RFC 7638 \
thumbprint), with an \`exp\` and the \`scopes\` it asks for. Each operation names the scope it needs (\`<area>.read\` or \`<area>.write\`; \
\`*.read\` and \`*.write\` grant every area; \`embed\` is the browser-safe set). What a token may do is its scopes intersected with its \
key's roles. A missing or unusable token is a \`401\`, a token without permission a \`403\`.

## Errors

Every error but \`422\` has the body \`{type: "error", code, status, message, details[]}\` (plus \`resource_id\` on a \`409\`). A request \
that does not match its schema (body, query, path or headers) is a \`422\` with \`detail[]\`, before anything else happens; a well-formed \
request that is wrong given the current state (an unknown buyer, a declined card, a foreign cursor) is a \`400\`.

## Pagination

Lists return \`{items, limit, next_cursor, previous_cursor}\`. Pass \`limit\` (1-100, default 20) and a cursor from a previous page; \
cursors are opaque and bound to the list, filter and merchant account.

## Rate limits

Only \`embed\` (browser) tokens are limited: the limited operations answer with \`RateLimit-Policy\` and \`RateLimit\` headers, and over \
the limit with \`429\` and \`Retry-After\`. Server-to-server tokens are never limited.`

const json = (schema: JsonSchema) => ({ 'application/json': { schema } })
const header = (name: string) => ({ $ref: `#/components/headers/${name}` })

const HEADERS: Record<string, JsonSchema> = {
  'X-Request-Id': {
    description:
      "The request's id, as the client sent it when it is a plain token of at most 128 characters, else generated. Quote it when " +
      'reporting a problem.',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description:
      'Sent for `embed` tokens on rate-limited operations: the quota drawn on, e.g. `"embed";q=50;w=60` (50 requests per rolling 60 ' +
      'seconds; IETF httpapi RateLimit header fields).',
    schema: { type: 'string' },
  },
  RateLimit: {
    description:
      'Sent with `RateLimit-Policy`: what is left of the quota, e.g. `"embed";r=49;t=60` (49 requests remaining; `t` seconds until a ' +
      'slot frees).',
    schema: { type: 'string' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  'Idempotent-Replayed': {
    description: "Present when this response replays the outcome first recorded for the request's `idempotency-key`.",
    schema: { type: 'string', const: 'true' },
  },
  'WWW-Authenticate': { description: 'The scheme to authenticate with.', schema: { type: 'string', const: 'Bearer' } },
  Allow: { description: 'The methods this path accepts.', schema: { type: 'string' } },
}

const serverVariables = (url: string, instanceId: string) => {
  const names = [...url.matchAll(/\{(\w+)\}/g)].flatMap((m) => (m[1] === undefined ? [] : [m[1]]))
  if (names.length === 0) return {}
  return {
    variables: Object.fromEntries(
      names.map((n) => [n, n === 'id' ? { default: instanceId, description: 'Your instance: its subdomain.' } : { default: n }]),
    ),
  }
}

/** The scopes any one of which grants `scope` (see `grants` in the domain). */
const scopesGranting = (scope: string): string[] => [
  scope,
  `*.${scope.slice(scope.lastIndexOf('.') + 1)}`,
  ...(EMBED_SCOPES.has(scope) ? [EMBED] : []),
]

const parameter = (name: string, where: 'path' | 'query', p: ParameterDoc, registry: SchemaRegistry): Parameter => ({
  name,
  in: where,
  required: where === 'path',
  description: p.description,
  schema: { ...codecToSchema(p.codec, registry), ...(p.default === undefined ? {} : { default: p.default }) },
})

const operation = (op: ServedOperation, config: OpenApiConfig, registry: SchemaRegistry): Operation => {
  const limited = op.rateLimit !== undefined
  const granting = scopesGranting(op.scope)
  // Headers every response of the operation may carry; rate-limit headers come after authentication.
  const headers = (status: number): Record<string, unknown> => ({
    'X-Request-Id': header('X-Request-Id'),
    ...(limited && status !== 401 && status !== 405
      ? { 'RateLimit-Policy': header('RateLimit-Policy'), RateLimit: header('RateLimit') }
      : {}),
    ...(status === 425 || status === 429 || status === 500 ? { 'Retry-After': header('Retry-After') } : {}),
    // What an idempotency key records (and replays): the service's success, decline or vault duplicate.
    ...(op.idempotent && (status === op.success.status || status === 400 || status === 409)
      ? { 'Idempotent-Replayed': header('Idempotent-Replayed') }
      : {}),
    ...(status === 401 ? { 'WWW-Authenticate': header('WWW-Authenticate') } : {}),
    ...(status === 405 ? { Allow: header('Allow') } : {}),
  })
  const parameters: Parameter[] = [
    ...Object.entries(op.params ?? {}).map(([n, p]) => parameter(n, 'path', p, registry)),
    ...Object.entries(op.query ?? {}).map(([n, p]) => parameter(n, 'query', p, registry)),
    ...(op.idempotent
      ? [
          {
            name: 'idempotency-key',
            in: 'header',
            required: false,
            description:
              'A unique key for this request (a V4 UUID, or another random string with enough entropy). It is forwarded to the gift card ' +
              'service when it supports it, and Orka replays the first outcome for the same key and body.',
            schema: codecToSchema(IDEMPOTENCY_KEY, registry),
          },
        ]
      : []),
    {
      name: config.merchantAccountHeader,
      in: 'header',
      required: false,
      description: `The ID of the merchant account to act for; \`${config.defaultMerchantAccountId}\` when absent.`,
      schema: { type: 'string' },
      example: config.defaultMerchantAccountId,
    },
  ]
  const responses: Record<string, Response> = {
    // An operation no connected service offers answers errors only: it documents no success.
    ...(op.errorsOnly === true
      ? {}
      : {
          [op.success.status]: {
            description: op.success.description,
            headers: headers(op.success.status),
            ...(op.success.codec ? { content: json(codecToSchema(op.success.codec, registry)) } : {}),
          },
        }),
    422: {
      description: ERROR_DESCRIPTIONS[422],
      headers: headers(422),
      content: json({ $ref: '#/components/schemas/HTTPValidationError' }),
    },
  }
  for (const status of ERROR_STATUSES)
    responses[status] = {
      description: ERROR_DESCRIPTIONS[status],
      headers: headers(status),
      content: json({ $ref: `#/components/schemas/${errorSchemaName(status)}` }),
    }
  return {
    tags: [op.doc.tag.name],
    summary: op.doc.summary,
    description:
      op.doc.description +
      (op.queryRules ? `\n\n**Query rules:**\n${op.queryRules.map((r, i) => `${i + 1}. ${r.description}`).join('\n')}` : '') +
      (op.refusedQuery
        ? `\n\n**Not offered** (a \`400\` naming it, never ignored): ${op.refusedQuery.map((n) => `\`${n}\``).join(', ')}.`
        : '') +
      `\n\n**Scope:** \`${op.scope}\` (${granting
        .slice(1)
        .map((s) => `\`${s}\``)
        .join(' and ')} also grant it).` +
      (op.tokenOptional === true ? ' A request may also come **without a token**.' : '') +
      (op.rateLimit === 'checkout-session'
        ? ' Rate limited per checkout session, for `embed` tokens and requests without a token.'
        : limited
          ? ' Rate limited for `embed` tokens.'
          : ''),
    operationId: op.operationId,
    // OpenAPI 3.1 lets a non-OAuth2 requirement list the roles it needs: here, the token scope.
    // The reference document declares an OAuth2 password flow instead, a flow this API does not
    // have (tokens are JWTs the client signs with its API key), so `BearerJWT` is the truth and
    // `x-scopes` lists every scope that grants the operation, for tools that ignore roles.
    // `{}`: no token at all also satisfies an operation that does not need one.
    security: op.tokenOptional === true ? [{ BearerJWT: [op.scope] }, {}] : [{ BearerJWT: [op.scope] }],
    'x-scopes': granting,
    parameters,
    ...(op.body ? { requestBody: { required: op.optionalBody !== true, content: json(codecToSchema(op.body, registry)) } } : {}),
    responses,
  }
}

/** Each tag once, where an operation first uses it. */
const tagsOf = (ops: readonly ServedOperation[]): Tag[] => [...new Map(ops.map((op) => [op.doc.tag.name, op.doc.tag])).values()]

/**
 * The OpenAPI 3.1 document of every served operation, its schemas derived from the codecs the
 * service validates and encodes with. Pure and deterministic: build it once per config.
 */
export const buildOpenApiDocument = (config: OpenApiConfig): OpenApiDocument => {
  const registry = new SchemaRegistry()
  const served = OPERATIONS.filter(isServed)
  const paths: Record<string, Record<string, Operation>> = {}
  for (const op of served) (paths[op.path] ??= {})[op.method.toLowerCase()] = operation(op, config, registry)
  Object.assign(paths, healthPaths(registry))
  const webhooks = webhookEvents(config.webhookHeaderPrefix ?? 'X-Orka', registry)
  const errors = errorSchemas()
  const clash = Object.keys(errors).find((name) => name in registry.schemas)
  if (clash !== undefined) throw new Error(`A codec is named like the error schema '${clash}'`)
  return {
    openapi: '3.1.0',
    info: { title: 'Orka API', version: '1.0.0', description: DESCRIPTION },
    servers: [
      { url: config.publicBaseUrls.sandbox, description: 'Sandbox', ...serverVariables(config.publicBaseUrls.sandbox, config.instanceId) },
      {
        url: config.publicBaseUrls.production,
        description: 'Production',
        ...serverVariables(config.publicBaseUrls.production, config.instanceId),
      },
    ],
    tags: [...tagsOf(served), OPERATIONS_TAG],
    security: [{ BearerJWT: [] }],
    paths,
    webhooks,
    components: {
      schemas: { ...registry.schemas, ...errors },
      headers: HEADERS,
      securitySchemes: {
        BearerJWT: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: "An ES512 JWT signed with an API key pair's private key, with `exp` and the `scopes` it asks for.",
        },
      },
    },
  }
}
