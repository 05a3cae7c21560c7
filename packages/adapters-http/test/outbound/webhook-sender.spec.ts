import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { LookupAddress } from 'node:dns'
import { once } from 'node:events'
import { createServer, IncomingHttpHeaders, Server, ServerResponse } from 'node:http'
import { AddressInfo, Socket } from 'node:net'
import { createServer as createTlsServer } from 'node:tls'
import { WebhookAuthenticationCreate, WebhookRequest } from '@orka/domain'
import { HostLookup, NodeWebhookSender, signWebhook, WebhookSenderConfig, WebhookSenderDeps } from '../../src'
import { omit } from '../support'

/** RFC 2104 HMAC-SHA256 from the bare hash: an implementation that shares no code with the sender's. */
const rfc2104 = (key: string, message: string): string => {
  let k = Buffer.from(key, 'utf8')
  if (k.length > 64) k = createHash('sha256').update(k).digest()
  const block = Buffer.concat([k, Buffer.alloc(64 - k.length)])
  const pad = (byte: number) => Buffer.from(block.map((b) => b ^ byte))
  const inner = createHash('sha256').update(pad(0x36)).update(message, 'utf8').digest()
  return createHash('sha256').update(pad(0x5c)).update(inner).digest('hex')
}

interface Got {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}
type Handler = (g: Got, res: ServerResponse) => void

const closers: (() => Promise<void> | void)[] = []

/** A local endpoint on 127.0.0.1 that records every request it reads in full, and its connections. */
const serve = async (handler: Handler) => {
  const got: Got[] = []
  const sockets: Socket[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const g = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      got.push(g)
      handler(g, res)
    })
  })
  server.on('connection', (s: Socket) => sockets.push(s))
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  closers.push(async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  })
  const port = (server.address() as AddressInfo).port
  return { got, sockets, port, url: `http://127.0.0.1:${port}` }
}
const json =
  (status: number, body: unknown): Handler =>
  (_g, res) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(body))
  }
const status =
  (s: number, body: string | Buffer = ''): Handler =>
  (_g, res) => {
    res.writeHead(s)
    res.end(body)
  }
const silent: Handler = () => undefined

const CONFIG: WebhookSenderConfig = { headerPrefix: 'X-Orka', timeoutMs: 2000, allowPrivateAddresses: true, requireHttps: false }
const STRICT: WebhookSenderConfig = { ...CONFIG, allowPrivateAddresses: false }
const BODY = '{"type":"event","id":"7a3f0c52-9d4e-4b1a-8c6d-000000000001","name":"buyer.created","target":{"display_name":"Zoë ✓"}}'
const request = (url: string, o: Partial<WebhookRequest> = {}): WebhookRequest => ({
  url,
  body: BODY,
  eventId: '7a3f0c52-9d4e-4b1a-8c6d-000000000001',
  timestamp: 1744018920,
  secrets: ['first-secret'],
  authentication: null,
  subscriptionId: '7a3f0c52-9d4e-4b1a-8c6d-00000000000a',
  ...o,
})

/** A sender closed after the test, so no kept-alive connection outlives it. */
const sender = (config: WebhookSenderConfig = CONFIG, deps: WebhookSenderDeps = {}) => {
  const s = new NodeWebhookSender(config, deps)
  closers.push(() => {
    s.close()
  })
  return s
}
/** A resolver that answers `addresses` for any name, counting the questions. */
const resolving = (...addresses: string[]) => {
  const asked: string[] = []
  const lookup: HostLookup = (host) => {
    asked.push(host)
    return Promise.resolve(addresses.map((address): LookupAddress => ({ address, family: address.includes(':') ? 6 : 4 })))
  }
  return { asked, lookup }
}
const dnsError = (code: string) => Object.assign(new Error(`getaddrinfo ${code}`), { code })

