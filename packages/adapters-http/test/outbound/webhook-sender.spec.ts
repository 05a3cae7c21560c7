import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { createServer, IncomingHttpHeaders, Server } from 'node:http'
import { AddressInfo } from 'node:net'
import { WebhookAuthenticationCreate, WebhookRequest } from '@orka/domain'
import { NodeWebhookSender, signWebhook, WebhookSenderConfig } from '../../src'

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
type Handler = (g: Got, res: import('node:http').ServerResponse) => void

const servers: Server[] = []
const serve = async (handler: Handler) => {
  const got: Got[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const g = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      got.push(g)
      handler(g, res)
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  servers.push(server)
  const port = (server.address() as AddressInfo).port
  return { got, port, url: `http://127.0.0.1:${port}` }
}
const json = (status: number, body: unknown): Handler => (_g, res) => {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
const status = (s: number, body = ''): Handler => (_g, res) => {
  res.writeHead(s)
  res.end(body)
}

const CONFIG: WebhookSenderConfig = { headerPrefix: 'X-Orka', timeoutMs: 2000, allowPrivateAddresses: true, requireHttps: false }
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

describe('NodeWebhookSender', function () {
  this.timeout(10000)
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections()
      s.close()
    }
  })

  describe('signatures', () => {
    it("matches the original API SDK's known answer", () => {
      const secret = 'Ik4L-8FH0ihWczctcIPXZRR_8F0fPNgmhEfVBbZ3zNwqQVa1Or4tBz4Pgw2eNaVDod7H56Y268h_wohEUaWbUg'
      expect(signWebhook(secret, 1744018920, 'payload')).to.equal('78aca0c78005107a654a957b8566fa6e0e5e06aea92d7da72a6da9e5a690d013')
    })

    it('agrees with an independent RFC 2104 HMAC, for long keys and non-ASCII bodies too', () => {
      for (const secret of ['k', 'x'.repeat(100), 'sécret-ключ']) expect(signWebhook(secret, 1700000000, BODY)).to.equal(rfc2104(secret, `1700000000.${BODY}`))
    })
  })

  describe('the request', () => {
    it('POSTs the body as sent, with the event id, timestamp and one signature per secret, newest first', async () => {
      const s = await serve(status(204))
      const r = await new NodeWebhookSender(CONFIG).send(request(`${s.url}/hooks?x=1`, { secrets: ['new-secret', 'old-secret'] }))()
      expect(r).to.deep.include({ status: 204, error: null, excerpt: null })
      expect(r.durationMs).to.be.a('number').and.at.least(0)
      const [g] = s.got
      expect(g!.method).to.equal('POST')
      expect(g!.path).to.equal('/hooks?x=1')
      expect(g!.body).to.equal(BODY)
      expect(g!.headers).to.deep.include({
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(BODY)),
        'user-agent': 'Orka-Webhooks/1.0',
        'x-orka-webhook-id': '7a3f0c52-9d4e-4b1a-8c6d-000000000001',
        'x-orka-webhook-timestamp': '1744018920',
        'x-orka-webhook-signatures': `${rfc2104('new-secret', `1744018920.${BODY}`)},${rfc2104('old-secret', `1744018920.${BODY}`)}`,
      })
      expect(g!.headers['authorization']).to.equal(undefined)
    })

    it('names the headers with the configured prefix', async () => {
      const s = await serve(status(200))
      await new NodeWebhookSender({ ...CONFIG, headerPrefix: 'X-Acme' }).send(request(s.url))()
      expect(Object.keys(s.got[0]!.headers).filter((h) => h.includes('webhook'))).to.deep.equal(['x-acme-webhook-id', 'x-acme-webhook-timestamp', 'x-acme-webhook-signatures'])
    })

    it('sends basic credentials', async () => {
      const s = await serve(status(200))
      await new NodeWebhookSender(CONFIG).send(request(s.url, { authentication: { kind: 'basic', username: 'orka', password: 'pä:ss' } }))()
      expect(s.got[0]!.headers['authorization']).to.equal(`Basic ${Buffer.from('orka:pä:ss', 'utf8').toString('base64')}`)
    })

    it('connects to the address it vetted, keeping the host name in Host', async () => {
      const s = await serve(status(204))
      const sender = new NodeWebhookSender(CONFIG, async () => [{ address: '127.0.0.1', family: 4 }])
      expect((await sender.send(request(`http://hooks.merchant.test:${s.port}/x`))()).status).to.equal(204)
      expect(s.got[0]!.headers['host']).to.equal(`hooks.merchant.test:${s.port}`)
    })
  })

  describe('answers', () => {
    it('counts any 2xx as received', async () => {
      for (const code of [200, 201, 202, 204, 299]) {
        const s = await serve(status(code))
        expect((await new NodeWebhookSender(CONFIG).send(request(s.url))()).error, String(code)).to.equal(null)
      }
    })

    it('never follows a redirect', async () => {
      const target = await serve(status(200))
      const s = await serve((_g, res) => {
        res.writeHead(302, { location: `${target.url}/elsewhere` })
        res.end()
      })
      expect(await new NodeWebhookSender(CONFIG).send(request(s.url))()).to.deep.include({ status: 302, error: 'redirect' })
      expect(target.got).to.have.length(0)
    })

    it('fails another status, keeping the start of the answer', async () => {
      const s = await serve(status(500, 'upstream exploded'))
      expect(await new NodeWebhookSender(CONFIG).send(request(s.url))()).to.deep.include({ status: 500, error: 'unexpected_status', excerpt: 'upstream exploded' })
    })

    it('reads at most 64 KiB of a large answer and keeps 1 KiB of it', async () => {
      const s = await serve(status(200, 'a'.repeat(1024 * 1024)))
      const r = await new NodeWebhookSender(CONFIG).send(request(s.url))()
      expect(r).to.deep.include({ status: 200, error: null, excerpt: 'a'.repeat(1024) })
    })
  })

  describe('failures', () => {
    it('times out an endpoint that does not answer, within the attempt time', async () => {
      const s = await serve(() => undefined)
      const started = Date.now()
      const r = await new NodeWebhookSender({ ...CONFIG, timeoutMs: 300 }).send(request(s.url))()
      expect(r).to.deep.include({ status: null, error: 'timeout', excerpt: null })
      expect(Date.now() - started).to.be.below(2000)
    })

    it('fails a refused connection', async () => {
      const s = await serve(status(200))
      const url = s.url
      for (const srv of servers.splice(0)) await new Promise((r) => srv.close(r))
      expect(await new NodeWebhookSender(CONFIG).send(request(url))()).to.deep.include({ status: null, error: 'connection_failed' })
    })

    it('fails a host that does not resolve', async () => {
      const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })
      const sender = new NodeWebhookSender(CONFIG, () => Promise.reject(notFound))
      expect(await sender.send(request('http://nowhere.test/x'))()).to.deep.include({ status: null, error: 'unresolvable_host' })
    })

    it('refuses private addresses without connecting: literal, resolved (any of them), and localhost', async () => {
      const s = await serve(status(200))
      const strict = { ...CONFIG, allowPrivateAddresses: false }
      const mixed = new NodeWebhookSender(strict, async () => [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ])
      for (const [sender, url] of [
        [new NodeWebhookSender(strict), s.url],
        [new NodeWebhookSender(strict), `http://[::1]:${s.port}/`],
        [new NodeWebhookSender(strict, async () => [{ address: '127.0.0.1', family: 4 }]), `http://localhost:${s.port}/`],
        [mixed, 'http://rebinding.test/'],
        [new NodeWebhookSender(strict, async () => [{ address: '169.254.169.254', family: 4 }]), 'http://metadata.test/'],
      ] as const)
        expect(await sender.send(request(url))(), url).to.deep.include({ status: null, error: 'blocked_address' })
      expect(s.got).to.have.length(0)
    })

    it('requires https when told to', async () => {
      const s = await serve(status(200))
      expect(await new NodeWebhookSender({ ...CONFIG, requireHttps: true }).send(request(s.url))()).to.deep.include({ status: null, error: 'https_required' })
      expect(s.got).to.have.length(0)
    })
  })

  describe('OAuth', () => {
    const credentials = (tokenUrl: string): WebhookAuthenticationCreate => ({
      kind: 'oauth_client_credentials',
      client_id: 'orka id',
      client_secret: 's3cr:et',
      token_url: tokenUrl,
      scope: 'hooks',
    })

    it('fetches a client-credentials token with HTTP Basic client auth and sends it as Bearer, reusing it until it expires', async () => {
      const tokens = await serve(json(200, { access_token: 'tok-1', token_type: 'bearer', expires_in: 3600 }))
      const s = await serve(status(204))
      const sender = new NodeWebhookSender(CONFIG)
      for (let i = 0; i < 2; i++) expect((await sender.send(request(s.url, { authentication: credentials(`${tokens.url}/token`) }))()).error).to.equal(null)
      expect(s.got.map((g) => g.headers['authorization'])).to.deep.equal(['Bearer tok-1', 'Bearer tok-1'])
      expect(tokens.got).to.have.length(1)
      const t = tokens.got[0]!
      expect(t.path).to.equal('/token')
      expect(t.headers['content-type']).to.equal('application/x-www-form-urlencoded')
      expect(t.headers['authorization']).to.equal(`Basic ${Buffer.from('orka+id:s3cr%3Aet').toString('base64')}`)
      expect(Object.fromEntries(new URLSearchParams(t.body))).to.deep.equal({ grant_type: 'client_credentials', scope: 'hooks' })
    })

    it('sends the password grant', async () => {
      const tokens = await serve(json(200, { access_token: 'tok-p' }))
      const s = await serve(status(204))
      const auth: WebhookAuthenticationCreate = { kind: 'oauth_password', client_id: 'c', client_secret: 's', token_url: tokens.url, username: 'u', password: 'p w', scope: null }
      await new NodeWebhookSender(CONFIG).send(request(s.url, { authentication: auth }))()
      expect(Object.fromEntries(new URLSearchParams(tokens.got[0]!.body))).to.deep.equal({ grant_type: 'password', username: 'u', password: 'p w' })
      expect(s.got[0]!.headers['authorization']).to.equal('Bearer tok-p')
    })

    it('does not keep a token without expires_in, nor one the endpoint refused with 401', async () => {
      let n = 0
      const tokens = await serve((_g, res) => json(200, { access_token: `tok-${++n}`, ...(n >= 2 ? { expires_in: 3600 } : {}) })(_g, res))
      const s = await serve((g, res) => status(g.headers['authorization'] === 'Bearer tok-2' ? 401 : 204)(g, res))
      const sender = new NodeWebhookSender(CONFIG)
      const send = () => sender.send(request(s.url, { authentication: credentials(tokens.url) }))()
      await send() // tok-1, not kept
      expect((await send()).status).to.equal(401) // tok-2, kept, then refused
      await send() // tok-3
      expect(s.got.map((g) => g.headers['authorization'])).to.deep.equal(['Bearer tok-1', 'Bearer tok-2', 'Bearer tok-3'])
    })

    it('fails the attempt without sending the event when the token endpoint fails', async () => {
      const s = await serve(status(204))
      for (const handler of [status(500), status(200, 'not json'), json(200, { token: 'x' }), json(200, { access_token: 'x', token_type: 'mac' }), json(401, { error: 'invalid_client' })]) {
        const tokens = await serve(handler)
        expect(await new NodeWebhookSender(CONFIG).send(request(s.url, { authentication: credentials(tokens.url) }))()).to.deep.include({
          status: null,
          error: 'authentication_failed',
          excerpt: null,
        })
      }
      expect(s.got).to.have.length(0)
    })

    it('times out a token endpoint that does not answer, within the attempt time', async () => {
      const tokens = await serve(() => undefined)
      const s = await serve(status(204))
      const r = await new NodeWebhookSender({ ...CONFIG, timeoutMs: 300 }).send(request(s.url, { authentication: credentials(tokens.url) }))()
      expect(r).to.deep.include({ status: null, error: 'timeout' })
      expect(s.got).to.have.length(0)
    })

    it('applies the address policy to the token endpoint', async () => {
      const tokens = await serve(json(200, { access_token: 'x' }))
      const r = await new NodeWebhookSender({ ...CONFIG, allowPrivateAddresses: false }, async () => [{ address: '93.184.216.34', family: 4 }]).send(
        request('http://public.test/', { authentication: credentials(tokens.url) }),
      )()
      expect(r).to.deep.include({ error: 'authentication_failed' })
      expect(tokens.got).to.have.length(0)
    })
  })
})
