import { get } from 'node:http'
import { expect } from 'chai'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import * as t from 'io-ts'
import { closed, GiftCard, GiftCardActivationCreate, literal, nullable, str, tagged, WebhookSubscriptionCreate } from '@orka/domain'
import {
  buildOpenApiDocument,
  codecToSchema,
  createHttpApp,
  DEFAULT_PUBLIC_BASE_URLS,
  HttpDeps,
  OpenApiConfig,
  OpenApiDocument,
  OPERATIONS,
  isServed,
  SchemaRegistry,
} from '../src'
import { CaptureLog, clockAtT0, FakeKeys, fakeMac, listen, useCasesWith } from './support'

const CONFIG: OpenApiConfig = {
  merchantAccountHeader: 'x-orka-merchant-account-id',
  defaultMerchantAccountId: 'default',
  publicBaseUrls: DEFAULT_PUBLIC_BASE_URLS,
  instanceId: 'example',
}
/** The served operations: what the document describes. */
const ROUTES = OPERATIONS.filter(isServed)
const ERROR_STATUSES = ['400', '401', '403', '404', '405', '409', '422', '425', '429', '500', '502', '504']

/** Every `$ref` in a value, with where it was found. */
const refsIn = (u: unknown, at = '#'): { ref: string; at: string }[] => {
  if (Array.isArray(u)) return u.flatMap((v, i) => refsIn(v, `${at}/${i}`))
  if (typeof u !== 'object' || u === null) return []
  return Object.entries(u).flatMap(([k, v]) => (k === '$ref' && typeof v === 'string' ? [{ ref: v, at }] : refsIn(v, `${at}/${k}`)))
}
const resolvePointer = (doc: unknown, ref: string): unknown =>
  ref
    .replace(/^#\/?/, '')
    .split('/')
    .filter((p) => p !== '')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((o, k) => (typeof o === 'object' && o !== null ? (o as Record<string, unknown>)[k] : undefined), doc)

/** Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) over the document's components. */
const componentsAjv = (doc: OpenApiDocument) => {
  const ajv = new Ajv2020({ strict: true, allErrors: true })
  addFormats(ajv)
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replace(/"#\/components\/schemas\//g, '"#/$defs/')) as Record<
    string,
    unknown
  >
  ajv.addSchema({ $id: 'urn:orka:openapi', $defs: defs })
  return ajv
}

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument(CONFIG)

  it('is a valid OpenAPI 3.1 document (the official schema, offline)', async () => {
    // The validator package is ESM only: a real dynamic import, which TypeScript keeps as is for Node16.
    const { Validator } = await import('@seriousme/openapi-schema-validator')
    const result = await new Validator().validate(JSON.parse(JSON.stringify(doc)) as Record<string, unknown>)
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 2)).to.deep.equal([])
    expect(result.valid).to.equal(true)
  })

  it('compiles every schema of components with ajv (JSON Schema 2020-12, strict mode)', () => {
    const ajv = componentsAjv(doc)
    const names = Object.keys(doc.components.schemas)
    expect(names.length).to.be.greaterThan(20)
    for (const name of names) expect(ajv.getSchema(`urn:orka:openapi#/$defs/${name}`), name).to.be.a('function')
  })

  it('resolves every $ref', () => {
    const refs = refsIn(doc)
    expect(refs.length).to.be.greaterThan(100)
    const dangling = refs.filter((r) => resolvePointer(doc, r.ref) === undefined)
    expect(dangling).to.deep.equal([])
  })

  it('has the title, version and the sandbox and production servers with the instance {id}', () => {
    expect(doc.openapi).to.equal('3.1.0')
    expect(doc.info.title).to.equal('Orka API')
    expect(doc.info.version).to.equal('1.0.0')
    expect(doc.servers).to.deep.equal([
      {
        url: 'https://api.sandbox.{id}.orka.example',
        description: 'Sandbox',
        variables: { id: { default: 'example', description: 'Your instance: its subdomain.' } },
      },
      {
        url: 'https://api.{id}.orka.example',
        description: 'Production',
        variables: { id: { default: 'example', description: 'Your instance: its subdomain.' } },
      },
    ])
  })

  it('takes its servers and merchant account header from the configuration', () => {
    const custom = buildOpenApiDocument({
      ...CONFIG,
      merchantAccountHeader: 'x-acme-merchant-account-id',
      publicBaseUrls: { sandbox: 'https://sandbox.{id}.pay.test', production: 'https://pay.test' },
      instanceId: 'acme',
    })
    expect((custom.servers as Record<string, unknown>[]).map((s) => [s.url, s.variables])).to.deep.equal([
      ['https://sandbox.{id}.pay.test', { id: { default: 'acme', description: 'Your instance: its subdomain.' } }],
      ['https://pay.test', undefined],
    ])
    for (const route of ROUTES)
      expect(
        custom.paths[route.path]![route.method.toLowerCase()]!.parameters.filter((p) => p.in === 'header').map((p) => p.name),
      ).to.include('x-acme-merchant-account-id')
  })

  it('documents every served route, and only those, with its scope and every error status', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([m, op]) => `${m.toUpperCase()} ${path} ${op.operationId}`),
    )
    const probes = ['GET /healthz healthz', 'GET /readyz readyz']
    expect(documented.sort()).to.deep.equal([...ROUTES.map((r) => `${r.method} ${r.path} ${r.operationId}`), ...probes].sort())
    for (const probe of ['/healthz', '/readyz']) expect(doc.paths[probe]!.get!.security, probe).to.deep.equal([])
    for (const route of ROUTES) {
      const op = doc.paths[route.path]![route.method.toLowerCase()]!
      expect(op.summary, route.operationId).to.be.a('string').and.not.equal('')
      // A route that needs no token (Secure Fields) lists the empty requirement too.
      expect(op.security).to.deep.equal(route.tokenOptional === true ? [{ BearerJWT: [route.scope] }, {}] : [{ BearerJWT: [route.scope] }])
      expect(op['x-scopes']).to.include(route.scope)
      const statuses = Object.keys(op.responses)
      // An operation no card service offers answers errors only, and documents no success.
      expect(
        statuses.filter((s) => s.startsWith('2')),
        route.operationId,
      ).to.have.length(route.errorsOnly === true ? 0 : 1)
      expect(statuses.filter((s) => !s.startsWith('2')).sort(), route.operationId).to.deep.equal(ERROR_STATUSES)
      expect(op.responses['422']!.content!['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/HTTPValidationError' })
      for (const s of ERROR_STATUSES.filter((s) => s !== '422'))
        expect(op.responses[s]!.content!['application/json'].schema).to.deep.equal({ $ref: `#/components/schemas/Error${s}` })
      expect(op.parameters.map((p) => `${p.in} ${p.name}`)).to.include('header x-orka-merchant-account-id')
    }
    expect(doc.components.securitySchemes).to.deep.include({
      BearerJWT: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description: "An ES512 JWT signed with an API key pair's private key, with `exp` and the `scopes` it asks for.",
      },
    })
  })

  it('documents path, query and header parameters', () => {
    const params = (path: string, method: string) => doc.paths[path]![method]!.parameters.map((p) => [p.in, p.name, p.required])
    const header = ['header', 'x-orka-merchant-account-id', false]
    expect(params('/gift-cards/activations', 'post')).to.deep.equal([['header', 'idempotency-key', false], header])
    expect(params('/roles', 'get')).to.deep.equal([['query', 'limit', false], ['query', 'cursor', false], header])
    expect(params('/buyers', 'get')).to.deep.equal([
      ['query', 'limit', false],
      ['query', 'cursor', false],
      ['query', 'search', false],
      ['query', 'external_identifier', false],
      header,
    ])
    expect(params('/webhook-subscriptions/{subscription_id}', 'delete')).to.deep.equal([['path', 'subscription_id', true], header])
    const limit = doc.paths['/roles']!.get!.parameters[0]!
    expect(limit.schema).to.deep.equal({ type: 'integer', minimum: 1, maximum: 100, default: 20 })
  })

  it('sends the rate-limit headers on the rate-limited operation, Retry-After on 425 and 429, Idempotent-Replayed on replays', () => {
    const activation = doc.paths['/gift-cards/activations']!.post!.responses
    expect(Object.keys(activation['201']!.headers!)).to.deep.equal(['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Idempotent-Replayed'])
    expect(Object.keys(activation['429']!.headers!)).to.deep.equal(['X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Retry-After'])
    expect(Object.keys(activation['401']!.headers!)).to.deep.equal(['X-Request-Id', 'WWW-Authenticate'])
    const roles = doc.paths['/roles']!.get!.responses
    expect(Object.keys(roles['200']!.headers!)).to.deep.equal(['X-Request-Id'])
    expect(Object.keys(roles['425']!.headers!)).to.deep.equal(['X-Request-Id', 'Retry-After'])
    expect(Object.keys(roles['405']!.headers!)).to.deep.equal(['X-Request-Id', 'Allow'])
  })

  it('derives the request and response schemas from the codecs', () => {
    const activation = doc.paths['/gift-cards/activations']!.post!
    expect(activation.requestBody!.content['application/json'].schema).to.deep.equal({
      $ref: '#/components/schemas/GiftCardActivationCreate',
    })
    expect(activation.responses['201']!.content!['application/json'].schema).to.deep.equal({ $ref: '#/components/schemas/GiftCard' })
    const body = doc.components.schemas.GiftCardActivationCreate!
    expect(body.required).to.deep.equal(['number'])
    expect(body.additionalProperties).to.equal(false)
    expect(Object.keys(body.properties as object)).to.deep.equal(
      Object.keys({ ...GiftCardActivationCreate.inner.required, ...GiftCardActivationCreate.inner.optional }),
    )
    expect(body.description).to.include('When `store` is true, `pin` is required.')
    expect(Object.keys(doc.components.schemas.GiftCard!.properties as object).sort()).to.deep.equal(
      Object.keys({ ...GiftCard.required, ...GiftCard.optional }).sort(),
    )
    const auth = doc.components.schemas.WebhookAuthenticationCreate!.oneOf as { $ref: string }[]
    const branches = auth.map((b) => doc.components.schemas[b.$ref.split('/').pop()!]!)
    expect(branches.map((b) => [b.title, b.required])).to.deep.equal([
      ['BasicAuthenticationCreate', ['kind', 'username', 'password']],
      ['CredentialsOAuthAuthenticationCreate', ['kind', 'client_id', 'client_secret', 'token_url']],
      ['PasswordOAuthAuthenticationCreate', ['kind', 'client_id', 'client_secret', 'token_url', 'username', 'password']],
    ])
    expect(WebhookSubscriptionCreate.optional.authentication).to.be.an('object')
  })

  it('accepts with its schemas exactly what the codecs accept, on samples', () => {
    const ajv = componentsAjv(doc)
    const valid = ajv.getSchema('urn:orka:openapi#/$defs/WebhookSubscriptionCreate')!
    const samples: unknown[] = [
      { url: 'https://example.test/hooks' },
      { url: 'https://example.test/hooks', active: false, authentication: null },
      { url: 'https://example.test/hooks', authentication: { kind: 'basic', username: 'u', password: 'p' } },
      { url: 'https://example.test/hooks', authentication: { kind: 'basic', username: 'u' } },
      {
        url: 'https://example.test/hooks',
        authentication: {
          kind: 'oauth_password',
          client_id: 'c',
          client_secret: 's',
          token_url: 'https://a.test/t',
          username: 'u',
          password: 'p',
          scope: null,
        },
      },
      { url: 'https://example.test/hooks', authentication: { kind: 'digest', username: 'u', password: 'p' } },
      { url: 'https://example.test/hooks', extra: 1 },
      { url: 'ftp://example.test' },
      { url: '' },
      {},
    ]
    for (const s of samples) expect(valid(s), JSON.stringify(s)).to.equal(WebhookSubscriptionCreate.is(s))
  })

  describe('codecToSchema', () => {
    it('describes a tagged union as oneOf its named branches, each a closed object', () => {
      const Shape = tagged('Shape', 'kind', {
        circle: closed('Circle', { kind: literal('circle'), radius: t.number }),
        label: closed(
          'Label',
          { kind: literal('label'), text: str },
          { note: nullable(str), box: nullable(closed('Box', { w: t.number })) },
        ),
      })
      const registry = new SchemaRegistry()
      expect(codecToSchema(Shape, registry)).to.deep.equal({ $ref: '#/components/schemas/Shape' })
      expect(registry.schemas.Shape).to.deep.equal({
        title: 'Shape',
        description: 'Told apart by `kind`: `circle`, `label`.',
        oneOf: [{ $ref: '#/components/schemas/Circle' }, { $ref: '#/components/schemas/Label' }],
      })
      expect(registry.schemas.Circle).to.deep.equal({
        type: 'object',
        title: 'Circle',
        properties: { kind: { type: 'string', const: 'circle' }, radius: { type: 'number' } },
        required: ['kind', 'radius'],
        additionalProperties: false,
      })
      expect(registry.schemas.Label).to.deep.equal({
        type: 'object',
        title: 'Label',
        properties: {
          kind: { type: 'string', const: 'label' },
          text: { type: 'string' },
          note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          box: { anyOf: [{ $ref: '#/components/schemas/Box' }, { type: 'null' }] },
        },
        required: ['kind', 'text'],
        additionalProperties: false,
      })
    })

    it('refuses two different codecs under one name, and a codec it cannot describe', () => {
      const registry = new SchemaRegistry()
      codecToSchema(closed('Thing', { a: str }), registry)
      expect(() => codecToSchema(closed('Thing', { b: str }), registry)).to.throw("Two different codecs are both named 'Thing'")
      expect(() => codecToSchema(new t.Type('Opaque', t.unknown.is, t.success, t.identity), registry)).to.throw(
        "No JSON Schema for codec 'Opaque'",
      )
    })
  })
})

