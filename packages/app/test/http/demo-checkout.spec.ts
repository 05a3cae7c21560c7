import 'reflect-metadata'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { jwkThumbprint } from '@orka/adapters-http'
import { ManualClock } from '@orka/domain/testing'
import { loadConfig } from '../../src/config'
import { DEV_KEY_FILE, ensureDevKey, publicKeyOf } from '../../src/dev-key'
import { createLogger } from '../../src/logger'
import { mintToken } from '../../src/mint-token'
import { RunningServer, startServer } from '../../src/server'
import { errorBody, Harness, makeFixture, startHarness, UUID_RE } from '../support/harness'
import { emptySession } from './checkout-session-support'

const VAULT_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef'
const CARD = { method: 'card', number: '4111111111111111', expiration_date: '12/30', security_code: '123' }
const DEMO_PATHS = ['/demo/checkout', '/demo/checkout.js', '/demo/checkout.css']

/** An instance started as `orka start` would, from these settings (no harness seed, so no keys unless given). */
interface Instance {
  readonly url: string
  readonly clock: ManualClock
  readonly dataDir: string
  readonly logs: string[]
  readonly server: RunningServer
}
const start = async (env: Record<string, string>): Promise<Instance> => {
  const config = loadConfig({ PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', RATE_LIMIT_HOLD_MS: '0', LOG_LEVEL: 'info', ...env })
  if (E.isLeft(config)) throw new Error(config.left.join('; '))
  const logs: string[] = []
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk))
      done()
    },
  })
  const clock = new ManualClock(new Date())
  const server = await startServer(config.right, { clock, logger: createLogger('info', sink) })
  return { url: server.url, clock, dataDir: config.right.dataDir, logs, server }
}

/** A fresh directory for one instance's files, removed after the suite. */
const dirs: string[] = []
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'orka-demo-'))
  dirs.push(dir)
  return dir
}

