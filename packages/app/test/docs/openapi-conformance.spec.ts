import { expect } from 'chai'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import type { ValidateFunction } from 'ajv'
import { Harness, RecordedResponse, recordedResponses, startHarness } from '../support/harness'
import { JsonSchema, OpenApiDoc, OpenApiOperation, OpenApiResponse } from '../support/openapi'

/** The document with every `#/components/schemas/X` made absolute, so any of its schemas compiles on its own. */
const DOC_ID = 'urn:orka:openapi'
const absolute = (doc: OpenApiDoc): OpenApiDoc =>
  JSON.parse(JSON.stringify(doc).replace(/"#\/components\/schemas\//g, `"${DOC_ID}#/$defs/`)) as OpenApiDoc

/** Headers whose presence on a response must be documented for that operation and status. */
const DOCUMENTED_HEADERS = ['ratelimit-policy', 'ratelimit', 'retry-after', 'idempotent-replayed', 'www-authenticate', 'allow']

interface Route {
  readonly template: string
  readonly pattern: RegExp
}

/**
 * Validates every response the HTTP suites received (recorded by the harness) against the
 * served OpenAPI document: the body against the schema of its operation and status, and any
 * header it carries among those the document describes. A response to a path that is not an
 * operation (an unknown route, a rate-limited route Orka does not serve, another method on a
 * known path) must still be one of the documented error bodies.
 */
const conformance = describe('OpenAPI conformance of every response the HTTP suites received', () => {
  // Unset if before() failed early.
  let h: Harness | undefined
  let doc: OpenApiDoc
  let recorded: RecordedResponse[]

  before(async () => {
    // What the other suites recorded, before this suite's own requests add to it.
    recorded = [...recordedResponses]
    h = await startHarness()
    doc = (await (await fetch(`${h.url}/openapi.json`)).json()) as OpenApiDoc
  })
  after(() => h?.close())

  it('finds every response valid against the document, having validated more than 100', () => {
    const abs = absolute(doc)
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    addFormats(ajv)
    ajv.addSchema({ $id: DOC_ID, $defs: abs.components.schemas })
    const compiled = new Map<string, ValidateFunction>()
    const validator = (key: string, schema: JsonSchema) => {
      let v = compiled.get(key)
      if (v === undefined) compiled.set(key, (v = ajv.compile(schema)))
      return v
    }
    const routes: Route[] = Object.keys(abs.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}/?$`),
    }))

    const mismatches: string[] = []
    const validated = new Map<string, number>()
    const skipped = new Map<string, number>()
    const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1)

    for (const r of recorded) {
      const method = r.method.toUpperCase()
      const path = r.path.split('?')[0]!
      const what = `${method} ${r.path.length > 120 ? `${r.path.slice(0, 120)}…` : r.path} → ${r.status}`
      if (method === 'HEAD' || method === 'OPTIONS') {
        count(skipped, `${method} (no body)`)
        continue
      }
      const route = routes.find((x) => x.pattern.test(path))
      const op: OpenApiOperation | undefined = route ? abs.paths[route.template]![method.toLowerCase()] : undefined
      if (op === undefined) {
        // Not an operation: only an error body can answer it.
        const schema = abs.components.schemas[`Error${r.status}`]
        if (schema === undefined) mismatches.push(`${what}: not a documented operation, and ${r.status} has no error schema`)
        else {
          const v = validator(`Error${r.status}`, { $ref: `${DOC_ID}#/$defs/Error${r.status}` })
          if (!v(r.body))
            mismatches.push(`${what}: not an operation; body ${r.text.slice(0, 200)} is not Error${r.status}: ${ajv.errorsText(v.errors)}`)
          else count(validated, `(no operation) ${r.status}`)
        }
        continue
      }
      const key = `${op.operationId} ${r.status}`
      const response: OpenApiResponse | undefined = op.responses[String(r.status)]
      if (response === undefined) {
        mismatches.push(`${what}: status ${r.status} is not documented for ${op.operationId}`)
        continue
      }
      const before = mismatches.length
      const schema: JsonSchema | undefined = response.content?.['application/json']?.schema
      if (schema === undefined) {
        if (r.text !== '') mismatches.push(`${what}: documented without a body, sent ${r.text.slice(0, 200)}`)
      } else {
        const v = validator(key, schema)
        if (!(r.headers['content-type'] ?? '').startsWith('application/json'))
          mismatches.push(`${what}: content-type ${r.headers['content-type']}, documented application/json`)
        else if (!v(r.body)) mismatches.push(`${what}: ${ajv.errorsText(v.errors)}; body ${r.text.slice(0, 300)}`)
      }
      const documented = new Set(Object.keys(response.headers ?? {}).map((k) => k.toLowerCase()))
      for (const name of DOCUMENTED_HEADERS)
        if (r.headers[name] !== undefined && !documented.has(name))
          mismatches.push(`${what}: sends ${name} (${r.headers[name]}), not documented for ${key}`)
      if (r.headers['retry-after'] !== undefined && !/^[1-9]\d*$/.test(r.headers['retry-after']))
        mismatches.push(`${what}: Retry-After '${r.headers['retry-after']}' is not a positive integer`)
      if (mismatches.length === before) count(validated, key)
    }

    // The validators are not lenient: a body with an unknown property, or another status's code, fails.
    const giftCard = abs.paths['/gift-cards/activations']!.post!.responses['201']!.content!['application/json']!.schema
    const sample = recorded.find((r) => r.method === 'POST' && r.path === '/gift-cards/activations' && r.status === 201)?.body as
      Readonly<Record<string, unknown>> | undefined
    expect(sample, 'no activation was recorded').not.to.equal(undefined)
    expect(validator('activate_gift_card 201', giftCard)({ ...sample, pin: '1234' })).to.equal(false)
    expect(
      validator('Error404', { $ref: `${DOC_ID}#/$defs/Error404` })({
        type: 'error',
        code: 'bad_request',
        status: 404,
        message: 'm',
        details: [],
      }),
    ).to.equal(false)

    const total = [...validated.values()].reduce((a, b) => a + b, 0)
    console.log(
      [
        `OpenAPI conformance: ${recorded.length} recorded responses, ${total} validated, ${mismatches.length} mismatches`,
        ...[...validated.entries()].sort().map(([k, n]) => `  ${String(n).padStart(4)}  ${k}`),
        ...[...skipped.entries()].map(([k, n]) => `  ${String(n).padStart(4)}  skipped: ${k}`),
      ].join('\n'),
    )
    expect(mismatches, `responses that do not match the document:\n${mismatches.join('\n')}`).to.deep.equal([])
    expect(total, 'too few responses were recorded: did the HTTP suites run before this one?').to.be.greaterThan(100)
    // Every operation was seen succeeding at least once.
    for (const ops of Object.values(abs.paths))
      for (const op of Object.values(ops)) {
        const success = Object.keys(op.responses).find((s) => s.startsWith('2'))
        // An operation that documents no success (`errorsOnly`) answers errors only.
        if (success === undefined) continue
        expect(validated.get(`${op.operationId} ${success}`) ?? 0, `${op.operationId} ${success}`).to.be.greaterThan(0)
      }
  })
})

/**
 * This suite must run after every other suite of the process, whatever order mocha loaded the
 * files in (the glob's order is not a contract, and `test/docs` sorts before `test/http`). Mocha
 * loads every file before it runs anything, and reads the root suite's children one at a time
 * as it goes, so a root-level hook that moves this suite to the end of that list, before any
 * suite has run, makes it run last.
 */
before(function () {
  const root = this.test?.parent
  if (root === undefined) throw new Error('no root suite')
  root.suites = [...root.suites.filter((s) => s !== conformance), conformance]
})
