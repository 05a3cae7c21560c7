import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { unavailable } from '@orka/domain'
import { createHttpApp, DemoCheckout, DemoCheckoutStart, HttpDeps } from '../src'
import { CaptureLog, clockAtT0, FakeKeys, fakeMac, listen, useCasesWith } from './support'

/** The browser files as written, found from dist/test. */
const BROWSER_DIR = join(__dirname, '..', '..', 'browser')
const onDisk = (name: string): Buffer => readFileSync(join(BROWSER_DIR, name))

const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; frame-src 'self'; img-src data:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
const NOT_FOUND = { type: 'error', code: 'not_found', status: 404, message: 'The resource could not be found', details: [] }
/** `Unavailable` is a 500 that says it is worth retrying (error-response.ts), not a 503. */
const UNAVAILABLE = { type: 'error', code: 'server_error', status: 500, message: 'Request could not be processed', details: [] }
const JSON_TYPE = 'application/json; charset=utf-8'

/** Every character HTML gives a meaning to, in each value the page shows. */
const HOSTILE: DemoCheckout = {
  sessionId: `s"1<b>&amp;'x`,
  token: `eyJ.a"b<script>alert('t')</script>&c'd>`,
  amount: 1299,
  currency: `U"S<D>&'`,
}
const escaped = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

const PER_REQUEST = new Set(['date', 'connection', 'keep-alive', 'x-request-id'])
const headersOf = (res: Response): Record<string, string> =>
  Object.fromEntries([...res.headers.entries()].filter(([name]) => !PER_REQUEST.has(name)))

const depsWith = (demoCheckout: DemoCheckoutStart | undefined, log = new CaptureLog()): HttpDeps => ({
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
  useCases: useCasesWith((name) => () => {
    throw new Error(`${name} is not used by the demo checkout's routes`)
  }),
  ...(demoCheckout === undefined ? {} : { demoCheckout }),
})

/** The `<main id="checkout">` element's data attributes, with the entities the page escapes decoded. */
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