describe('NodeWebhookSender', function () {
  this.timeout(10000)
  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close()
  })

  describe('signatures', () => {
    it("matches the original API SDK's known answer", () => {
      const secret = 'Ik4L-8FH0ihWczctcIPXZRR_8F0fPNgmhEfVBbZ3zNwqQVa1Or4tBz4Pgw2eNaVDod7H56Y268h_wohEUaWbUg'
      expect(signWebhook(secret, 1744018920, 'payload')).to.equal('78aca0c78005107a654a957b8566fa6e0e5e06aea92d7da72a6da9e5a690d013')
      expect(rfc2104(secret, '1744018920.payload')).to.equal('78aca0c78005107a654a957b8566fa6e0e5e06aea92d7da72a6da9e5a690d013')
    })

    it('agrees with an independent RFC 2104 HMAC, for long keys and non-ASCII bodies too', () => {
      for (const secret of ['k', 'x'.repeat(64), 'x'.repeat(100), 'sécret-ключ'])
        expect(signWebhook(secret, 1700000000, BODY)).to.equal(rfc2104(secret, `1700000000.${BODY}`))
    })
  })

  describe('the request', () => {
    it('POSTs the body as sent, with the event id, timestamp and one signature per secret, in order', async () => {
      const s = await serve(status(204))
      const r = await sender().send(request(`${s.url}/hooks?x=1`, { secrets: ['new-secret', 'old-secret'] }))()
      expect(r).to.deep.include({ status: 204, error: null, excerpt: null })
      expect(r.durationMs).to.be.a('number').and.satisfy(Number.isInteger).and.at.least(0)
      expect(s.got).to.have.length(1)
      const g = s.got[0]!
      expect(g.method).to.equal('POST')
      expect(g.path).to.equal('/hooks?x=1')
      expect(g.body).to.equal(BODY)
      expect(g.headers).to.deep.include({
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(BODY, 'utf8')),
        'user-agent': 'Orka-Webhooks/1.0',
        'x-orka-webhook-id': '7a3f0c52-9d4e-4b1a-8c6d-000000000001',
        'x-orka-webhook-timestamp': '1744018920',
        'x-orka-webhook-signatures': `${rfc2104('new-secret', `1744018920.${BODY}`)},${rfc2104('old-secret', `1744018920.${BODY}`)}`,
      })
      expect(g.headers.authorization).to.equal(undefined)
    })

    it('names the headers with the configured prefix, and sends the configured User-Agent', async () => {
      const s = await serve(status(200))
      await sender({ ...CONFIG, headerPrefix: 'X-Acme', userAgent: 'Acme/2' }).send(request(s.url))()
      const h = s.got[0]!.headers
      expect(Object.keys(h).filter((k) => k.includes('webhook'))).to.deep.equal([
        'x-acme-webhook-id',
        'x-acme-webhook-timestamp',
        'x-acme-webhook-signatures',
      ])
      expect(h['x-acme-webhook-signatures']).to.equal(rfc2104('first-secret', `1744018920.${BODY}`))
      expect(h['user-agent']).to.equal('Acme/2')
    })

    it('sends basic credentials', async () => {
      const s = await serve(status(200))
      await sender().send(request(s.url, { authentication: { kind: 'basic', username: 'orka', password: 'pä:ss' } }))()
      expect(s.got[0]!.headers.authorization).to.equal(`Basic ${Buffer.from('orka:pä:ss', 'utf8').toString('base64')}`)
    })

    it('resolves the host once and connects to that address, keeping the name in Host', async () => {
      const s = await serve(status(204))
      const dns = resolving('127.0.0.1')
      expect((await sender(CONFIG, { lookup: dns.lookup }).send(request(`http://hooks.merchant.test:${s.port}/x`))()).status).to.equal(204)
      expect(dns.asked).to.deep.equal(['hooks.merchant.test'])
      expect(s.got[0]!.headers.host).to.equal(`hooks.merchant.test:${s.port}`)
    })

    it('keeps the connection alive between attempts to one host', async () => {
      const s = await serve(status(204))
      const one = sender()
      for (let i = 0; i < 3; i++) expect((await one.send(request(s.url))()).status).to.equal(204)
      expect(s.got).to.have.length(3)
      expect(s.sockets).to.have.length(1)
    })

    it('sends once more, on a new connection, when a kept-alive one turns out closed', async () => {
      const used = new WeakSet<Socket>()
      const s = await serve((g, res) => {
        // The second request on a connection finds it closed, as a server's idle timeout would.
        if (used.has(res.socket!)) return res.socket!.destroy()
        used.add(res.socket!)
        status(204)(g, res)
      })
      const one = sender()
      expect((await one.send(request(s.url))()).status).to.equal(204)
      expect(await one.send(request(s.url))()).to.deep.include({ status: 204, error: null })
      expect(s.sockets).to.have.length(2)
    })

    it('names the host for TLS (SNI) while connecting to the vetted address, and fails an unusable handshake', async () => {
      const names: string[] = []
      const tls = createTlsServer({
        // No certificate at all: the handshake cannot succeed, but the name asked for is seen.
        SNICallback: (name, cb) => {
          names.push(name)
          cb(new Error('no certificate here'))
        },
      })
      tls.on('tlsClientError', () => undefined)
      tls.listen(0, '127.0.0.1')
      await once(tls, 'listening')
      closers.push(
        () =>
          new Promise<void>((r) =>
            tls.close(() => {
              r()
            }),
          ),
      )
      const port = (tls.address() as AddressInfo).port
      const r = await sender(CONFIG, { lookup: resolving('127.0.0.1').lookup }).send(request(`https://hooks.merchant.test:${port}/`))()
      expect(r).to.deep.include({ status: null, error: 'connection_failed', excerpt: null })
      expect(names).to.deep.equal(['hooks.merchant.test'])
    })

    it('destroys its connections on close', async () => {
      const s = await serve(status(204))
      const one = sender()
      await one.send(request(s.url))()
      const closed = once(s.sockets[0]!, 'close')
      one.close()
      await closed
    })
  })

  describe('answers', () => {
    it('counts any 2xx as received', async () => {
      for (const code of [200, 201, 202, 204, 299]) {
        const s = await serve(status(code, code === 204 ? '' : 'ok'))
        expect(await sender().send(request(s.url))(), String(code)).to.deep.include({ status: code, error: null })
      }
    })

    it('never follows a redirect', async () => {
      const target = await serve(status(200))
      for (const code of [301, 302, 307, 308]) {
        const s = await serve((_g, res) => {
          res.writeHead(code, { location: `${target.url}/elsewhere` })
          res.end()
        })
        expect(await sender().send(request(s.url))()).to.deep.include({ status: code, error: 'redirect' })
      }
      expect(target.got).to.have.length(0)
    })

    it('fails another status, keeping the start of the answer', async () => {
      for (const code of [400, 401, 404, 500, 503]) {
        const s = await serve(status(code, 'upstream exploded'))
        expect(await sender().send(request(s.url))()).to.deep.include({
          status: code,
          error: 'unexpected_status',
          excerpt: 'upstream exploded',
        })
      }
    })

    it('keeps exactly 1 KiB of a large answer', async () => {
      const s = await serve(status(200, 'a'.repeat(1024 * 1024)))
      const r = await sender().send(request(s.url))()
      expect(r).to.deep.include({ status: 200, error: null })
      expect(Buffer.byteLength(r.excerpt!, 'utf8')).to.equal(1024)
      expect(r.excerpt).to.equal('a'.repeat(1024))
    })

    it('stops reading after 64 KiB: an answer that goes on without end still counts', async () => {
      let closed = false as boolean // set by the `close` listener
      const s = await serve((_g, res) => {
        res.writeHead(500)
        res.write(Buffer.alloc(1024 * 1024, 'b'))
        res.on('close', () => (closed = true))
        // ...and never ends: only a sender that stops reading gets past this before its timeout.
      })
      const r = await sender({ ...CONFIG, timeoutMs: 5000 }).send(request(s.url))()
      expect(r).to.deep.include({ status: 500, error: 'unexpected_status', excerpt: 'b'.repeat(1024) })
      while (!closed) await new Promise((r) => setTimeout(r, 10))
    })

    it('cuts the excerpt before a character the 1 KiB limit would split, and replaces invalid UTF-8', async () => {
      const euros = await serve(status(500, '€'.repeat(500))) // 3 bytes each: 341 fit in 1024
      expect((await sender().send(request(euros.url))()).excerpt).to.equal('€'.repeat(341))
      const invalid = await serve(status(500, Buffer.from([0x6f, 0x6b, 0xff, 0x21])))
      expect((await sender().send(request(invalid.url))()).excerpt).to.equal('ok\ufffd!')
    })
  })

  describe('failures', () => {
    it('times out an endpoint that does not answer, within the attempt time', async () => {
      const s = await serve(silent)
      const started = Date.now()
      const r = await sender({ ...CONFIG, timeoutMs: 300 }).send(request(s.url))()
      expect(r).to.deep.include({ status: null, error: 'timeout', excerpt: null })
      expect(Date.now() - started).to.be.below(3000)
      expect(s.got).to.have.length(1) // it was sent: the answer is what never came
    })

    it('times out an answer whose body never ends', async () => {
      const s = await serve((_g, res) => {
        res.writeHead(200)
        res.write('partial')
      })
      expect(await sender({ ...CONFIG, timeoutMs: 300 }).send(request(s.url))()).to.deep.include({ status: null, error: 'timeout' })
    })

    it('times out a name that does not resolve in time', async () => {
      const started = Date.now()
      const hanging: HostLookup = () => new Promise(() => undefined)
      const r = await sender({ ...CONFIG, timeoutMs: 300 }, { lookup: hanging }).send(request('http://slow-dns.test/'))()
      expect(r).to.deep.include({ status: null, error: 'timeout' })
      expect(Date.now() - started).to.be.below(3000)
    })

    it('fails a refused connection', async () => {
      const s = await serve(status(200))
      for (const close of closers.splice(0)) await close()
      expect(await sender().send(request(s.url))()).to.deep.include({ status: null, error: 'connection_failed', excerpt: null })
    })

    it('fails a host that does not resolve', async () => {
      for (const code of ['ENOTFOUND', 'EAI_AGAIN']) {
        const r = await sender(CONFIG, { lookup: () => Promise.reject(dnsError(code)) }).send(request('http://nowhere.test/x'))()
        expect(r, code).to.deep.include({ status: null, error: 'unresolvable_host' })
      }
      expect(await sender(CONFIG, { lookup: () => Promise.resolve([]) }).send(request('http://empty.test/'))()).to.deep.include({
        error: 'unresolvable_host',
      })
    })

    it('refuses private addresses without connecting: literal, resolved (any of them), and localhost names', async () => {
      const s = await serve(status(200))
      const cases: readonly (readonly [string, readonly string[]])[] = [
        [s.url, []],
        [`http://[::1]:${s.port}/`, []],
        [`http://[::ffff:127.0.0.1]:${s.port}/`, []],
        [`http://0x7f.1:${s.port}/`, []], // the URL parser makes it 127.0.0.1
        [`http://rebinding.test:${s.port}/`, ['93.184.216.34', '10.0.0.1']],
        [`http://metadata.test/`, ['169.254.169.254']],
        [`http://v6.test:${s.port}/`, ['2606:4700::1', 'fd00::1']],
        [`http://scoped.test:${s.port}/`, ['fe80::1%eth0']],
        [`http://127.0.0.1.nip.test:${s.port}/`, ['127.0.0.1']],
      ]
      for (const [url, addresses] of cases)
        expect(await sender(STRICT, { lookup: resolving(...addresses).lookup }).send(request(url))(), url).to.deep.include({
          status: null,
          error: 'blocked_address',
        })
      const dns = resolving('93.184.216.34')
      for (const name of ['localhost', 'hooks.localhost'])
        expect(await sender(STRICT, { lookup: dns.lookup }).send(request(`http://${name}:${s.port}/`))(), name).to.deep.include({
          error: 'blocked_address',
        })
      expect(dns.asked, 'localhost names are not looked up').to.deep.equal([])
      expect(s.got).to.have.length(0)
      expect(s.sockets).to.have.length(0)
    })

    it('requires https when told to', async () => {
      const s = await serve(status(200))
      expect(await sender({ ...CONFIG, requireHttps: true }).send(request(s.url))()).to.deep.include({
        status: null,
        error: 'https_required',
      })
      expect(s.got).to.have.length(0)
    })

    it('never rejects, whatever it is given', async () => {
      const s = await serve(status(200))
      const cases: readonly (readonly [WebhookRequest, string])[] = [
        [request('not a url'), 'connection_failed'],
        [request('ftp://example.test/'), 'connection_failed'],
        [request(s.url, { eventId: 'a\r\nX-Injected: 1' }), 'connection_failed'], // node refuses the header
        [request(s.url, { secrets: [] }), 'null'],
      ]
      for (const [req, error] of cases) expect(String((await sender().send(req)()).error), req.url).to.equal(error)
      expect(s.got.map((g) => g.headers['x-injected'])).to.deep.equal([undefined])
    })
  })

  describe('OAuth', () => {
    const credentials = (tokenUrl: string, o: Partial<{ client_secret: string }> = {}): WebhookAuthenticationCreate => ({
      kind: 'oauth_client_credentials',
      client_id: 'orka id',
      client_secret: 's3cr:et',
      token_url: tokenUrl,
      scope: 'hooks',
      ...o,
    })

    it('fetches a client-credentials token with HTTP Basic client auth and sends it as Bearer, reusing it while it lives', async () => {
      const tokens = await serve(json(200, { access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 }))
      const s = await serve(status(204))
      const one = sender()
      for (let i = 0; i < 2; i++)
        expect((await one.send(request(s.url, { authentication: credentials(`${tokens.url}/token`) }))()).error).to.equal(null)
      expect(s.got.map((g) => g.headers.authorization)).to.deep.equal(['Bearer tok-1', 'Bearer tok-1'])
      expect(tokens.got).to.have.length(1)
      const t = tokens.got[0]!
      expect(t.method).to.equal('POST')
      expect(t.path).to.equal('/token')
      expect(t.headers['content-type']).to.equal('application/x-www-form-urlencoded')
      expect(t.headers.accept).to.equal('application/json')
      // RFC 6749 §2.3.1: each form-urlencoded, then base64 of `id:secret`.
      expect(t.headers.authorization).to.equal(`Basic ${Buffer.from('orka+id:s3cr%3Aet').toString('base64')}`)
      expect(t.body).to.equal('grant_type=client_credentials&scope=hooks')
    })

    it('sends the password grant, without a scope when there is none', async () => {
      const tokens = await serve(json(200, { access_token: 'tok-p' }))
      const s = await serve(status(204))
      // A scope given as null, or left out (as a stored subscription without one reads).
      const auth: WebhookAuthenticationCreate = {
        kind: 'oauth_password',
        client_id: 'c',
        client_secret: 's',
        token_url: tokens.url,
        username: 'u@x',
        password: 'p w&',
        scope: null,
      }
      const noScope = omit(auth, 'scope')
      expect((await sender().send(request(s.url, { authentication: auth }))()).error).to.equal(null)
      expect((await sender().send(request(s.url, { authentication: noScope }))()).error).to.equal(null)
      for (const t of tokens.got)
        expect(Object.fromEntries(new URLSearchParams(t.body))).to.deep.equal({ grant_type: 'password', username: 'u@x', password: 'p w&' })
      const t = tokens.got[0]!
      expect(t.headers.authorization).to.equal(`Basic ${Buffer.from('c:s').toString('base64')}`)
      expect(s.got[0]!.headers.authorization).to.equal('Bearer tok-p')
    })

    it('does not keep a token without expires_in', async () => {
      let n = 0
      const tokens = await serve((g, res) => {
        json(200, { access_token: `tok-${++n}` })(g, res)
      })
      const s = await serve(status(204))
      const one = sender()
      for (let i = 0; i < 2; i++) await one.send(request(s.url, { authentication: credentials(tokens.url) }))()
      expect(s.got.map((g) => g.headers.authorization)).to.deep.equal(['Bearer tok-1', 'Bearer tok-2'])
    })

    it('drops a kept token the endpoint refused with 401, without sending again at once', async () => {
      let n = 0
      const tokens = await serve((g, res) => {
        json(200, { access_token: `tok-${++n}`, expires_in: 3600 })(g, res)
      })
      const s = await serve((g, res) => {
        status(g.headers.authorization === 'Bearer tok-1' ? 401 : 204)(g, res)
      })
      const one = sender()
      const send = () => one.send(request(s.url, { authentication: credentials(tokens.url) }))()
      expect(await send()).to.deep.include({ status: 401, error: 'unexpected_status' })
      expect(s.got).to.have.length(1)
      expect(await send()).to.deep.include({ status: 204, error: null })
      expect(await send()).to.deep.include({ status: 204, error: null })
      expect(s.got.map((g) => g.headers.authorization)).to.deep.equal(['Bearer tok-1', 'Bearer tok-2', 'Bearer tok-2'])
    })

    it('renews a token shortly before it expires', async () => {
      let n = 0
      const tokens = await serve((g, res) => {
        json(200, { access_token: `tok-${++n}`, expires_in: 100 })(g, res)
      })
      const s = await serve(status(204))
      let now = 1_000_000
      const one = sender(CONFIG, { now: () => now })
      const send = () => one.send(request(s.url, { authentication: credentials(tokens.url) }))()
      await send()
      now += 89_000 // 100 s less a 10 s margin: still kept
      await send()
      now += 2_000
      await send()
      expect(s.got.map((g) => g.headers.authorization)).to.deep.equal(['Bearer tok-1', 'Bearer tok-1', 'Bearer tok-2'])
    })

    it('keeps a token per subscription and credentials: changed credentials fetch a new one', async () => {
      let n = 0
      const tokens = await serve((g, res) => {
        json(200, { access_token: `tok-${++n}`, expires_in: 3600 })(g, res)
      })
      const s = await serve(status(204))
      const one = sender()
      await one.send(request(s.url, { authentication: credentials(tokens.url) }))()
      await one.send(request(s.url, { authentication: credentials(tokens.url, { client_secret: 'rotated' }) }))()
      await one.send(request(s.url, { authentication: credentials(tokens.url), subscriptionId: '7a3f0c52-9d4e-4b1a-8c6d-00000000000b' }))()
      expect(s.got.map((g) => g.headers.authorization)).to.deep.equal(['Bearer tok-1', 'Bearer tok-2', 'Bearer tok-3'])
    })

    it('shares one token fetch between attempts that need it at once', async () => {
      const tokens = await serve(json(200, { access_token: 'tok-1', expires_in: 3600 }))
      const s = await serve(status(204))
      const one = sender()
      const results = await Promise.all([1, 2, 3].map(() => one.send(request(s.url, { authentication: credentials(tokens.url) }))()))
      expect(results.map((r) => r.error)).to.deep.equal([null, null, null])
      expect(tokens.got).to.have.length(1)
    })

    it('fails the attempt without sending the event when the token endpoint fails, and says nothing of the credentials', async () => {
      const s = await serve(status(204))
      const failing: Handler[] = [
        status(500, 'boom'),
        status(200, 'not json'),
        json(200, { token: 'x' }),
        json(200, { access_token: '' }),
        json(200, { access_token: 'two words' }),
        json(200, { access_token: 'x', token_type: 'mac' }),
        json(200, ['access_token']),
        json(401, { error: 'invalid_client' }),
        (_g, res) => res.socket!.destroy(),
      ]
      for (const [i, handler] of failing.entries()) {
        const tokens = await serve(handler)
        const r = await sender().send(request(s.url, { authentication: credentials(tokens.url) }))()
        expect(r, String(i)).to.deep.include({ status: null, error: 'authentication_failed', excerpt: null })
        expect(JSON.stringify(r)).not.to.match(/s3cr|orka id|first-secret/)
      }
      expect(s.got).to.have.length(0)
    })

    it('fails as authentication_failed, within the attempt time, when the token endpoint does not answer', async () => {
      const tokens = await serve(silent)
      const s = await serve(status(204))
      const started = Date.now()
      const r = await sender({ ...CONFIG, timeoutMs: 300 }).send(request(s.url, { authentication: credentials(tokens.url) }))()
      expect(r).to.deep.include({ status: null, error: 'authentication_failed' })
      expect(Date.now() - started).to.be.below(3000)
      expect(s.got).to.have.length(0)
    })

    it('applies the address policy and https requirement to the token endpoint', async () => {
      const tokens = await serve(json(200, { access_token: 'x' }))
      const publicDns = resolving('93.184.216.34').lookup
      const blocked = await sender(STRICT, { lookup: publicDns }).send(
        request('http://public.test/', { authentication: credentials(tokens.url) }),
      )()
      expect(blocked).to.deep.include({ status: null, error: 'authentication_failed' })
      const plain = await sender({ ...CONFIG, requireHttps: true }, { lookup: publicDns }).send(
        request('https://public.test/', { authentication: credentials(tokens.url) }),
      )()
      expect(plain).to.deep.include({ status: null, error: 'authentication_failed' })
      expect(tokens.got).to.have.length(0)
    })
  })
})
