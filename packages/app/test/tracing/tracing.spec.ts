import { expect } from 'chai'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { freePort, ORKA_MAIN, Server, startServer } from '../../bench/processes'
import { mintToken } from '../../src/mint-token'
import { freshDatabase } from '../mongo/support'
import { IDS, makeFixture, startHarness } from '../support/harness'
import { eventually, startReceiver } from '../support/receiver'
import { WEBHOOK_TEST_ENV } from '../webhooks/delivery.suite'

/** One exported span, as OTLP/HTTP JSON carries it (ids in hex). */
interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly kind: number
  readonly attributes?: readonly { key: string; value: Record<string, unknown> }[]
}
interface OtlpExport {
  readonly resourceSpans: readonly {
    readonly resource: { readonly attributes?: OtlpSpan['attributes'] }
    readonly scopeSpans: readonly { readonly spans: readonly OtlpSpan[] }[]
  }[]
}

/** How long exported spans and log lines may take to arrive: generous, for a loaded CI machine. */
const WAIT_MS = 20_000

const SERVER = 2
const CLIENT = 3

const CARD_NUMBER = '4111111111111111'
const CVV = '7391'
const PIN = '86420975'
const GIFT_CARD = '6100000000000417001'
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736'
const PARENT_SPAN_ID = '00f067aa0ba902b7'

/** A collector's OTLP/HTTP endpoint in miniature: keeps every body sent to `/v1/traces`. */
const startCollector = async () => {
  const bodies: string[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      if (req.url === '/v1/traces') bodies.push(Buffer.concat(chunks).toString('utf8'))
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    spans: (): OtlpSpan[] =>
      bodies.flatMap((b) => (JSON.parse(b) as OtlpExport).resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans))),
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
type Collector = Awaited<ReturnType<typeof startCollector>>

const attr = (s: OtlpSpan, key: string): unknown => {
  const v = s.attributes?.find((a) => a.key === key)?.value
  return v === undefined ? undefined : Object.values(v)[0]
}

/** Orka in a child process with tracing on, exporting to `collector` in JSON within a few milliseconds of each span. */
const startTracedOrka = async (collector: Collector, env: Record<string, string> = {}) => {
  const fixture = makeFixture()
  const port = await freePort()
  const logFile = join(fixture.dir, 'orka.log')
  const server = await startServer({
    name: 'orka',
    script: ORKA_MAIN,
    env: {
      MONGODB_URI: '',
      PORT: String(port),
      HOST: '127.0.0.1',
      METRICS_PORT: '0',
      SEED_FILE: fixture.seedFile,
      DATA_DIR: join(fixture.dir, 'data'),
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_SERVICE_NAME: 'orka-under-test',
      ...env,
    },
    port,
    cpus: undefined,
    logFile,
    readyPath: '/readyz',
  })
  const token = (key: 'admin' | 'acmeAdmin' = 'admin') => mintToken(fixture.pems[key], { scopes: ['*.read', '*.write'], expiresInS: 600 })
  const send = async (method: string, path: string, o: { token?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const r = await fetch(server.url + path, {
      method,
      headers: {
        authorization: `Bearer ${o.token ?? token()}`,
        ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...o.headers,
      },
      ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
    })
    const text = await r.text()
    return {
      status: r.status,
      requestId: r.headers.get('x-request-id') ?? '',
      body: (text === '' ? undefined : JSON.parse(text)) as unknown,
    }
  }
  /** The access-log line of a request, by its id (written once the response has gone out). */
  const accessLine = (requestId: string) =>
    eventually(
      () =>
        readFileSync(logFile, 'utf8')
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.msg === 'request' && l.requestId === requestId),
      `the access-log line of ${requestId}`,
      WAIT_MS,
    )
  return { server, token, send, accessLine }
}

/** The spans of the request with this id, once its server span and `n` spans of its trace have arrived. */
const traceOf = async (collector: Collector, requestId: string, n: number) =>
  eventually(
    () => {
      const spans = collector.spans()
      const root = spans.find((s) => s.kind === SERVER && attr(s, 'orka.request_id') === requestId)
      const trace = root && spans.filter((s) => s.traceId === root.traceId)
      return root && trace && trace.length >= n ? { root, trace } : undefined
    },
    `the spans of request ${requestId}`,
    WAIT_MS,
  )

