import { readFileSync } from 'node:fs'
import { request } from 'node:http'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { expect } from 'chai'
import * as ts from 'typescript'
import { createHttpApp, HttpDeps } from '../src'
import { CaptureLog, clockAtT0, FakeKeys, fakeMac, keyPair, listen, mint, newP521Key, omit, T0, TestKey, useCasesWith } from './support'

/** The browser files as written, found from dist/test (not through the router's own constant). */
const BROWSER_DIR = join(__dirname, '..', '..', 'browser')
const onDisk = (name: string): Buffer => readFileSync(join(BROWSER_DIR, name))

const BASE = '/secure-fields/v1'
const JS = 'text/javascript; charset=utf-8'
const SHOP = 'https://shop.example'
const LOCAL = 'http://127.0.0.1:9000'
const POLICY_WITHOUT_ORIGINS =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
const NOT_FOUND = { type: 'error', code: 'not_found', status: 404, message: 'The resource could not be found', details: [] }

/** Each file, with the headers its 200 carries besides Content-Length, ETag and the per-request ones. */
const FILES: readonly { readonly name: string; readonly headers: Readonly<Record<string, string>> }[] = [
  {
    name: 'secure-fields.js',
    headers: {
      'content-type': JS,
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
    },
  },
  {
    name: 'field.html',
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'cross-origin',
      'content-security-policy': POLICY_WITHOUT_ORIGINS,
      'referrer-policy': 'no-referrer',
    },
  },
  ...['card-rules.js', 'lead.js', 'field.js'].map((name) => ({
    name,
    headers: {
      'content-type': JS,
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'same-origin',
    },
  })),
  {
    name: 'field.css',
    headers: {
      'content-type': 'text/css; charset=utf-8',
      'cache-control': 'public, max-age=300',
      'x-content-type-options': 'nosniff',
      'cross-origin-resource-policy': 'same-origin',
    },
  },
]

/** Said by the server or the connection on every response, whatever the route. */
const PER_REQUEST = new Set(['date', 'connection', 'keep-alive', 'x-request-id'])
const headersOf = (res: Response): Record<string, string> =>
  Object.fromEntries([...res.headers.entries()].filter(([name]) => !PER_REQUEST.has(name)))

/**
 * A request by node:http, as a browser's cache revalidates: fetch would add `Cache-Control: no-cache`
 * to a request with `If-None-Match` (the Fetch standard's no-store mode), which asks for the 200.
 */
const conditional = (url: string, headers: Record<string, string>, method = 'GET') =>
  new Promise<{ status: number; headers: Record<string, string>; body: Buffer }>((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const kept = Object.entries(res.headers).filter(([name]) => !PER_REQUEST.has(name))
        resolve({ status: res.statusCode!, headers: Object.fromEntries(kept.map(([k, v]) => [k, String(v)])), body: Buffer.concat(chunks) })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })

/** A strong entity tag (no `W/`), quoted. */
const STRONG_ETAG = /^"[!#-~]+"$/

const depsWith = (key: TestKey, corsAllowedOrigins?: readonly string[]): HttpDeps => ({
  keys: new FakeKeys(keyPair(key)),
  clock: clockAtT0(),
  mac: fakeMac,
  log: new CaptureLog(),
  config: {
    merchantAccountHeader: 'x-orka-merchant-account-id',
    defaultMerchantAccountId: 'default',
    maxBodyBytes: 1024,
    tokenCacheSize: 10,
    ...(corsAllowedOrigins === undefined ? {} : { corsAllowedOrigins }),
  },
  // Serving a static file calls no use case.
  useCases: useCasesWith((name) => () => {
    throw new Error(`${name} is not used by Secure Fields`)
  }),
})

