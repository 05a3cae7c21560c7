import { once } from 'node:events'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A merchant's checkout page, as a merchant would write it against Secure Fields: the script
 * from Orka, three containers, a Pay button that submits the fields then pays with the embed
 * token its server made. Everything it needs comes in the URL's fragment (never sent over the
 * network): `orka`, `session`, `token`, `amount`.
 */
const CHECKOUT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A shop</title></head>
<body>
<form id="pay-form">
<label>Name on card <input id="name" autocomplete="cc-name"></label>
<div id="card-number"></div>
<div id="card-expiry"></div>
<div id="card-cvv"></div>
<button id="pay" type="submit">Pay</button>
</form>
<p id="card"></p>
<p id="status"></p>
<script>
'use strict'
const p = new URLSearchParams(location.hash.slice(1))
const orka = p.get('orka')
const script = document.createElement('script')
script.src = orka + '/secure-fields/v1/secure-fields.js'
script.onload = () => {
  const fields = OrkaSecureFields.mount({
    orka,
    sessionId: p.get('session'),
    fields: { number: '#card-number', expirationDate: '#card-expiry', securityCode: '#card-cvv' },
    style: { base: { fontSize: '16px', color: '#222' }, invalid: { color: 'rgb(204, 0, 0)' } },
  })
  window.fields = fields
  window.events = []
  for (const type of ['ready', 'change', 'focus', 'blur', 'error']) fields.on(type, (e) => window.events.push({ type, ...e }))
  fields.on('ready', () => { document.body.dataset.ready = 'true' })
  document.getElementById('pay-form').addEventListener('submit', async (event) => {
    event.preventDefault()
    const status = document.getElementById('status')
    try {
      const card = await fields.submit()
      document.getElementById('card').textContent = [card.scheme, card.label, card.bin].join(' ')
      const res = await fetch(orka + '/transactions', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + p.get('token'), 'content-type': 'application/json' },
        body: JSON.stringify({ amount: Number(p.get('amount')), currency: 'USD', payment_method: { method: 'checkout-session', id: p.get('session') } }),
      })
      const body = await res.json()
      status.textContent = res.ok ? body.status : 'refused ' + body.code
    } catch (e) {
      status.textContent = ['rejected', e.code || e.name, ...(e.fields || [])].join(' ')
    }
  })
}
document.head.appendChild(script)
</script>
</body>
</html>
`

/**
 * The same shop taking gift cards too: the card fields and two gift cards' (number, PIN, and an
 * amount the page asks for itself). Submit sends what the shopper filled in; the card may stay
 * empty when gift cards pay it all. The page shows what submit resolved, the transaction's status
 * and each redemption's status and last 4.
 */
const GIFT_CHECKOUT = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A shop with gift cards</title></head>
<body>
<form id="pay-form">
<div id="card-number"></div>
<div id="card-expiry"></div>
<div id="card-cvv"></div>
<div id="gift-number-0"></div>
<div id="gift-pin-0"></div>
<label>Amount <input id="gift-amount-0" inputmode="numeric"></label>
<div id="gift-number-1"></div>
<div id="gift-pin-1"></div>
<label>Amount <input id="gift-amount-1" inputmode="numeric"></label>
<button id="pay" type="submit">Pay</button>
</form>
<p id="paid"></p>
<p id="status"></p>
<p id="redemptions"></p>
<script>
'use strict'
const p = new URLSearchParams(location.hash.slice(1))
const orka = p.get('orka')
const script = document.createElement('script')
script.src = orka + '/secure-fields/v1/secure-fields.js'
script.onload = () => {
  const fields = OrkaSecureFields.mount({
    orka,
    sessionId: p.get('session'),
    fields: {
      number: '#card-number',
      expirationDate: '#card-expiry',
      securityCode: '#card-cvv',
      giftCards: [0, 1].map((i) => ({ number: '#gift-number-' + i, pin: '#gift-pin-' + i })),
    },
  })
  window.fields = fields
  window.events = []
  for (const type of ['ready', 'change', 'focus', 'blur', 'error']) fields.on(type, (e) => window.events.push({ type, ...e }))
  fields.on('ready', () => { document.body.dataset.ready = 'true' })
  document.getElementById('pay-form').addEventListener('submit', async (event) => {
    event.preventDefault()
    const status = document.getElementById('status')
    const amounts = [0, 1].map((i) => document.getElementById('gift-amount-' + i).value).map((v) => (v === '' ? null : Number(v)))
    try {
      const paid = await fields.submit({ giftCardAmounts: amounts })
      document.getElementById('paid').textContent = JSON.stringify(paid)
      const res = await fetch(orka + '/transactions', {
        method: 'POST',
        headers: { authorization: 'Bearer ' + p.get('token'), 'content-type': 'application/json' },
        body: JSON.stringify({ amount: Number(p.get('amount')), currency: 'USD', payment_method: { method: 'checkout-session', id: p.get('session') } }),
      })
      const body = await res.json()
      document.getElementById('redemptions').textContent = (body.gift_card_redemptions || []).map((r) => r.status + ' ' + r.gift_card.last4).join(', ')
      status.textContent = res.ok ? body.status : 'refused ' + body.code
    } catch (e) {
      status.textContent = ['rejected', e.code || e.name, ...(e.fields || []), ...(e.details || []).map((d) => d.type)].join(' ')
    }
  })
}
document.head.appendChild(script)
</script>
</body>
</html>
`

/** A page that frames Orka's field document, for an origin that may or may not be allowed to. */
const FRAMER = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Framer</title></head>
<body><script>
const orka = new URLSearchParams(location.hash.slice(1)).get('orka')
const f = document.createElement('iframe')
f.title = 'framed field'
f.src = orka + '/secure-fields/v1/field.html#field=number&mount=m&origin=' + encodeURIComponent(location.origin) + '&session=s'
document.body.appendChild(f)
</script></body></html>
`

export interface Site {
  /** `http://127.0.0.1:<port>`: the origin its pages run in. */
  readonly origin: string
  close(): Promise<void>
}

const PAGES: Readonly<Record<string, string>> = { '/checkout.html': CHECKOUT, '/gift-checkout.html': GIFT_CHECKOUT, '/framer.html': FRAMER }

/** Serves `/checkout.html`, `/gift-checkout.html` and `/framer.html` on 127.0.0.1 at a port of its own: one origin. */
export const startMerchantSite = async (): Promise<Site> => {
  const server = createServer((req, res) => {
    const page = Object.hasOwn(PAGES, req.url ?? '') ? PAGES[req.url ?? ''] : undefined
    res.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
    res.end(page ?? 'not found')
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