const childOf = (trace: readonly OtlpSpan[], parent: OtlpSpan, name: string | RegExp): OtlpSpan => {
  const found = trace.find((s) => s.parentSpanId === parent.spanId && (typeof name === 'string' ? s.name === name : name.test(s.name)))
  expect(found, `a child ${String(name)} of ${parent.name} among ${trace.map((s) => s.name).join(', ')}`).to.not.equal(undefined)
  return found!
}

describe('traces (OpenTelemetry, OTEL_TRACES_EXPORTER=otlp)', function () {
  this.timeout(60_000)
  let collector: Collector
  let orka: Awaited<ReturnType<typeof startTracedOrka>>
  let server: Server | undefined
  before(async () => {
    collector = await startCollector()
    orka = await startTracedOrka(collector, WEBHOOK_TEST_ENV)
    server = orka.server
  })
  after(async () => {
    await server?.stop()
    await collector.close()
  })

  it('continues an incoming traceparent: a server span named by route template, its operation span below, trace ids in the access log', async () => {
    const r = await orka.send('GET', '/roles?limit=1', { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` } })
    expect(r.status).to.equal(200)
    const { root, trace } = await traceOf(collector, r.requestId, 2)
    expect(root).to.deep.include({ name: 'GET /roles', traceId: TRACE_ID, parentSpanId: PARENT_SPAN_ID })
    expect([attr(root, 'http.request.method'), attr(root, 'http.route'), Number(attr(root, 'http.response.status_code'))]).to.deep.equal([
      'GET',
      '/roles',
      200,
    ])
    childOf(trace, root, 'list_roles')
    const line = await orka.accessLine(r.requestId)
    expect(line).to.include({ trace_id: TRACE_ID, span_id: root.spanId })
  })

  it('continues a caller’s trace id that holds a card number, and the access log masks it', async () => {
    const traceId = '5555555555554444abcdefabcdefabcd'
    const r = await orka.send('GET', '/roles?limit=1', { headers: { traceparent: `00-${traceId}-${PARENT_SPAN_ID}-01` } })
    expect(r.status).to.equal(200)
    const { root } = await traceOf(collector, r.requestId, 2)
    expect(root).to.deep.include({ traceId, parentSpanId: PARENT_SPAN_ID })
    const line = await orka.accessLine(r.requestId)
    expect(line).to.include({ trace_id: '################abcdefabcdefabcd', span_id: root.spanId })
  })

  it('starts a trace of its own without one; a path with an id is named by its template', async () => {
    const r = await orka.send('GET', `/buyers/${IDS.defaultBuyer}`)
    expect(r.status).to.equal(200)
    const { root, trace } = await traceOf(collector, r.requestId, 2)
    expect(root.name).to.equal('GET /buyers/{buyer_id}')
    expect(root.parentSpanId ?? '').to.equal('')
    expect(root.traceId).to.match(/^[0-9a-f]{32}$/)
    expect(root.traceId).to.not.equal(TRACE_ID)
    childOf(trace, root, 'get_buyer')
    expect(await orka.accessLine(r.requestId)).to.include({ trace_id: root.traceId, span_id: root.spanId })
  })

  it('makes a client span per connector call below the operation span, and no attribute anywhere holds card data, a PIN or a token', async () => {
    const token = orka.token()
    const paid = await orka.send('POST', '/transactions?secret=query', {
      token,
      body: {
        amount: 1299,
        currency: 'USD',
        payment_method: { method: 'card', number: CARD_NUMBER, expiration_date: '12/30', security_code: CVV },
      },
    })
    expect(paid.status).to.equal(201)
    const payment = await traceOf(collector, paid.requestId, 3)
    expect(payment.root.name).to.equal('POST /transactions')
    const authorize = childOf(payment.trace, childOf(payment.trace, payment.root, 'create_transaction'), 'connector authorize')
    expect(authorize.kind).to.equal(CLIENT)
    expect([attr(authorize, 'orka.connector'), attr(authorize, 'orka.connector.kind'), attr(authorize, 'orka.outcome')]).to.deep.equal([
      'mock-card',
      'card',
      'authorized',
    ])

    const acme = orka.token('acmeAdmin')
    const stored = await orka.send('POST', '/gift-cards', {
      token: acme,
      body: { number: GIFT_CARD, pin: PIN },
      headers: { 'x-orka-merchant-account-id': 'acme' },
    })
    expect(stored.status).to.equal(201)
    const giftCard = await traceOf(collector, stored.requestId, 3)
    const balance = childOf(giftCard.trace, childOf(giftCard.trace, giftCard.root, 'create_gift_card'), 'connector balance')
    expect([attr(balance, 'orka.connector'), attr(balance, 'orka.connector.kind')]).to.deep.equal(['mock-gift-card', 'gift_card'])

    // Everything exported, resource attributes included, as the collector received it.
    const exported = collector.bodies.join('\n')
    for (const secret of [CARD_NUMBER, token, acme, PIN, GIFT_CARD, 'secret=query']) expect(exported).to.not.include(secret)
    const values = collector
      .spans()
      .flatMap((s) => s.attributes ?? [])
      .map((a) => String(Object.values(a.value)[0]))
    expect(values).to.not.include(CVV)
  })

  it('makes each webhook attempt a client span in a trace of its own, without the secret or the payload', async () => {
    const receiver = await startReceiver()
    try {
      const subscribed = await orka.send('POST', '/webhook-subscriptions', { body: { url: `${receiver.url}/hook` } })
      expect(subscribed.status).to.equal(201)
      const { id, secret } = subscribed.body as { id: string; secret: string }
      const created = await orka.send('POST', '/buyers', { body: { display_name: 'Traced Buyer' } })
      expect(created.status).to.equal(201)
      const attempt = await eventually(
        () => collector.spans().find((s) => s.name === 'webhook attempt' && attr(s, 'orka.webhook.subscription_id') === id),
        'the webhook attempt span',
        WAIT_MS,
      )
      expect(attempt.kind).to.equal(CLIENT)
      expect(attempt.parentSpanId ?? '').to.equal('')
      expect([Number(attr(attempt, 'orka.webhook.attempt')), attr(attempt, 'orka.outcome')]).to.deep.equal([1, 'delivered'])
      const exported = collector.bodies.join('\n')
      for (const kept of [secret, 'Traced Buyer']) expect(exported).to.not.include(kept)
    } finally {
      await receiver.close()
    }
  })
})

describe('traces on MongoDB', function () {
  this.timeout(60_000)
  const uri = process.env.MONGODB_URI
  let collector: Collector | undefined
  let orka: Awaited<ReturnType<typeof startTracedOrka>> | undefined
  let db: ReturnType<typeof freshDatabase> | undefined
  before(async function () {
    // The test command always provides one (scripts/mongo-test-server); a bare mocha run may not.
    if (!uri) this.skip()
    db = freshDatabase()
    collector = await startCollector()
    orka = await startTracedOrka(collector, db.env)
  })
  after(async () => {
    await orka?.server.stop()
    await collector?.close()
    await db?.drop()
  })

  it("makes a span per MongoDB command, below the request's operation span, without any value of the command", async () => {
    const r = await orka!.send('GET', `/buyers/${IDS.defaultBuyer}`)
    expect(r.status).to.equal(200)
    const { root, trace } = await traceOf(collector!, r.requestId, 3)
    const find = childOf(trace, childOf(trace, root, 'get_buyer'), /^find /)
    expect(find.kind).to.equal(CLIENT)
    expect(attr(find, 'db.system.name')).to.equal('mongodb')
    expect(attr(find, 'db.query.text')).to.not.include(IDS.defaultBuyer)
    expect(collector!.bodies.join('\n')).to.not.include(IDS.defaultBuyer)
  })
})

describe('traces off (no OTEL_TRACES_EXPORTER)', () => {
  it('loads no SDK and logs no trace ids', async () => {
    const h = await startHarness()
    try {
      const r = await h.request('GET', '/roles')
      expect(r.status).to.equal(200)
      const requestId = r.headers.get('x-request-id')
      const line = await eventually(
        () => h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.requestId === requestId),
        'the access-log line',
      )
      expect(line).to.not.have.any.keys('trace_id', 'span_id')
      const loaded = Object.keys(require.cache).filter((m) => /@opentelemetry[\\/](sdk-|instrumentation)/.test(m))
      expect(loaded).to.deep.equal([])
    } finally {
      await h.close()
    }
  })
})