/** The string literals and template pieces of a script, as its parser reads them (comments are not literals). */
const scriptFacts = (name: string) => {
  const source = ts.createSourceFile(name, onDisk(name).toString('utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.JS)
  const strings: string[] = []
  const calls: string[] = []
  const identifiers = new Set<string>()
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node))
      strings.push(node.text)
    if (ts.isIdentifier(node)) identifiers.add(node.text)
    if (ts.isCallExpression(node)) {
      if (node.expression.kind === ts.SyntaxKind.ImportKeyword) calls.push('import()')
      const callee = ts.isPropertyAccessExpression(node.expression) ? node.expression.name.text : node.expression.getText(source)
      const first = node.arguments[0]
      calls.push(`${callee}(${first !== undefined && ts.isStringLiteralLike(first) ? first.text.toLowerCase() : ''})`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  // A syntax error would leave parts of the file unread: the checks below would see too little.
  const diagnostics = (source as unknown as { parseDiagnostics: readonly ts.Diagnostic[] }).parseDiagnostics
  return { strings, calls, identifiers, diagnostics }
}

describe('Secure Fields files (GET /secure-fields/v1/...)', () => {
  let key: TestKey
  let server: { url: string; close(): Promise<void> }
  before(async () => {
    key = newP521Key()
    server = await listen(createHttpApp(depsWith(key)))
  })
  after(() => server.close())

  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => fetch(`${server.url}${path}`, { method, headers })

  for (const f of FILES)
    describe(f.name, () => {
      it('is 200 with the file as it is on disk and exactly its headers', async () => {
        const res = await get(`${BASE}/${f.name}`)
        const body = Buffer.from(await res.arrayBuffer())
        expect(res.status).to.equal(200)
        expect(body.equals(onDisk(f.name)), 'body is the file on disk').to.equal(true)
        const etag = res.headers.get('etag')
        expect(etag).to.match(STRONG_ETAG)
        expect(headersOf(res)).to.deep.equal({ ...f.headers, 'content-length': String(onDisk(f.name).length), etag })
      })

      it("answers If-None-Match with its ETag with 304: no body, the 200's headers but the content ones (a weak match too)", async () => {
        const first = await get(`${BASE}/${f.name}`)
        await first.arrayBuffer()
        const etag = first.headers.get('etag')!
        for (const tag of [etag, `W/${etag}`, `"other", ${etag}`]) {
          const res = await conditional(`${server.url}${BASE}/${f.name}`, { 'if-none-match': tag })
          expect([res.status, res.body.length], tag).to.deep.equal([304, 0])
          expect(res.headers, tag).to.deep.equal({ ...omit(f.headers, 'content-type'), etag })
        }
        for (const method of ['HEAD', 'GET']) {
          const res = await conditional(`${server.url}${BASE}/${f.name}`, { 'if-none-match': etag }, method)
          expect([res.status, res.body.length], method).to.deep.equal([304, 0])
        }
      })

      it('answers another tag, or an end-to-end reload (Cache-Control: no-cache), with the 200', async () => {
        const first = await get(`${BASE}/${f.name}`)
        await first.arrayBuffer()
        const etag = first.headers.get('etag')!
        const asks: Record<string, string>[] = [
          { 'if-none-match': '"not-this-one"' },
          { 'if-none-match': etag, 'cache-control': 'no-cache' },
        ]
        for (const headers of asks) {
          const res = await conditional(`${server.url}${BASE}/${f.name}`, headers)
          expect(res.status, JSON.stringify(headers)).to.equal(200)
          expect(res.body.equals(onDisk(f.name)), JSON.stringify(headers)).to.equal(true)
          expect(res.headers).to.deep.equal({ ...f.headers, 'content-length': String(onDisk(f.name).length), etag })
        }
      })

      it('answers HEAD as the GET without a body', async () => {
        const res = await get(`${BASE}/${f.name}`, {}, 'HEAD')
        expect([res.status, await res.text()]).to.deep.equal([200, ''])
        const etag = res.headers.get('etag')
        expect(etag).to.match(STRONG_ETAG)
        expect(headersOf(res)).to.deep.equal({ ...f.headers, 'content-length': String(onDisk(f.name).length), etag })
      })

      it('needs no token, and a bad one does not matter', async () => {
        const unknownKey = newP521Key()
        for (const authorization of [
          'Bearer not-a-token',
          `Bearer ${mint(key, { scopes: ['*.read'], exp: T0 - 60 })}`,
          `Bearer ${mint(unknownKey, { scopes: ['*.read'], exp: T0 + 60 })}`,
          'Basic dXNlcjpwYXNz',
        ]) {
          const res = await get(`${BASE}/${f.name}`, { authorization })
          expect(res.status, authorization.slice(0, 20)).to.equal(200)
          expect(Buffer.from(await res.arrayBuffer()).equals(onDisk(f.name)), authorization.slice(0, 20)).to.equal(true)
        }
      })
    })

  it('gives each file its own ETag, the same on every request', async () => {
    const tags: string[] = []
    for (const f of FILES) {
      const a = await get(`${BASE}/${f.name}`)
      const b = await get(`${BASE}/${f.name}`)
      await Promise.all([a.arrayBuffer(), b.arrayBuffer()])
      expect(a.headers.get('etag'), f.name).to.equal(b.headers.get('etag'))
      tags.push(a.headers.get('etag')!)
    }
    expect(new Set(tags).size).to.equal(FILES.length)
  })

  it('answers any other file under /secure-fields/v1/ with the API’s 404 body', async () => {
    for (const path of [
      `${BASE}/nope.js`,
      `${BASE}/demo-checkout.js`,
      `${BASE}/Field.html`,
      `${BASE}/field.html.bak`,
      `${BASE}/`,
      `${BASE}/..%2Fpackage.json`,
      `${BASE}/%2e%2e%2fsrc%2fapp.ts`,
      `${BASE}/constructor`,
      `${BASE}/__proto__`,
      `${BASE}/hasOwnProperty`,
      '/secure-fields/v2/field.html',
    ]) {
      const res = await get(path)
      expect(res.status, path).to.equal(404)
      expect(res.headers.get('content-type'), path).to.equal('application/json; charset=utf-8')
      expect(JSON.parse(await res.text()), path).to.deep.equal(NOT_FOUND)
    }
  })

  it('answers another method on a file as at any unknown path (404), not with the file', async () => {
    const res = await get(`${BASE}/field.html`, {}, 'POST')
    expect(res.status).to.equal(404)
    expect(JSON.parse(await res.text())).to.deep.equal(NOT_FOUND)
  })
})

describe('Secure Fields field.html policy', () => {
  it('is exactly the policy without origins configured, with no source that runs inline code or reaches elsewhere', async () => {
    const server = await listen(createHttpApp(depsWith(newP521Key())))
    try {
      const res = await fetch(`${server.url}${BASE}/field.html`)
      await res.arrayBuffer()
      const policy = res.headers.get('content-security-policy')!
      expect(policy).to.equal(POLICY_WITHOUT_ORIGINS)
      const sources = policy.split(';').flatMap((d) => d.trim().split(/\s+/).slice(1))
      expect(sources.filter((s) => /^'unsafe-|^'wasm-unsafe-eval'$|^\*$|^data:$|^blob:$|^https?:$/i.test(s))).to.deep.equal([])
    } finally {
      await server.close()
    }
  })

  it('lets the allowed origins frame the field after Orka itself, in the configured order; nothing else changes', async () => {
    const server = await listen(createHttpApp(depsWith(newP521Key(), [SHOP, LOCAL])))
    try {
      const res = await fetch(`${server.url}${BASE}/field.html`)
      await res.arrayBuffer()
      expect(res.headers.get('content-security-policy')).to.equal(
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; " +
          `frame-ancestors 'self' ${SHOP} ${LOCAL}`,
      )
      expect(res.headers.get('content-security-policy')).not.to.match(/unsafe-/)
      // The origins only frame the field: the scripts carry no policy, and their other headers stay as they are.
      for (const f of FILES.filter((x) => x.name !== 'field.html')) {
        const other = await fetch(`${server.url}${BASE}/${f.name}`)
        const etag = other.headers.get('etag')
        expect(headersOf(other), f.name).to.deep.equal({ ...f.headers, 'content-length': String(onDisk(f.name).length), etag })
        expect(Buffer.from(await other.arrayBuffer()).equals(onDisk(f.name)), f.name).to.equal(true)
      }
    } finally {
      await server.close()
    }
  })
})

describe('Secure Fields files as written (browser/)', () => {
  /** Every tag of an HTML text: its name (lower case), its attribute text, and the text up to the next tag. */
  const tags = (html: string) =>
    [...html.matchAll(/<(\/?)([a-zA-Z][\w-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>([^<]*)/g)].map((m) => ({
      closing: m[1] === '/',
      name: m[2]!.toLowerCase(),
      attributes: m[3]!,
      after: m[4]!,
    }))
  const attributeNames = (attributes: string) =>
    [...attributes.matchAll(/([^\s=/]+)(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+))?/g)].map((m) => m[1]!.toLowerCase())

  it('field.html runs no inline script and has no inline style: scripts only by src, styles only by a stylesheet link', () => {
    const html = onDisk('field.html').toString('utf8')
    const all = tags(html)
    const scripts = all.filter((t) => !t.closing && t.name === 'script')
    expect(scripts.map((t) => attributeNames(t.attributes))).to.deep.equal([['src'], ['src'], ['src']])
    for (const s of scripts) expect(s.after, 'script content').to.equal('')
    expect(all.filter((t) => t.name === 'style')).to.deep.equal([])
    for (const t of all.filter((x) => !x.closing)) {
      const names = attributeNames(t.attributes)
      expect(names, `<${t.name}>`).not.to.include('style')
      expect(
        names.filter((n) => n.startsWith('on')),
        `<${t.name}> event handlers`,
      ).to.deep.equal([])
    }
    expect(html).not.to.match(/javascript:/i)
    // What it loads is Orka's own, by relative URL: the field's scripts and stylesheet.
    const loaded = all
      .filter((t) => !t.closing)
      .flatMap((t) => [...t.attributes.matchAll(/\b(?:src|href)\s*=\s*"([^"]*)"/gi)].map((m) => m[1]))
    expect(loaded.sort()).to.deep.equal(['card-rules.js', 'field.css', 'field.js', 'lead.js'])
  })

  it('secure-fields.js is at most 20 KB gzipped', () => {
    const gzipped = gzipSync(onDisk('secure-fields.js'), { level: 9 }).length
    expect(gzipped).to.be.at.most(20 * 1024)
  })

  for (const name of ['secure-fields.js', 'lead.js', 'field.js'])
    it(`${name} loads no code at run time: no import(), importScripts, script element or absolute http(s) URL`, () => {
      const { strings, calls, identifiers, diagnostics } = scriptFacts(name)
      expect(
        diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')),
        'parses',
      ).to.deep.equal([])
      // The parse saw the file: it found the literals a text search finds.
      expect(strings.length).to.be.above(10)
      expect(calls).not.to.include('import()')
      expect(identifiers.has('importScripts'), 'importScripts').to.equal(false)
      expect(calls.filter((c) => /^createElement(NS)?\(.*script\)$/i.test(c))).to.deep.equal([])
      expect(strings.filter((s) => /https?:\/\//i.test(s))).to.deep.equal([])
      // And the text: no quoted form slips past the parse (say, in code it could not read).
      const text = onDisk(name).toString('utf8')
      expect(text).not.to.match(/\bimport\s*\(/)
      expect(text).not.to.include('importScripts')
      expect(text).not.to.match(/createElement(NS)?\([^)]*['"`]script['"`]\s*\)/i)
    })
})
