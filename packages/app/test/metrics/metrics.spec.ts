import { expect } from 'chai'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, Server } from 'node:net'
import { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort } from '../../bench/processes'
import { Harness, startHarness } from '../support/harness'
import { eventually, startReceiver } from '../support/receiver'
import { WEBHOOK_TEST_ENV } from '../webhooks/delivery.suite'

const main = join(__dirname, '..', '..', 'src', 'main.js')
const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const PAYMENT = { amount: 1299, currency: 'USD', payment_method: CARD }

/** The value of the sample `name` whose labels include `labels`; undefined when there is none. */
const sample = (text: string, name: string, labels: Record<string, string> = {}): number | undefined => {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m?.[1] !== name) continue
    const have = new Map([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l): [string, string] => [l[1]!, l[2]!]))
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) return Number(m[3])
  }
  return undefined
}

/** Label values of every series of a metric family (sample names starting with `prefix`). */
const labelValues = (text: string, prefix: string, label: string): Set<string> => {
  const out = new Set<string>()
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue
    const m = new RegExp(`${label}="([^"]*)"`).exec(line)
    if (m !== null) out.add(m[1]!)
  }
  return out
}

const requireCommand = (name: string): void => {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0
  if (!found) throw new Error(`${name} is not installed: the metrics tests need Debian's prometheus package (scripts/run test installs it)`)
}

const scrape = async (h: Harness): Promise<string> => {
  expect(h.server.metricsUrl, 'metrics listener').to.be.a('string')
  const r = await fetch(h.server.metricsUrl!)
  expect(r.status).to.equal(200)
  expect(r.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/)
  return r.text()
}