describe('GET /demo/checkout (adapters-http)', () => {
  describe('with a demo checkout', () => {
    let server: { url: string; close(): Promise<void> }
    let starts = 0
    before(async () => {
      const start: DemoCheckoutStart = () => {
        starts++
        return Promise.resolve(E.right(HOSTILE))
      }
      server = await listen(createHttpApp(depsWith(start)))
    })
    after(() => server.close())

    it('is the page: 200, HTML, no-store, exactly its policy, and a new checkout per load', async () => {
      const before = starts
      const res = await fetch(`${server.url}/demo/checkout`)
      const html = await res.text()
      expect(res.status).to.equal(200)
      expect(headersOf(res)).to.deep.equal({
        'content-type': 'text/html; charset=utf-8',
        'content-length': String(Buffer.byteLength(html)),
        'cache-control': 'no-store',
        'content-security-policy': PAGE_POLICY,
        'x-content-type-options': 'nosniff',
      })
      expect(html.startsWith('<!doctype html>\n')).to.equal(true)
      await (await fetch(`${server.url}/demo/checkout`)).text()
      expect(starts - before).to.equal(2)
    })

    it('answers HEAD with the page headers and no body, starting no checkout', async () => {
      const before = starts
      const res = await fetch(`${server.url}/demo/checkout`, { method: 'HEAD' })
      expect([res.status, await res.text(), res.headers.get('content-type'), res.headers.get('cache-control')]).to.deep.equal([
        200,
        '',
        'text/html; charset=utf-8',
        'no-store',
      ])
      expect(starts - before).to.equal(0)
    })

    it('carries the checkout in data attributes, HTML-escaped, and no value raw anywhere', async () => {
      const html = await (await fetch(`${server.url}/demo/checkout`)).text()
      expect(html).to.include(
        `<main id="checkout" data-session-id="${escaped(HOSTILE.sessionId)}" data-token="${escaped(HOSTILE.token)}" ` +
          `data-amount="1299" data-currency="${escaped(HOSTILE.currency)}">`,
      )
      expect(html).to.include('data-token="eyJ.a&quot;b&lt;script&gt;alert(&#39;t&#39;)&lt;/script&gt;&amp;c&#39;d&gt;"')
      expect(dataOf(html)).to.deep.equal({
        'data-session-id': HOSTILE.sessionId,
        'data-token': HOSTILE.token,
        'data-amount': '1299',
        'data-currency': HOSTILE.currency,
      })
      for (const raw of [HOSTILE.sessionId, HOSTILE.token, HOSTILE.currency, '<script>alert', `"S<D`]) expect(html).not.to.include(raw)
      expect(html).to.include(`<button type="submit" id="pay" disabled>Pay 12.99 ${escaped(HOSTILE.currency)}</button>`)
    })

    it('runs only Orka’s own scripts, by src: Secure Fields, then the page’s; no inline script or style', async () => {
      const html = await (await fetch(`${server.url}/demo/checkout`)).text()
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => [m[1], m[2]])
      expect(scripts).to.deep.equal([
        [' src="/secure-fields/v1/secure-fields.js"', ''],
        [' src="/demo/checkout.js"', ''],
      ])
      expect(html).not.to.match(/<style\b|\sstyle=|\son[a-z]+=|javascript:/i)
      expect([...html.matchAll(/<link\b[^>]*>/g)].map((m) => m[0])).to.deep.equal([
        '<link rel="icon" href="data:,">',
        '<link rel="stylesheet" href="/demo/checkout.css">',
      ])
    })

    it('offers three gift cards, each a number and a PIN container for Secure Fields and an amount input, the first shown', async () => {
      const html = await (await fetch(`${server.url}/demo/checkout`)).text()
      const slots = [...html.matchAll(/<div id="gift-card-(\d)" class="gift-card"( hidden)?>([\s\S]*?)<\/div>\n<\/div>\n<\/div>/g)]
      expect(slots.map((m) => [m[1], m[2] === ' hidden'])).to.deep.equal([
        ['0', false],
        ['1', true],
        ['2', true],
      ])
      for (const [, i, , slot] of slots) {
        const which = i === '0' ? 'Gift card' : `Gift card ${Number(i) + 1}`
        expect(slot, `gift card ${i}`).to.include(`<label id="gift-card-${i}-number-label">${which} number</label>`)
        expect(slot).to.include(`<div id="gift-card-${i}-number" class="field" aria-labelledby="gift-card-${i}-number-label"></div>`)
        expect(slot).to.include(`<div id="gift-card-${i}-pin" class="field" aria-labelledby="gift-card-${i}-pin-label"></div>`)
        expect(slot).to.include(
          `<input id="gift-card-${i}-amount" class="amount" inputmode="decimal" autocomplete="off" placeholder="5.00">`,
        )
      }
      expect(html).to.include('<button type="button" id="add-gift-card" class="secondary">Add another gift card</button>')
      expect(html).to.include('<ul id="redemptions"></ul>')
    })

    for (const [path, file, type] of [
      ['/demo/checkout.js', 'demo-checkout.js', 'text/javascript; charset=utf-8'],
      ['/demo/checkout.css', 'demo-checkout.css', 'text/css; charset=utf-8'],
    ] as const)
      it(`serves ${path}: the file on disk, no-cache with a strong ETag, 304 to If-None-Match`, async () => {
        const res = await fetch(`${server.url}${path}`)
        const body = Buffer.from(await res.arrayBuffer())
        expect(res.status).to.equal(200)
        expect(body.equals(onDisk(file))).to.equal(true)
        const etag = res.headers.get('etag')!
        expect(etag).to.match(/^"[!#-~]+"$/)
        expect(headersOf(res)).to.deep.equal({
          'content-type': type,
          'content-length': String(onDisk(file).length),
          'cache-control': 'no-cache',
          'x-content-type-options': 'nosniff',
          etag,
        })
        // By node:http: fetch would add `Cache-Control: no-cache` to a conditional request, which asks for the 200.
        const revalidated = await new Promise<{ status: number; body: string; etag: unknown }>((resolve, reject) => {
          request(`${server.url}${path}`, { headers: { 'if-none-match': etag } }, (r) => {
            let text = ''
            r.on('data', (c: Buffer) => (text += c.toString()))
            r.on('end', () => {
              resolve({ status: r.statusCode!, body: text, etag: r.headers.etag })
            })
          })
            .on('error', reject)
            .end()
        })
        expect(revalidated).to.deep.equal({ status: 304, body: '', etag })
      })

    it('answers other paths under /demo with the 404 body', async () => {
      for (const path of ['/demo', '/demo/checkout.html', '/demo/Checkout', '/demo/demo-checkout.js']) {
        const res = await fetch(`${server.url}${path}`)
        expect([res.status, res.headers.get('content-type'), JSON.parse(await res.text())], path).to.deep.equal([404, JSON_TYPE, NOT_FOUND])
      }
    })
  })

  describe('without a demo checkout', () => {
    let server: { url: string; close(): Promise<void> }
    before(async () => {
      server = await listen(createHttpApp(depsWith(undefined)))
    })
    after(() => server.close())

    it('answers the page, its script and its style with the 404 body', async () => {
      for (const path of ['/demo/checkout', '/demo/checkout.js', '/demo/checkout.css']) {
        const res = await fetch(`${server.url}${path}`)
        expect([res.status, res.headers.get('content-type'), JSON.parse(await res.text())], path).to.deep.equal([404, JSON_TYPE, NOT_FOUND])
      }
    })
  })

  describe('when the checkout cannot start', () => {
    let server: { url: string; close(): Promise<void> }
    const log = new CaptureLog()
    before(async () => {
      const start: DemoCheckoutStart = () => Promise.resolve(E.left(unavailable(new Error('x'))))
      server = await listen(createHttpApp(depsWith(start, log)))
    })
    after(() => server.close())

    it('answers as the API answers Unavailable: 500 with Retry-After and the error body, no page, the cause only in the log', async () => {
      const res = await fetch(`${server.url}/demo/checkout`)
      const text = await res.text()
      expect(res.status).to.equal(500)
      expect(JSON.parse(text)).to.deep.equal(UNAVAILABLE)
      expect(headersOf(res)).to.deep.equal({
        'content-type': JSON_TYPE,
        'content-length': String(Buffer.byteLength(text)),
        'retry-after': '1',
      })
      const logged = log.lines.filter((l) => l.msg === 'dependency unavailable')
      expect(logged.map((l) => [l.level, (l.o.err as { message: string }).message])).to.deep.equal([['error', 'x']])
      expect(logged[0]!.o.requestId).to.equal(res.headers.get('x-request-id'))
    })
  })
})
