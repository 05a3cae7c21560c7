import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Router from '@koa/router'
import type { DomainError } from '@orka/domain'
import * as E from 'fp-ts/Either'
import type * as TE from 'fp-ts/TaskEither'
import type { OrkaState } from '../context'
import { sendDomainError } from '../respond'
import type { HttpLog } from '../http-log'
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

/** How many gift cards the page can take: the first shown, the others one "Add another" at a time. */
const GIFT_CARD_SLOTS = 3

const giftCardSlot = (i: number): string => {
  const id = `gift-card-${i}`
  const which = i === 0 ? 'Gift card' : `Gift card ${i + 1}`
  return `<div id="${id}" class="gift-card"${i === 0 ? '' : ' hidden'}>
<div class="row">
<div class="wide"><label id="${id}-number-label">${which} number</label>
<div id="${id}-number" class="field" aria-labelledby="${id}-number-label"></div></div>
<div><label id="${id}-pin-label">PIN</label>
<div id="${id}-pin" class="field" aria-labelledby="${id}-pin-label"></div></div>
<div><label for="${id}-amount">Amount</label>
<input id="${id}-amount" class="amount" inputmode="decimal" autocomplete="off" placeholder="5.00"></div>
</div>
</div>`
}

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
would. The card and gift card fields below are Secure Fields, served by Orka in their own frames.</p>
<form id="pay-form" novalidate>
<h2>Card</h2>
<label id="card-number-label">Card number</label>
<div id="card-number" class="field" aria-labelledby="card-number-label"></div>
<div class="row">
<div><label id="card-expiry-label">Expiry (MM/YY)</label>
<div id="card-expiry" class="field" aria-labelledby="card-expiry-label"></div></div>
<div><label id="card-cvv-label">Security code</label>
<div id="card-cvv" class="field" aria-labelledby="card-cvv-label"></div></div>
</div>
<h2>Gift cards</h2>
<p class="note">Optional. Leave the card empty when the gift cards pay it all.</p>
${Array.from({ length: GIFT_CARD_SLOTS }, (_, i) => giftCardSlot(i)).join('\n')}
<button type="button" id="add-gift-card" class="secondary">Add another gift card</button>
<button type="submit" id="pay" disabled>Pay ${escapeHtml(shown(d.amount, d.currency))}</button>
<p id="status" role="status" aria-live="polite"></p>
<ul id="redemptions"></ul>
</form>
<section class="help">
<h2>Test cards</h2>
<p>Any expiry date in the future and any 3 digits (4 for American Express).</p>
<ul>
<li><code>4111 1111 1111 1111</code>: approved</li>
<li><code>4000 0000 0000 0002</code>: declined (<code>issuer_decline</code>)</li>
<li><code>4000 0000 0000 9995</code>: declined (<code>insufficient_funds</code>)</li>
</ul>
<p>Gift cards: any 16-19 digits and any PIN hold 100.00 USD; one ending <code>0004</code> is empty (<code>insufficient_funds</code>), \
one ending <code>0002</code> is refused (<code>invalid_gift_card</code>). A refused gift card undoes the whole payment.</p>
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