describe('Prometheus metrics (METRICS_PORT)', function () {
  this.timeout(60_000)
  let h: Harness
  before(async () => {
    h = await startHarness({ env: { METRICS_PORT: String(await freePort()), EMBED_RATE_LIMIT: '3' } })
  })
  after(() => h.close())

  it('counts requests by route template, rate-limit refusals, idempotent replays and conflicts, connector calls, storage and transactions', async () => {
    const paid = await h.request<{ id: string; status: string }>('POST', '/transactions', {
      body: PAYMENT,
      headers: { 'idempotency-key': 'k-1' },
    })
    expect(paid.status).to.equal(201)
    const replay = await h.request('POST', '/transactions', { body: PAYMENT, headers: { 'idempotency-key': 'k-1' } })
    expect([replay.status, replay.headers.get('idempotent-replayed')]).to.deep.equal([201, 'true'])
    const reused = await h.request('POST', '/transactions', { body: { ...PAYMENT, amount: 1 }, headers: { 'idempotency-key': 'k-1' } })
    expect(reused.status).to.equal(400)
    expect((await h.request('GET', `/transactions/${paid.body.id}`)).status).to.equal(200)
    expect((await h.request('GET', '/no/such/route/4111111111111111')).status).to.equal(404)
    const embed = h.token('admin', { scopes: ['embed'] })
    const flood = []
    for (let i = 0; i < 5; i++)
      flood.push(
        (
          await h.request('POST', '/gift-cards/activations', {
            auth: embed,
            body: { number: `6100000000${String(i).padStart(6, '0')}001` },
          })
        ).status,
      )
    expect(flood).to.deep.equal([201, 201, 201, 429, 429])

    const text = await scrape(h)
    const http = (route: string, method: string, status: string) =>
      sample(text, 'http_server_request_duration_seconds_count', {
        http_request_method: method,
        http_route: route,
        http_response_status_code: status,
      })
    expect(http('/transactions', 'POST', '201')).to.equal(2)
    expect(http('/transactions', 'POST', '400')).to.equal(1)
    expect(http('/transactions/{transaction_id}', 'GET', '200')).to.equal(1)
    expect(http('unmatched', 'GET', '404')).to.equal(1)
    expect(http('/gift-cards/activations', 'POST', '429')).to.equal(2)
    // Bounded label values only: templates, never an id or a raw path.
    for (const route of labelValues(text, 'http_server_request_duration_seconds', 'http_route'))
      expect(route === 'unmatched' || /^\/[a-z0-9/{}_.-]*$/.test(route), route).to.equal(true)
    expect(text).not.to.include(paid.body.id)
    expect(text).not.to.include('4111111111111111')
    expect(text).not.to.include('k-1')

    expect(sample(text, 'orka_rate_limit_refusals_total', { limit: 'embed' })).to.equal(2)
    expect(sample(text, 'orka_idempotent_replays_total')).to.equal(1)
    expect(sample(text, 'orka_idempotency_conflicts_total', { reason: 'key_reused' })).to.equal(1)
    expect(
      sample(text, 'orka_connector_call_duration_seconds_count', { connector: 'mock-card', operation: 'authorize', outcome: 'authorized' }),
    ).to.equal(1)
    expect(
      sample(text, 'orka_connector_call_duration_seconds_count', { connector: 'mock-gift-card', operation: 'activate', outcome: 'ok' }),
    ).to.equal(3)
    expect(sample(text, 'orka_transactions_total', { status: paid.body.status })).to.equal(1)
    expect(
      sample(text, 'orka_storage_operation_duration_seconds_count', { store: 'memory', command: 'transactions.put' }),
    ).to.be.greaterThan(0)
    expect(sample(text, 'orka_webhook_deliveries_due')).to.be.a('number')
    expect(sample(text, 'orka_webhook_oldest_due_age_seconds')).to.be.a('number')
    // prom-client's default metrics
    for (const name of ['nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'process_cpu_seconds_total'])
      expect(sample(text, name), name).to.be.a('number')
    expect(text).to.include('# TYPE nodejs_gc_duration_seconds histogram')
  })

  it('passes promtool check metrics', async () => {
    requireCommand('promtool')
    const text = await scrape(h)
    const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
    expect([r.status, r.stdout + r.stderr]).to.deep.equal([0, ''])
  })

  it('is not served on the public API port', async () => {
    const r = await fetch(`${h.url}/metrics`)
    expect(r.status).to.equal(404)
    expect(await r.text()).not.to.include('http_server_request_duration_seconds')
  })

  it('answers 404 to anything but GET /metrics', async () => {
    const base = h.server.metricsUrl!.replace(/\/metrics$/, '')
    expect((await fetch(`${base}/`)).status).to.equal(404)
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).to.equal(404)
  })

  it('a real Prometheus server scrapes it and answers a counter through its HTTP API', async () => {
    requireCommand('prometheus')
    const dir = mkdtempSync(join(tmpdir(), 'orka-prometheus-'))
    const target = new URL(h.server.metricsUrl!).host
    writeFileSync(
      join(dir, 'prometheus.yml'),
      `global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: orka\n    static_configs:\n      - targets: ['${target}']\n`,
    )
    const port = await freePort()
    const prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: 'ignore' },
    )
    try {
      expect((await h.request('GET', '/roles')).status).to.equal(200)
      const query = encodeURIComponent(
        'sum(http_server_request_duration_seconds_count{job="orka",http_route="/roles",http_response_status_code="200"})',
      )
      let value: string | undefined
      const until = Date.now() + 40_000
      while (value === undefined && Date.now() < until) {
        await new Promise((resolve) => setTimeout(resolve, 500))
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${query}`).catch(() => undefined)
        if (r?.status !== 200) continue
        const body = (await r.json()) as { status: string; data: { result: { value: [number, string] }[] } }
        value = body.data.result[0]?.value[1]
      }
      expect(value, 'the counter, as Prometheus scraped it').to.equal('1')
    } finally {
      prometheus.kill('SIGTERM')
      if (prometheus.exitCode === null) await once(prometheus, 'exit')
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('webhook metrics', function () {
  this.timeout(60_000)

  it('counts attempts by outcome: a failed attempt that will be retried, then the delivery', async () => {
    const rx = await startReceiver((_r, n) => ({ status: n === 1 ? 500 : 204 }))
    const h = await startHarness({ env: { ...WEBHOOK_TEST_ENV, METRICS_PORT: String(await freePort()) } })
    try {
      const sub = await h.request<{ id: string }>('POST', '/webhook-subscriptions', {
        merchantAccount: 'acme',
        body: { url: `${rx.url}/hook` },
      })
      expect(sub.status, sub.text).to.equal(201)
      const buyer = await h.request('POST', '/buyers', { merchantAccount: 'acme', body: { display_name: 'Grace Hopper' } })
      expect(buyer.status, buyer.text).to.equal(201)
      // The seeded subscriptions' targets do not answer either: at least ours failed once.
      await eventually(async () => {
        const r = await h.request<{ items: { attempts: unknown[] }[] }>('GET', `/webhook-subscriptions/${sub.body.id}/deliveries`, {
          merchantAccount: 'acme',
        })
        return r.body.items[0]?.attempts.length === 1 ? true : undefined
      }, 'the first attempt recorded')
      expect(sample(await scrape(h), 'orka_webhook_attempts_total', { outcome: 'retrying' })).to.be.at.least(1)
      // The retry is due 1 s later (up to 10 % more) on the harness's clock.
      h.clock.advance(2000)
      const text = await eventually(async () => {
        const t = await scrape(h)
        return sample(t, 'orka_webhook_attempts_total', { outcome: 'delivered' }) === 1 ? t : undefined
      }, 'a delivered attempt in the metrics')
      expect(sample(text, 'orka_webhook_attempts_total', { outcome: 'retrying' })).to.be.at.least(1)
      expect(rx.received).to.have.length(2)
    } finally {
      await h.close()
      await rx.close()
    }
  })
})

describe('METRICS_PORT at start-up', function () {
  this.timeout(60_000)

  it('0 (the test default): no listener, nothing measured', async () => {
    const h = await startHarness()
    try {
      expect(h.server.metricsUrl).to.equal(undefined)
      expect(h.logs.join('')).not.to.include('metrics on')
    } finally {
      await h.close()
    }
  })

  it('a taken metrics port stops start-up with one line naming METRICS_PORT', async () => {
    const taken: Server = createServer()
    taken.listen(0, '127.0.0.1')
    await once(taken, 'listening')
    const dir = mkdtempSync(join(tmpdir(), 'orka-metrics-'))
    try {
      const port = (taken.address() as AddressInfo).port
      const r = spawnSync(process.execPath, [main], {
        env: {
          ...process.env,
          MONGODB_URI: '',
          PORT: '0',
          HOST: '127.0.0.1',
          METRICS_PORT: String(port),
          DATA_DIR: dir,
          LOG_LEVEL: 'silent',
        },
        encoding: 'utf8',
        timeout: 30_000,
      })
      expect([r.status, r.stderr]).to.deep.equal([
        1,
        `Orka could not start: METRICS_PORT: 127.0.0.1:${port} is in use (another instance? give each its own METRICS_PORT, or 0 for none)\n`,
      ])
      expect(r.stdout).not.to.include('Orka listening')
    } finally {
      taken.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('the same port as PORT is a configuration error', () => {
    const r = spawnSync(process.execPath, [main], {
      env: { ...process.env, MONGODB_URI: '', PORT: '18555', METRICS_PORT: '18555', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect([r.status, r.stderr]).to.deep.equal([
      1,
      'configuration error: METRICS_PORT: must differ from PORT (metrics are never served on the API port)\n',
    ])
  })
})