/** The page's `<main id="checkout">` data attributes, the entities the page escapes decoded. */
const dataOf = (html: string): Record<string, string> => {
  const main = /<main id="checkout"([^>]*)>/.exec(html)
  expect(main, '<main id="checkout">').not.to.equal(null)
  const decode = (s: string) =>
    s
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&')
  return Object.fromEntries([...main![1]!.matchAll(/\s(data-[a-z-]+)="([^"]*)"/g)].map((m) => [m[1]!, decode(m[2]!)]))
}

const base64urlJson = (part: string) => JSON.parse(Buffer.from(part, 'base64url').toString('utf8')) as Record<string, unknown>

interface Call {
  readonly status: number
  readonly headers: Headers
  readonly text: string
  readonly body: Record<string, unknown> | undefined
}
const call = async (url: string, method: string, path: string, o: { token?: string; body?: unknown } = {}): Promise<Call> => {
  const res = await fetch(url + path, {
    method,
    headers: {
      ...(o.token === undefined ? {} : { authorization: `Bearer ${o.token}` }),
      ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
  })
  const text = await res.text()
  return { status: res.status, headers: res.headers, text, body: text === '' ? undefined : (JSON.parse(text) as Record<string, unknown>) }
}

/** Each demo path is the API's 404: the error body, as JSON. */
const expectNoDemo = async (url: string) => {
  for (const path of DEMO_PATHS) {
    const r = await call(url, 'GET', path)
    expect([r.status, r.headers.get('content-type'), r.body], path).to.deep.equal([404, 'application/json; charset=utf-8', errorBody(404)])
  }
}

describe('GET /demo/checkout (the sandbox demo)', () => {
  after(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
  })

  describe('with the harness seed, which names API key pairs', () => {
    let h: Harness
    before(async () => {
      h = await startHarness()
    })
    after(() => h.close())

    it('is not there: the page, its script and its style are the 404 body', async () => {
      await expectNoDemo(h.url)
    })
  })

  describe('with the harness seed and a dev key left in DATA_DIR by an earlier sandbox run', () => {
    let h: Harness
    before(async () => {
      const fixture = makeFixture()
      // The harness's DATA_DIR: a key the seed does not name is one Orka does not accept.
      ensureDevKey(join(fixture.dir, 'data'))
      h = await startHarness({ fixture })
    })
    after(() => h.close())

    it('is still not there', async () => {
      await expectNoDemo(h.url)
    })
  })

  describe('in production without seeded keys', () => {
    let i: Instance
    before(async () => {
      const dataDir = join(freshDir(), 'data')
      // Even with a dev key on disk (say, DATA_DIR reused from a sandbox).
      ensureDevKey(dataDir)
      i = await start({ ENVIRONMENT: 'production', VAULT_KEY, DATA_DIR: dataDir })
    })
    after(() => i.server.close())

    it('is not there', async () => {
      await expectNoDemo(i.url)
      expect(i.logs.join('')).to.include('production: no dev API key is generated')
    })
  })

  describe('in the sandbox with a seed file that names no keys', () => {
    let i: Instance
    before(async () => {
      const dir = freshDir()
      const seedFile = join(dir, 'seed.json')
      writeFileSync(seedFile, JSON.stringify({ merchant_accounts: [{ id: 'acme', display_name: 'Acme' }] }))
      i = await start({ SEED_FILE: seedFile, DATA_DIR: join(dir, 'data') })
    })
    after(() => i.server.close())

    it('serves the page, with a session and a token', async () => {
      const res = await fetch(`${i.url}/demo/checkout`)
      const html = await res.text()
      expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')]).to.deep.equal([
        200,
        'text/html; charset=utf-8',
        'no-store',
      ])
      const data = dataOf(html)
      expect(data['data-session-id']).to.match(UUID_RE)
      expect(data['data-token']).to.match(/^[\w-]+\.[\w-]+\.[\w-]+$/)
    })
  })

  describe('in the sandbox with no seed file (the dev key)', () => {
    let i: Instance
    /** A fresh administrator token of the dev key, for looking at what the demo made. */
    let admin: () => string
    before(async () => {
      i = await start({ DATA_DIR: join(freshDir(), 'data') })
      const pem = readFileSync(join(i.dataDir, DEV_KEY_FILE), 'utf8')
      admin = () => mintToken(pem, { scopes: ['*.read', '*.write'], expiresInS: 300, now: i.clock.now() })
    })
    after(() => i.server.close())

    const load = async () => {
      const res = await fetch(`${i.url}/demo/checkout`)
      const html = await res.text()
      expect(res.status, html.slice(0, 300)).to.equal(200)
      const data = dataOf(html)
      return { res, html, sessionId: data['data-session-id']!, token: data['data-token']!, data }
    }

    it('generated the dev key in DATA_DIR at start', () => {
      expect(existsSync(join(i.dataDir, DEV_KEY_FILE))).to.equal(true)
    })

    it('serves the page: 200, HTML, no-store, its policy, 1299 USD', async () => {
      const { res, html, sessionId, data } = await load()
      expect(res.headers.get('content-type')).to.equal('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).to.equal('no-store')
      expect(res.headers.get('content-security-policy')).to.equal(
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-src 'self'; img-src data:; " +
          "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      )
      expect(data).to.deep.equal({
        'data-session-id': sessionId,
        'data-token': data['data-token'],
        'data-amount': '1299',
        'data-currency': 'USD',
      })
      expect(html).to.include('<button type="submit" id="pay" disabled>Pay 12.99 USD</button>')
    })

    it('made a checkout session of 1299 USD on the default account, expiring in an hour', async () => {
      const { sessionId } = await load()
      const r = await call(i.url, 'GET', `/checkout/sessions/${sessionId}`, { token: admin() })
      const expiresAt = new Date(i.clock.now().getTime() + 3_600_000).toISOString()
      expect([r.status, r.body]).to.deep.equal([200, emptySession(sessionId, expiresAt, { amount: 1299, currency: 'USD' })])
    })

    it('gives an embed token of the dev key, pinned to that session and amount, for 15 minutes', async () => {
      const { sessionId, token } = await load()
      const [header, payload] = token.split('.') as [string, string]
      const pem = readFileSync(join(i.dataDir, DEV_KEY_FILE), 'utf8')
      expect(base64urlJson(header)).to.deep.equal({ alg: 'ES512', typ: 'JWT', kid: jwkThumbprint(publicKeyOf(pem)) })
      const claims = base64urlJson(payload)
      const iat = Math.floor(i.clock.now().getTime() / 1000)
      expect(claims).to.deep.equal({
        scopes: ['embed'],
        iat,
        nbf: iat,
        exp: iat + 900,
        jti: claims.jti,
        embed: { amount: 1299, currency: 'USD', checkout_session_id: sessionId },
      })
      expect(claims.jti).to.match(UUID_RE)
    })

    it('lets the page pay: the fields go in without a token, then the token makes the transaction of 1299 USD, and no other', async () => {
      const { sessionId, token } = await load()
      const fields = await call(i.url, 'PUT', `/checkout/sessions/${sessionId}/fields`, { body: { payment_method: CARD } })
      expect([fields.status, fields.text]).to.deep.equal([204, ''])

      const payment = (amount: number) => ({ amount, currency: 'USD', payment_method: { method: 'checkout-session', id: sessionId } })
      const more = await call(i.url, 'POST', '/transactions', { token, body: payment(1300) })
      expect([more.status, more.body]).to.deep.equal([403, errorBody(403)])
      const euros = await call(i.url, 'POST', '/transactions', { token, body: { ...payment(1299), currency: 'EUR' } })
      expect([euros.status, euros.body]).to.deep.equal([403, errorBody(403)])

      const paid = await call(i.url, 'POST', '/transactions', { token, body: payment(1299) })
      expect(paid.status, paid.text).to.equal(201)
      expect(paid.body).to.include({
        type: 'transaction',
        merchant_account_id: 'default',
        amount: 1299,
        currency: 'USD',
        status: 'authorization_succeeded',
        checkout_session_id: sessionId,
      })
      expect(paid.body!.payment_method).to.include({ method: 'card', label: '1111', scheme: 'visa', expiration_date: '12/30' })

      const again = await call(i.url, 'POST', '/transactions', { token, body: payment(1300) })
      expect([again.status, again.body]).to.deep.equal([403, errorBody(403)])

      // Stored as answered: the merchant's server sees the same transaction.
      const stored = await call(i.url, 'GET', `/transactions/${String(paid.body!.id)}`, { token: admin() })
      expect([stored.status, stored.body]).to.deep.equal([200, paid.body])
    })

    it('starts a new checkout on every load: two loads, two sessions and two tokens', async () => {
      const a = await load()
      const b = await load()
      expect(a.sessionId).not.to.equal(b.sessionId)
      expect(a.token).not.to.equal(b.token)
      expect(base64urlJson(b.token.split('.')[1]!).embed).to.deep.equal({ amount: 1299, currency: 'USD', checkout_session_id: b.sessionId })
    })

    it('serves its script and style', async () => {
      for (const [path, type] of [
        ['/demo/checkout.js', 'text/javascript; charset=utf-8'],
        ['/demo/checkout.css', 'text/css; charset=utf-8'],
      ] as const) {
        const res = await fetch(`${i.url}${path}`)
        await res.arrayBuffer()
        expect([res.status, res.headers.get('content-type'), res.headers.get('cache-control')], path).to.deep.equal([200, type, 'no-cache'])
      }
    })
  })
})