describe('GET /openapi.json and GET /docs', () => {
  let server: { url: string; close(): Promise<void> }
  let log: CaptureLog
  const unexpected = (() => {
    throw new Error('a documentation route reached a use case')
  }) as never

  before(async () => {
    log = new CaptureLog()
    const deps: HttpDeps = {
      keys: new FakeKeys(),
      clock: clockAtT0(),
      mac: fakeMac,
      log,
      config: {
        merchantAccountHeader: 'x-orka-merchant-account-id',
        defaultMerchantAccountId: 'default',
        maxBodyBytes: 1024,
        tokenCacheSize: 10,
      },
      // Any call (authorization, rate limiting included) throws, and so answers 500.
      useCases: useCasesWith(() => unexpected),
    }
    server = await listen(createHttpApp(deps))
  })
  after(() => server.close())

  it('serves the document without a token, authentication or rate limiting, the default servers when none are configured', async () => {
    const res = await fetch(`${server.url}/openapi.json`)
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.equal('application/json; charset=utf-8')
    expect(res.headers.get('x-request-id')).to.be.a('string')
    expect(await res.json()).to.deep.equal(JSON.parse(JSON.stringify(buildOpenApiDocument(CONFIG))))
  })

  it('answers a conditional request with 304 and HEAD without a body', async () => {
    const first = await fetch(`${server.url}/openapi.json`)
    const etag = first.headers.get('etag')!
    expect(etag).to.match(/^"[\w-]+"$/)
    // fetch marks a conditional request `cache-control: no-cache`, which rightly forbids a 304: use plain http.
    const status = await new Promise<number | undefined>((resolve, reject) =>
      get(`${server.url}/openapi.json`, { headers: { 'if-none-match': etag } }, (res) => {
        resolve(res.resume().statusCode)
      }).on('error', reject),
    )
    expect(status).to.equal(304)
    const head = await fetch(`${server.url}/openapi.json`, { method: 'HEAD' })
    expect([head.status, await head.text()]).to.deep.equal([200, ''])
  })

  it('serves the reference page with a policy that lets it load from this server only', async () => {
    const res = await fetch(`${server.url}/docs`)
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8')
    expect(res.headers.get('content-security-policy'))
      .to.include("default-src 'none'")
      .and.include("script-src 'self'")
      .and.include("connect-src 'self'")
    const html = await res.text()
    expect(html).to.include('<script src="/docs/assets/redoc.standalone.js"></script>')
    expect(html).to.include("pnpm orka token --key .data/dev-api-key.pem --scopes '*.read,*.write'")
    expect(html).to.include('Try it')
    // Nothing on the page points off this server.
    expect(html.match(/(?:src|href)="[^"]*"/g)).to.deep.equal([
      'href="data:,"',
      'href="/openapi.json"',
      'src="/docs/assets/redoc.standalone.js"',
      'src="/docs/assets/docs.js"',
    ])
  })

  it("serves Redoc's standalone bundle from the package's files, and the start script", async () => {
    const bundle = await fetch(`${server.url}/docs/assets/redoc.standalone.js`)
    expect(bundle.status).to.equal(200)
    expect(bundle.headers.get('content-type')).to.equal('application/javascript; charset=utf-8')
    const js = await bundle.text()
    expect(js.length).to.be.greaterThan(500_000)
    expect(js).to.include('API docs by Redocly')
    // Its one image from Redocly's CDN is replaced by an empty data URL (see routes/docs.ts).
    expect(js).not.to.include('https://cdn.redoc.ly/')
    const start = await fetch(`${server.url}/docs/assets/docs.js`)
    expect(await start.text()).to.include("Redoc.init('/openapi.json'")
  })

  it('answers any other asset, and other methods, like an unknown route', async () => {
    for (const [method, path] of [
      ['GET', '/docs/assets/..%2Fpackage.json'],
      ['GET', '/docs/assets/toString'],
      ['GET', '/docs/assets/'],
      ['POST', '/openapi.json'],
    ] as const) {
      const res = await fetch(`${server.url}${path}`, { method })
      expect([method, path, res.status, await res.json()]).to.deep.equal([
        method,
        path,
        404,
        { type: 'error', code: 'not_found', status: 404, message: 'The resource could not be found', details: [] },
      ])
    }
  })

  it('logs each request in the access log', async () => {
    await fetch(`${server.url}/docs`)
    expect(log.lines.filter((l) => l.msg === 'request').map((l) => l.o.path)).to.include('/docs')
  })
})
