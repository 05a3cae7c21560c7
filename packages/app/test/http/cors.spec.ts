import { expect } from 'chai'
import { sendRaw } from '../fuzz/raw-http'
import { errorBody, Harness, Reply, Resource, startHarness } from '../support/harness'

const SHOP = 'https://shop.example'
const LOCAL = 'http://localhost:5173'
const OTHER = 'https://evil.example'
const ID = '0b5f2e5c-5d4e-4b8e-9b1a-3f0c2d1e4a5b'

/** The methods of the browser operations at each path, as the descriptors declare them. */
const BROWSER_ROUTES: readonly (readonly [string, string])[] = [
  ['/gift-cards/activations', 'POST'],
  ['/gift-cards/balances', 'POST'],
  ['/gift-cards', 'GET, POST'],
  [`/gift-cards/${ID}`, 'GET, DELETE'],
  ['/buyers/gift-cards', 'GET'],
  ['/payment-methods', 'GET, POST'],
  [`/payment-methods/${ID}`, 'GET, PUT, DELETE'],
  ['/buyers/payment-methods', 'GET'],
  ['/transactions', 'POST'],
  ['/checkout/sessions', 'POST'],
  [`/checkout/sessions/${ID}`, 'PUT, DELETE'],
  [`/checkout/sessions/${ID}/fields`, 'POST, PUT'],
]
/** Routes no browser may call: administration, reads of a server, and what an embed token is refused. */
const SERVER_ROUTES: readonly (readonly [string, string])[] = [
  ['/roles', 'GET'],
  [`/webhook-subscriptions/${ID}`, 'DELETE'],
  ['/transactions', 'GET'],
  [`/transactions/${ID}/capture`, 'POST'],
  [`/transactions/${ID}/refunds`, 'POST'],
  ['/buyers', 'POST'],
]
/** Served outside the operations (fetched directly: the conformance suite checks only operations). */
const OUTSIDE = ['/openapi.json', '/healthz', '/docs']

const EXPOSED = 'Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed, X-Request-Id'
const ALLOW_HEADERS = 'authorization, content-type, idempotency-key, x-orka-merchant-account-id'

/** Every CORS header of a response (and `Vary`), by lower-case name. */
const corsHeaders = (headers: Headers | Readonly<Record<string, string>>): Record<string, string> => {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers)
  return Object.fromEntries(entries.filter(([name]) => name.startsWith('access-control-') || name === 'vary'))
}
const accessControl = (headers: Headers | Readonly<Record<string, string>>) =>
  Object.fromEntries(Object.entries(corsHeaders(headers)).filter(([name]) => name !== 'vary'))

const preflight = (h: Harness, path: string, origin: string, method = 'POST'): Promise<Reply> =>
  h.request('OPTIONS', path, {
    auth: null,
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
  })

const actualHeaders = (origin: string) => ({
  'access-control-allow-origin': origin,
  'access-control-expose-headers': EXPOSED,
  vary: 'Origin',
})

