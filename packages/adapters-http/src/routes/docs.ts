import { readFileSync } from 'node:fs'
import Router from '@koa/router'
import type { OrkaState } from '../context'
import { buildOpenApiDocument, OpenApiConfig } from '../openapi/document'
import { Asset, asset, once, sendAsset } from './static-asset'

/**
 * The page's scripts come from this server only: Redoc's standalone bundle out of the package's
 * own files, and the few lines that start it. The policy makes the browser refuse anything else,
 * so the page cannot fetch from the internet even if a dependency tried to.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  // Redoc styles itself with styled-components, which writes <style> elements at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  // Redoc's search index runs in a worker it creates from a blob.
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

const SYSTEM_FONTS = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif'

/** Fills in this server's address in the examples, then renders the reference from /openapi.json. */
const START_SCRIPT = `'use strict';
document.querySelectorAll('[data-origin]').forEach(function (e) { e.textContent = location.origin; });
Redoc.init('/openapi.json', {
  expandResponses: '200,201,204',
  requiredPropsFirst: true,
  pathInMiddlePanel: true,
  theme: {
    colors: { primary: { main: '#3d4db7' } },
    typography: {
      fontFamily: ${JSON.stringify(SYSTEM_FONTS)},
      headings: { fontFamily: ${JSON.stringify(SYSTEM_FONTS)} },
      code: { fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace' }
    }
  }
}, document.getElementById('redoc'));
`

const page = (config: OpenApiConfig): string => {
  const origin = '<span data-origin>http://127.0.0.1:8080</span>'
  const auth = '-H "Authorization: Bearer $TOKEN"'
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Orka API reference</title>
<style>
  body { margin: 0; font-family: ${SYSTEM_FONTS}; color: #1f2433; }
  .bar { display: flex; gap: 1rem; align-items: baseline; padding: 0.8rem 1.5rem; background: #262b45; color: #fff; }
  .bar a { color: #c9d0ff; }
  #try-it { padding: 0.5rem 1.5rem 1rem; border-bottom: 1px solid #e1e4ec; background: #f7f8fc; font-size: 14px; line-height: 1.5; }
  #try-it h2 { font-size: 1.2rem; margin: 0.6rem 0 0.3rem; }
  #try-it ol { margin: 0; padding-left: 1.3rem; }
  #try-it pre { background: #262b45; color: #e8eaf6; padding: 0.6rem 0.8rem; border-radius: 4px; \
overflow-x: auto; margin: 0.3rem 0 0.6rem; }
  #try-it code { background: #e8eaf3; padding: 0 0.25rem; border-radius: 3px; }
  #try-it pre code { background: none; padding: 0; }
</style>
</head>
<body>
<header class="bar"><strong>Orka API</strong><span>reference, version 1.0.0</span><a href="/openapi.json">openapi.json</a></header>
<section id="try-it">
<h2>Try it</h2>
<ol>
<li>Start Orka with <code>npm start</code>. In the sandbox it provisions a development API key pair and writes its private key to \
<code>.data/dev-api-key.pem</code>.</li>
<li>Mint a token: an ES512 JWT signed with that key, carrying the scopes you ask for. Tokens live 30 seconds unless you pass \
<code>--expires</code>; <code>--embed</code> mints a rate-limited browser token.
<pre><code>pnpm orka token --key .data/dev-api-key.pem --scopes '*.read,*.write'
TOKEN=$(pnpm -s orka token --key .data/dev-api-key.pem --scopes '*.read,*.write' --expires 15m)</code></pre></li>
<li>Call the API with it (<code>${escapeHtml(config.merchantAccountHeader)}</code> picks another merchant account than \
<code>${escapeHtml(config.defaultMerchantAccountId)}</code>):
<pre><code>curl -s ${origin}/roles?limit=2 ${auth}
curl -s -X POST ${origin}/gift-cards/activations ${auth} \\
  -H 'Content-Type: application/json' -d '{"number":"4123455541234561234","amount":5000,"currency":"USD"}'
ID=$(curl -s -X POST ${origin}/webhook-subscriptions ${auth} \\
  -H 'Content-Type: application/json' -d '{"url":"https://example.test/hooks"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
curl -s -o /dev/null -w '%{http_code}\\n' -X DELETE ${origin}/webhook-subscriptions/$ID ${auth}</code></pre></li>
</ol>
</section>
<div id="redoc"></div>
<script src="/docs/assets/redoc.standalone.js"></script>
<script src="/docs/assets/docs.js"></script>
</body>
</html>
`
}

/**
 * Redoc's standalone bundle, from the package's own files. Its side menu shows Redocly's logo
 * from their CDN, unconditionally (no option turns it off): the policy above would block it, but
 * the page would still try and log the refusal. An empty data URL instead makes the image fail
 * to load at once, and Redoc then leaves it out (its `onError`); the attribution text stays.
 */
const REDOCLY_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg'
const redocBundle = (): string =>
  readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8').split(REDOCLY_LOGO).join('data:,')

/**
 * `GET /openapi.json` and `GET /docs` (with `/docs/assets/*`): public, no token, never rate
 * limited. They disclose nothing beyond the published contract.
 */
export const docsRouter = (config: OpenApiConfig): Router<OrkaState> => {
  const document = once(() => asset('application/json', JSON.stringify(buildOpenApiDocument(config))))
  const html = once(() => asset('text/html; charset=utf-8', page(config)))
  const assets: Record<string, () => Asset> = {
    'redoc.standalone.js': once(() => asset('application/javascript; charset=utf-8', redocBundle())),
    'docs.js': once(() => asset('application/javascript; charset=utf-8', START_SCRIPT)),
  }
  const router = new Router<OrkaState>({ sensitive: true })
  router.get('/openapi.json', (ctx) => {
    sendAsset(ctx, document(), 'no-cache')
  })
  router.get('/docs', (ctx) => {
    sendAsset(ctx, html(), 'no-cache', { 'Content-Security-Policy': CONTENT_SECURITY_POLICY })
  })
  router.get('/docs/assets/:file', async (ctx, next) => {
    const file = ctx.params.file ?? ''
    // Anything else under /docs/assets is an unknown route like any other.
    const asset = Object.hasOwn(assets, file) ? assets[file] : undefined
    if (asset === undefined) {
      await next()
      return
    }
    sendAsset(ctx, asset(), 'public, max-age=3600')
  })
  return router
}
