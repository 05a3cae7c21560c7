import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import type { ValidateFunction } from 'ajv'
import type { JsonSchema, OpenApiDoc, OpenApiOperation, OpenApiPathItem, OpenApiResponse } from '../support/openapi'
import type { RawResponse } from './raw-http'

/** The document with every `#/components/schemas/X` made absolute, so any of its schemas compiles on its own (as in test/docs/openapi-conformance.spec.ts). */
const DOC_ID = 'urn:orka:openapi'
const absolute = (doc: OpenApiDoc): OpenApiDoc =>
  JSON.parse(JSON.stringify(doc).replace(/"#\/components\/schemas\//g, `"${DOC_ID}#/$defs/`)) as OpenApiDoc

/** Headers whose presence on a response must be documented for that operation and status. */
const DOCUMENTED_HEADERS = ['ratelimit-policy', 'ratelimit', 'retry-after', 'idempotent-replayed', 'www-authenticate', 'allow']

/** One broken invariant. `kind` and `detail` make the failure's signature (what is "the same" failure). */
export interface Problem {
  readonly kind: 'server-error' | 'status' | 'json' | 'schema' | 'header' | 'leak' | 'no-response' | 'pollution' | 'health' | 'model'
  /** Short and stable: part of the signature, so nothing random in it. */
  readonly detail: string
  /** Everything useful, for the report. */
  readonly message: string
}

interface Route {
  readonly template: string
  readonly pattern: RegExp
}

/**
 * What the served OpenAPI document allows for a response: its status among those documented
 * for the operation, its body valid against the operation's schema for that status, and only
 * documented headers among those the document describes. A request that is no operation (an
 * unknown route, another method on a known path) must be answered with one of the documented
 * error bodies. Validators are compiled once per operation and status.
 */
export class Contract {
  private readonly abs: OpenApiDoc
  private readonly ajv: Ajv2020
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly routes: Route[]
  private statuses: Set<number> | undefined

  constructor(doc: OpenApiDoc) {
    this.abs = absolute(doc)
    this.ajv = new Ajv2020({ strict: true, allErrors: false })
    addFormats(this.ajv)
    this.ajv.addSchema({ $id: DOC_ID, $defs: this.abs.components.schemas })
    this.routes = Object.keys(this.abs.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`),
    }))
  }

  private validator(key: string, schema: JsonSchema): ValidateFunction {
    let v = this.compiled.get(key)
    if (v === undefined) this.compiled.set(key, (v = this.ajv.compile(schema)))
    return v
  }

  private route(path: string): Route | undefined {
    return this.routes.find((r) => r.pattern.test(path))
  }

  /** The operation a request addresses (`list_roles`), or a description of what it is instead. */
  operationOf(method: string, target: string): string {
    const path = target.split('?')[0]!
    const route = this.route(path)
    if (route === undefined) return '(unknown route)'
    const ops = this.abs.paths[route.template]!
    const m = method.toUpperCase()
    if (m === 'HEAD' && ops.get) return `HEAD ${ops.get.operationId}`
    if (m === 'OPTIONS') return `OPTIONS ${route.template}`
    return ops[m.toLowerCase()]?.operationId ?? `${m} ${route.template} (other method)`
  }

  /** Every documented status of every operation, for the report. */
  documentedStatuses(): Set<number> {
    if (this.statuses) return this.statuses
    const all = (this.statuses = new Set<number>())
    for (const ops of Object.values(this.abs.paths))
      for (const op of Object.values(ops)) for (const s of Object.keys(op.responses)) all.add(Number(s))
    return all
  }

  /** The problems with one response; empty when it is what the document allows. */
  check(method: string, target: string, res: RawResponse): Problem[] {
    const problems: Problem[] = []
    const m = method.toUpperCase()
    const path = target.split('?')[0]!
    const route = this.route(path)
    const ops: OpenApiPathItem | undefined = route ? this.abs.paths[route.template] : undefined
    const status = res.status
    const ctype = res.headers['content-type'] ?? ''
    const add = (kind: Problem['kind'], detail: string, message: string) => problems.push({ kind, detail, message })

    if (status >= 500 && status !== 502 && status !== 504 && status !== 503)
      add('server-error', `${status}`, `answered ${status}: ${res.text.slice(0, 300)}`)
    if (status === 503 && !(route?.template === '/readyz')) add('status', `${status}`, `answered 503, documented for /readyz only`)

    const errorBody = (what: string) => {
      const schema = this.abs.components.schemas[`Error${status}`]
      if (schema === undefined) {
        add('status', `${status}`, `${what}: answered ${status}, which has no documented error schema`)
        return
      }
      if (m === 'HEAD') return
      this.body(problems, `Error${status}`, { $ref: `${DOC_ID}#/$defs/Error${status}` }, res, ctype)
    }

    // The published contract itself (docs/operations.md): served, not described in `paths`.
    const bare = path.replace(/\/$/, '')
    if ((m === 'GET' || m === 'HEAD') && (bare === '/openapi.json' || bare === '/docs' || bare.startsWith('/docs/')) && status === 200)
      return problems

    if (m === 'OPTIONS') {
      // 204 with Allow on a path the API serves (docs/api-conventions.md, "HTTP details"); anything else is an error.
      if (status === 204) {
        if (!res.headers.allow) add('header', 'allow', 'OPTIONS 204 without Allow')
        if (res.body.length > 0) add('json', 'options body', `OPTIONS 204 with a body: ${res.text.slice(0, 200)}`)
      } else errorBody(`OPTIONS ${route?.template ?? 'on an unknown path'}`)
      return problems
    }

    const op: OpenApiOperation | undefined = ops?.[m === 'HEAD' ? 'get' : m.toLowerCase()]
    if (op === undefined) {
      // Not an operation (an unknown route, another method on a known path): only a documented
      // error can answer, as in the conformance suite; a 405 names what the path accepts.
      if (status === 405 && !res.headers.allow) add('header', 'allow', '405 without Allow')
      errorBody(`${m} ${route?.template ?? 'on an unknown route'}`)
      if (m === 'HEAD' && res.body.length > 0) add('json', 'head body', 'HEAD answered with a body')
      return problems
    }

    const opId = op.operationId
    const response: OpenApiResponse | undefined = op.responses[String(status)]
    if (response === undefined) {
      add(
        'status',
        `${status}`,
        `status ${status} is not documented for ${opId} (documented: ${Object.keys(op.responses).join(', ')}); body ${res.text.slice(0, 300)}`,
      )
      return problems
    }
    const schema: JsonSchema | undefined = response.content?.['application/json']?.schema
    if (m === 'HEAD') {
      if (res.body.length > 0) add('json', 'head body', 'HEAD answered with a body')
    } else if (schema === undefined) {
      if (res.body.length > 0)
        add('json', 'unexpected body', `${opId} ${status} is documented without a body, sent ${res.text.slice(0, 200)}`)
    } else this.body(problems, `${opId} ${status}`, schema, res, ctype)

    const documented = new Set(Object.keys(response.headers ?? {}).map((k) => k.toLowerCase()))
    for (const name of DOCUMENTED_HEADERS)
      if (res.headers[name] !== undefined && !documented.has(name))
        add('header', `sends ${name}`, `sends ${name} (${res.headers[name]}), not documented for ${opId} ${status}`)
    const retryAfter = res.headers['retry-after']
    if (retryAfter !== undefined && !/^[1-9]\d*$/.test(retryAfter))
      add('header', 'retry-after', `Retry-After '${retryAfter}' is not a positive integer`)
    return problems
  }

  /**
   * A response to a request that is not valid HTTP (or that the server could not have routed):
   * it can only be an error, so its status must be documented and its body one of the
   * documented error bodies (HTTPValidationError for 422).
   */
  checkError(res: RawResponse): Problem[] {
    const problems: Problem[] = []
    const status = res.status
    if (status >= 500 && status !== 502 && status !== 504)
      problems.push({ kind: 'server-error', detail: `${status}`, message: `answered ${status}: ${res.text.slice(0, 300)}` })
    if (!this.documentedStatuses().has(status)) {
      problems.push({
        kind: 'status',
        detail: `${status}`,
        message: `answered ${status}, documented for no operation; headers ${JSON.stringify(res.headers)}; body ${JSON.stringify(res.text.slice(0, 200))}`,
      })
      return problems
    }
    if (status === 422)
      this.body(problems, 'HTTPValidationError', { $ref: `${DOC_ID}#/$defs/HTTPValidationError` }, res, res.headers['content-type'] ?? '')
    else if (this.abs.components.schemas[`Error${status}`] === undefined)
      problems.push({ kind: 'status', detail: `${status}`, message: `answered ${status}, which has no documented error body` })
    else this.body(problems, `Error${status}`, { $ref: `${DOC_ID}#/$defs/Error${status}` }, res, res.headers['content-type'] ?? '')
    return problems
  }

  private body(problems: Problem[], key: string, schema: JsonSchema, res: RawResponse, ctype: string) {
    if (!ctype.startsWith('application/json')) {
      problems.push({
        kind: 'json',
        detail: `content-type ${ctype.replace(/;.*$/s, '') || '(none)'}`,
        message: `${key}: content-type '${ctype}', documented application/json; body ${JSON.stringify(res.text.slice(0, 200))}`,
      })
      return
    }
    let body: unknown
    try {
      body = JSON.parse(res.text)
    } catch (e) {
      problems.push({
        kind: 'json',
        detail: 'unparsable body',
        message: `${key}: the body is not JSON (${(e as Error).message}): ${JSON.stringify(res.text.slice(0, 200))}`,
      })
      return
    }
    const v = this.validator(key, schema)
    if (!v(body)) {
      const first = v.errors?.[0]
      problems.push({
        kind: 'schema',
        detail: `${key} ${first?.instancePath.replace(/\/\d+/g, '/*') ?? ''} ${first?.keyword ?? ''}`,
        message: `${key}: ${this.ajv.errorsText(v.errors)}; body ${res.text.slice(0, 400)}`,
      })
    }
  }
}