describe('CORS', () => {
  describe('with CORS_ALLOWED_ORIGINS unset (the default)', () => {
    let h: Harness
    before(async () => {
      h = await startHarness()
    })
    after(() => h.close())

    it('sends no CORS header, preflight or not, on any route: OPTIONS answers 204 with Allow as ever', async () => {
      for (const [path, methods] of [...BROWSER_ROUTES, ...SERVER_ROUTES]) {
        const pre = await preflight(h, path, SHOP, methods.split(', ')[0])
        expect(corsHeaders(pre.headers), `OPTIONS ${path}`).to.deep.equal({})
        expect(pre.status, `OPTIONS ${path}`).to.equal(204)
        expect(pre.headers.get('allow'), `OPTIONS ${path}`).to.include(methods.split(', ')[0])
        const actual = await h.request(methods.split(', ')[0]!, path, { headers: { origin: SHOP } })
        expect(corsHeaders(actual.headers), `${methods} ${path}`).to.deep.equal({})
      }
      for (const path of OUTSIDE) expect(corsHeaders((await fetch(h.url + path, { headers: { origin: SHOP } })).headers)).to.deep.equal({})
    })
  })

  describe(`with CORS_ALLOWED_ORIGINS=${SHOP},${LOCAL}`, () => {
    let h: Harness
    before(async () => {
      // As an operator might write it: the default port and capitals are normalised away.
      h = await startHarness({ env: { CORS_ALLOWED_ORIGINS: ` HTTPS://Shop.example:443 , ${LOCAL}` } })
    })
    after(() => h.close())
    const embed = () => h.token('admin', { scopes: ['embed'] })

    it('answers a preflight from a listed origin on every browser route: 204 with exactly the CORS headers', async () => {
      for (const origin of [SHOP, LOCAL])
        for (const [path, methods] of BROWSER_ROUTES) {
          const r = await preflight(h, path, origin, methods.split(', ')[0])
          expect([r.status, r.text], `OPTIONS ${path}`).to.deep.equal([204, ''])
          expect(corsHeaders(r.headers), `OPTIONS ${path}`).to.deep.equal({
            'access-control-allow-origin': origin,
            'access-control-allow-methods': methods,
            'access-control-allow-headers': ALLOW_HEADERS,
            'access-control-max-age': '600',
            vary: 'Origin',
          })
          expect(r.headers.get('access-control-allow-credentials')).to.equal(null)
        }
    })

    it('tolerates a trailing slash as routing does', async () => {
      const r = await preflight(h, '/gift-cards/balances/', SHOP)
      expect(accessControl(r.headers)['access-control-allow-methods']).to.equal('POST')
    })

    it('sends no CORS header on a route no browser may call, preflight or not', async () => {
      for (const [path, methods] of SERVER_ROUTES) {
        const method = methods.split(', ')[0]!
        const pre = await preflight(h, path, SHOP, method)
        expect(corsHeaders(pre.headers), `OPTIONS ${path}`).to.deep.equal({})
        const actual = await h.request(method, path, { headers: { origin: SHOP } })
        expect(corsHeaders(actual.headers), `${method} ${path}`).to.deep.equal({})
      }
      for (const path of OUTSIDE) {
        const r = await fetch(h.url + path, { headers: { origin: SHOP } })
        expect([r.status, corsHeaders(r.headers)], path).to.deep.equal([200, {}])
      }
      // GET of a session is a server's read, though PUT and DELETE at that path are a browser's.
      const read = await h.request('GET', `/checkout/sessions/${ID}`, { headers: { origin: SHOP } })
      expect([read.status, corsHeaders(read.headers)]).to.deep.equal([404, {}])
      const asked = await preflight(h, `/checkout/sessions/${ID}`, SHOP, 'GET')
      expect([asked.status, asked.headers.get('allow'), corsHeaders(asked.headers)]).to.deep.equal([
        204,
        'GET, HEAD, PUT, DELETE, OPTIONS',
        {},
      ])
    })

    it('sends no Access-Control header to an unlisted origin (Vary: Origin stays on browser routes, for caches)', async () => {
      for (const origin of [OTHER, 'https://shop.example:8443', 'http://shop.example', 'https://sub.shop.example', 'null']) {
        for (const [path, methods] of BROWSER_ROUTES) {
          const pre = await preflight(h, path, origin, methods.split(', ')[0])
          expect(pre.status, `OPTIONS ${path}`).to.equal(204)
          expect(accessControl(pre.headers), `OPTIONS ${path} from ${origin}`).to.deep.equal({})
          expect(pre.headers.get('allow'), `OPTIONS ${path}`).to.include('OPTIONS')
        }
        const actual = await h.request('POST', '/gift-cards/balances', { auth: embed(), body: { items: [] }, headers: { origin } })
        expect(accessControl(actual.headers)).to.deep.equal({})
        expect(actual.headers.get('vary')).to.equal('Origin')
      }
    })

    it('answers OPTIONS without Access-Control-Request-Method with Allow only, as a non-CORS request', async () => {
      const r = await h.request('OPTIONS', '/gift-cards/balances', { auth: null, headers: { origin: SHOP } })
      expect([r.status, r.headers.get('allow'), accessControl(r.headers)]).to.deep.equal([204, 'POST, OPTIONS', {}])
    })

    it('lets a page read the answer of an embed token: POST /gift-cards/balances is 200 with Allow-Origin, Vary and Expose-Headers', async () => {
      const r = await h.request<{ items: Resource[] }>('POST', '/gift-cards/balances', {
        auth: embed(),
        body: { items: [{ number: '7100000000000001234', pin: '8642' }] },
        headers: { origin: SHOP },
      })
      expect(r.status).to.equal(200)
      expect(r.body.items).to.have.length(1)
      expect(corsHeaders(r.headers)).to.deep.equal(actualHeaders(SHOP))
      expect(r.headers.get('ratelimit-policy')).to.equal('"embed";q=50;w=60')
    })

    it('keeps the CORS headers on errors: 401, 422, 404 and 429 carry them', async () => {
      const noToken = await h.request('POST', '/gift-cards/balances', { auth: null, body: { items: [] }, headers: { origin: SHOP } })
      expect([noToken.status, noToken.body]).to.deep.equal([401, errorBody(401)])
      expect(corsHeaders(noToken.headers)).to.deep.equal(actualHeaders(SHOP))

      const token = embed()
      const bad = await h.request('POST', '/gift-cards/balances', { auth: token, body: { items: 'x' }, headers: { origin: LOCAL } })
      expect(bad.status).to.equal(422)
      expect(corsHeaders(bad.headers)).to.deep.equal(actualHeaders(LOCAL))

      const gone = await h.request('DELETE', `/gift-cards/${ID}`, { headers: { origin: SHOP } })
      expect(gone.status).to.equal(404)
      expect(corsHeaders(gone.headers)).to.deep.equal(actualHeaders(SHOP))

      let last: Reply | undefined
      for (let i = 0; i < 51; i++)
        last = await h.request('POST', '/gift-cards/balances', { auth: token, body: { items: [] }, headers: { origin: SHOP } })
      expect(last!.status).to.equal(429)
      expect(last!.headers.get('retry-after')).to.match(/^\d+$/)
      expect(corsHeaders(last!.headers)).to.deep.equal(actualHeaders(SHOP))
    })

    it('takes Secure Fields without a token from a listed origin: 204 with the CORS headers', async () => {
      const session = await h.request<Resource>('POST', '/checkout/sessions', { body: {} })
      const r = await h.request('PUT', `/checkout/sessions/${session.body.id}/fields`, {
        auth: null,
        body: { payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/35', security_code: '123' } },
        headers: { origin: SHOP },
      })
      expect([r.status, r.text]).to.deep.equal([204, ''])
      expect(corsHeaders(r.headers)).to.deep.equal(actualHeaders(SHOP))
    })

    it('gives no CORS to an embed token on what it may not do (capture: 403 without CORS headers)', async () => {
      const r = await h.request('POST', `/transactions/${ID}/capture`, { auth: embed(), body: {}, headers: { origin: SHOP } })
      expect(r.status).to.equal(403)
      expect(corsHeaders(r.headers)).to.deep.equal({})
    })

    it('never answers 500 to a hostile Origin, and never echoes one not listed', async () => {
      const target = '/gift-cards/balances'
      const hostile: (readonly (readonly [string, string])[])[] = [
        [['Origin', `https://${'a'.repeat(8000)}.example`]],
        [['Origin', `${SHOP}\u0000`]],
        [['Origin', `${SHOP}, ${LOCAL}`]],
        [['Origin', `${SHOP} ${LOCAL}`]],
        [
          ['Origin', SHOP],
          ['Origin', SHOP],
        ],
        [
          ['Origin', OTHER],
          ['Origin', SHOP],
        ],
        [['Origin', `${SHOP}/`]],
        [['Origin', 'HTTPS://SHOP.EXAMPLE']],
        [['Origin', '*']],
        [['Origin', '\u00ff\u00fe']],
      ]
      for (const headers of hostile) {
        for (const method of ['OPTIONS', 'POST']) {
          const r = await sendRaw(h.url, {
            method,
            target,
            headers: [...headers, ['Access-Control-Request-Method', 'POST'], ['Content-Type', 'application/json']],
            ...(method === 'POST' ? { body: Buffer.from('{"items":[]}') } : {}),
          })
          const label = `${method} with ${JSON.stringify(headers).slice(0, 80)}`
          expect(r.status, label).to.be.below(500)
          expect(r.headers['access-control-allow-origin'], label).to.equal(undefined)
        }
      }
      // The log holds no Origin header: it names no header at all.
      expect(h.logs.join('\n')).not.to.include('evil.example').and.not.to.include('aaaaaaaaaa')
    })

    it('logs a preflight as any request: method, path, status', async () => {
      const before = h.logs.length
      await preflight(h, '/gift-cards/balances', SHOP)
      await new Promise((resolve) => setTimeout(resolve, 400))
      const lines = h.logs
        .slice(before)
        .join('')
        .split('\n')
        .filter((l) => l.includes('"msg":"request"'))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
      expect(lines.map((l) => [l.method, l.path, l.status])).to.deep.equal([['OPTIONS', '/gift-cards/balances', 204]])
    })
  })
})
