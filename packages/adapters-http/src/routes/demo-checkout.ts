import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Router from '@koa/router'
import type { DomainError } from '@orka/domain'
import * as E from 'fp-ts/Either'
import type * as TE from 'fp-ts/TaskEither'
import type { OrkaState } from '../context'
import { sendDomainError } from '../respond'
import type { HttpLog } from '../types'
import { SECURE_FIELDS_DIR, SECURE_FIELDS_PATH } from './secure-fields'
import { asset, once, sendAsset } from './static-asset'

/** What the demo's "merchant server" made for one page: a session, and an embed token pinned to it. */
export interface DemoCheckout {
  readonly sessionId: string
  readonly token: string
  readonly amount: number
  readonly currency: string
}
/** Starts a checkout as a merchant's server would (a session, a pinned embed token). */
export type DemoCheckoutStart = TE.TaskEither<DomainError, DemoCheckout>

/** Orka's own scripts and styles, its own API, its own field iframes: nothing else. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  // The page's blank icon, so that the browser asks for no /favicon.ico.
  'img-src data:',
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const escapeHtml = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c)

const shown = (amount: number, currency: string) => `${(amount / 100).toFixed(2)} ${currency}`

const page = (d: DemoCheckout): string => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/demo/checkout.css">
<title>Orka demo checkout</title>
</head>
<body>
<main id="checkout" data-session-id="${escapeHtml(d.sessionId)}" data-token="${escapeHtml(d.token)}" \
data-amount="${d.amount}" data-currency="${escapeHtml(d.currency)}">
<h1>Demo checkout</h1>
<p>This page plays the merchant: Orka's sandbox made a checkout session and an embed token for it, as a merchant's server \
would. The card fields below are Secure Fields, served by Orka in their own frames.</p>
<form id="pay-form" novalidate>
<label id="card-number-label">Card number</label>
<div id="card-number" class="field" aria-labelledby="card-number-label"></div>
<div class="row">
<div><label id="card-expiry-label">Expiry (MM/YY)</label>
<div id="card-expiry" class="field" aria-labelledby="card-expiry-label"></div></div>
<div><label id="card-cvv-label">Security code</label>
<div id="card-cvv" class="field" aria-labelledby="card-cvv-label"></div></div>
</div>
<button type="submit" id="pay" disabled>Pay ${escapeHtml(shown(d.amount, d.currency))}</button>
<p id="status" role="status" aria-live="polite"></p>
</form>
<section class="help">
<h2>Test cards</h2>
<p>Any expiry date in the future and any 3 digits (4 for American Express).</p>
<ul>
<li><code>4111 1111 1111 1111</code>: approved</li>
<li><code>4000 0000 0000 0002</code>: declined (<code>issuer_decline</code>)</li>
<li><code>4000 0000 0000 9995</code>: declined (<code>insufficient_funds</code>)</li>
</ul>
<p>Reload the page for a new checkout session.</p>
</section>
</main>
<script src="${SECURE_FIELDS_PATH}/secure-fields.js"></script>
<script src="/demo/checkout.js"></script>
</body>
</html>
`

/**
 * `GET /demo/checkout`: the sandbox's merchant page, for trying Secure Fields and a payment in
 * a browser. Each load starts a new checkout; nothing is cached.
 */
export const demoCheckoutRouter = (start: DemoCheckoutStart, log: HttpLog): Router<OrkaState> => {
  const script = once(() => asset('text/javascript; charset=utf-8', readFileSync(join(SECURE_FIELDS_DIR, 'demo-checkout.js'))))
  const style = once(() => asset('text/css; charset=utf-8', readFileSync(join(SECURE_FIELDS_DIR, 'demo-checkout.css'))))
  const router = new Router<OrkaState>({ sensitive: true })
  router.get('/demo/checkout', async (ctx) => {
    // A HEAD (a link checker, a probe) starts no checkout: it learns the page is there, no more.
    const checkout = ctx.method === 'HEAD' ? undefined : await start()
    if (checkout !== undefined && E.isLeft(checkout)) {
      sendDomainError(ctx, log, checkout.left)
      return
    }
    ctx.set({ 'Cache-Control': 'no-store', 'Content-Security-Policy': CONTENT_SECURITY_POLICY, 'X-Content-Type-Options': 'nosniff' })
    ctx.type = 'text/html; charset=utf-8'
    ctx.status = 200
    if (checkout !== undefined) ctx.body = page(checkout.right)
  })
  router.get('/demo/checkout.js', (ctx) => {
    sendAsset(ctx, script(), 'no-cache')
  })
  router.get('/demo/checkout.css', (ctx) => {
    sendAsset(ctx, style(), 'no-cache')
  })
  return router
}
