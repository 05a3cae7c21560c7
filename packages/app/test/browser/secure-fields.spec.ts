import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { Chromium, launchChromium } from '../support/chromium'
import { Harness, Resource, startHarness } from '../support/harness'
import { Site, startMerchantSite } from './merchant-site'
import { field, openLogged, PageLog, pageSaw, pay } from './page-log'

const APPROVED = '4111111111111111'
const DECLINED = '4000000000000002'
const CVV = '737'
const AMOUNT = 1299

/** The number, typed or formatted (`4111 1111 …`), or the CVV as a value of its own. */
const leaks = (text: string, number: string): boolean =>
  new RegExp(number.split('').join('\\D?')).test(text) || new RegExp(`(^|[^0-9A-Za-z])${CVV}([^0-9A-Za-z]|$)`).test(text)

describe('Secure Fields in Chromium: a merchant page on one origin, Orka on another', function () {
  this.timeout(120_000)
  let h: Harness
  let browser: Chromium
  let shop: Site
  let stranger: Site

  before(async () => {
    browser = await launchChromium()
    shop = await startMerchantSite()
    stranger = await startMerchantSite()
    h = await startHarness({ env: { CORS_ALLOWED_ORIGINS: shop.origin } })
  })
  after(async () => {
    const set: Partial<{ h: Harness; browser: Chromium; shop: Site; stranger: Site }> = { h, browser, shop, stranger }
    await set.browser?.close()
    await set.h?.close()
    await set.shop?.close()
    await set.stranger?.close()
  })

  /** What the merchant's server does: a checkout session for the amount, and an embed token pinned to it. */
  const newCheckout = async () => {
    const session = await h.request<Resource>('POST', '/checkout/sessions', { body: { amount: AMOUNT, currency: 'USD' } })
    expect(session.status).to.equal(201)
    const embed = { amount: AMOUNT, currency: 'USD', checkout_session_id: session.body.id }
    return { id: session.body.id, token: h.token('admin', { scopes: ['embed'], embedClaim: embed }) }
  }

  const openCheckout = async (): Promise<PageLog & { readonly sessionId: string }> => {
    const { id, token } = await newCheckout()
    const fragment = new URLSearchParams({ orka: h.url, session: id, token, amount: String(AMOUNT) })
    return { ...(await openLogged(browser.context, `${shop.origin}/checkout.html#${fragment.toString()}`)), sessionId: id }
  }

  /** What the page's handlers received from `fields.on(...)`, in order. */
  const events = (page: Page) => page.evaluate<Record<string, unknown>[]>('window.events')
  const typeCard = async (page: Page, number: string, expiry = '1230', cvv = CVV) => {
    await field(page, 'Card number').pressSequentially(number)
    await field(page, 'Card expiry date').pressSequentially(expiry)
    await field(page, 'Card security code').pressSequentially(cvv)
  }

  it('pays: the fields send the card to the session themselves, and the page pays with its embed token', async () => {
    const log = await openCheckout()
    const { page } = log
    await typeCard(page, APPROVED)
    expect(await field(page, 'Card number').inputValue()).to.equal('4111 1111 1111 1111')
    expect(await field(page, 'Card expiry date').inputValue()).to.equal('12/30')
    // The page forges what the fields say to each other (it can read their mount id): asked, they answer nothing it can read.
    await page.evaluate(`for (const f of document.querySelectorAll('iframe')) {
      const mount = new URLSearchParams(new URL(f.src).hash.slice(1)).get('mount')
      f.contentWindow.postMessage({ orkaSecureFields: mount, field: 'number', type: 'collect', requestId: 'forged' }, '*')
      f.contentWindow.postMessage({ orkaSecureFields: mount, field: 'number', type: 'scheme', scheme: 'amex' }, '*')
    }`)
    expect(await pay(page)).to.equal('authorization_succeeded')
    expect(await page.locator('#card').innerText()).to.equal('visa 1111 411111')

    // Orka recorded the payment of that session, with the card the fields sent.
    const list = await h.request<{ items: Resource[] }>('GET', `/transactions?checkout_session_id=${log.sessionId}`)
    expect(list.body.items.map((t) => [t.status, t.amount, (t.payment_method as Resource).label])).to.deep.equal([
      ['authorization_succeeded', AMOUNT, '1111'],
    ])
    // The card went from a field frame to Orka's fields route (the check below would see it there)...
    const put = log.fieldRequests.filter((r) => r.startsWith(`PUT ${h.url}/checkout/sessions/${log.sessionId}/fields `))
    expect(put).to.have.length(1)
    expect(leaks(put[0]!, APPROVED)).to.equal(true)
    // ...and never through the merchant's page: not its DOM, messages, events, requests or responses.
    const saw = await pageSaw(log)
    expect(saw.filter((s) => leaks(s, APPROVED))).to.deep.equal([])
    expect(log.pageRequests.some((r) => r.startsWith(`POST ${h.url}/transactions `))).to.equal(true)
    await page.close()
  })

  it('shows a declined card as the transaction says, with no card data on the page', async () => {
    const log = await openCheckout()
    await typeCard(log.page, DECLINED)
    expect(await pay(log.page)).to.equal('authorization_declined')
    expect(await log.page.locator('#card').innerText()).to.equal('visa 0002 400000')
    expect((await pageSaw(log)).filter((s) => leaks(s, DECLINED))).to.deep.equal([])
    await log.page.close()
  })

  it('gives each field one input with an accessible name, autocomplete and a numeric keyboard', async () => {
    const { page } = await openCheckout()
    const described = []
    for (const [title, name] of [
      ['Card number', 'Card number'],
      ['Card expiry date', 'Expiry date, month and year'],
      ['Card security code', 'Security code'],
    ] as const) {
      const frame = page.frameLocator(`iframe[title="${title}"]`)
      const input = frame.getByRole('textbox', { name, exact: true })
      described.push([
        await frame.locator('input').count(),
        await input.getAttribute('autocomplete'),
        await input.getAttribute('inputmode'),
      ])
    }
    expect(described).to.deep.equal([
      [1, 'cc-number', 'numeric'],
      [1, 'cc-exp', 'numeric'],
      [1, 'cc-csc', 'numeric'],
    ])
    await page.close()
  })

  it('tells the page only whether each field is empty and valid, and the scheme', async () => {
    const log = await openCheckout()
    const { page } = log
    await field(page, 'Card number').pressSequentially('378282246310005')
    expect(await field(page, 'Card number').inputValue()).to.equal('3782 822463 10005')
    await field(page, 'Card security code').pressSequentially('123')
    // Messages from the frames arrive after the keystrokes: wait for one change per key (15 and 3).
    await page.waitForFunction(`['number', 'securityCode'].map((f) =>
      window.events.filter((e) => e.type === 'change' && e.field === f).length).join() === '15,3'`)
    const changes = (await events(page)).filter((e) => e.type === 'change')
    // "3" could be several schemes; "37" is American Express.
    expect(changes.slice(0, 2)).to.deep.equal([
      { type: 'change', field: 'number', empty: false, valid: false, scheme: null },
      { type: 'change', field: 'number', empty: false, valid: false, scheme: 'amex' },
    ])
    expect(changes.filter((e) => e.field === 'number').at(-1)).to.deep.equal({
      type: 'change',
      field: 'number',
      empty: false,
      valid: true,
      scheme: 'amex',
    })
    // An American Express card has a 4-digit code: 3 digits are not enough.
    expect(changes.at(-1)).to.deep.equal({ type: 'change', field: 'securityCode', empty: false, valid: false })
    const shapes = new Set(changes.map((e) => `${String(e.field)}: ${Object.keys(e).sort().join(' ')}`))
    expect([...shapes].sort()).to.deep.equal(['number: empty field scheme type valid', 'securityCode: empty field type valid'])
    await page.close()
  })

  it('refuses an invalid number without sending anything: submit rejects and the session has no card', async () => {
    const log = await openCheckout()
    const { page } = log
    await typeCard(page, '4111111111111112')
    expect(await pay(page)).to.equal('rejected invalid_fields number')
    // Styled as invalid once the shopper leaves it, and said so to assistive technology.
    const number = field(page, 'Card number')
    expect(await number.getAttribute('aria-invalid')).to.equal('true')
    const numberFrame = page.frame({ url: /\/field\.html#field=number&/ })!
    expect(await numberFrame.evaluate<string>(`getComputedStyle(document.getElementById('field')).color`)).to.equal('rgb(204, 0, 0)')
    expect([...log.pageRequests, ...log.fieldRequests].filter((r) => r.includes('/fields'))).to.deep.equal([])
    const session = await h.request<Resource>('GET', `/checkout/sessions/${log.sessionId}`)
    expect(session.body.payment_method).to.equal(null)

    // An expired card is as invalid, whatever the number.
    await number.fill('')
    await number.pressSequentially(APPROVED)
    await field(page, 'Card expiry date').fill('')
    await field(page, 'Card expiry date').pressSequentially('0120')
    await page.evaluate(`document.getElementById('status').textContent = ''`)
    expect(await pay(page)).to.equal('rejected invalid_fields expirationDate')
    expect([...log.pageRequests, ...log.fieldRequests].filter((r) => r.includes('/fields'))).to.deep.equal([])
    await page.close()
  })

  it('takes a card from the keyboard alone: Tab through the fields, Enter on Pay', async () => {
    const log = await openCheckout()
    const { page, sessionId } = log
    await page.locator('#name').focus()
    await page.keyboard.type('Ada Lovelace')
    await page.keyboard.press('Tab')
    await page.keyboard.type(APPROVED)
    await page.keyboard.press('Tab')
    await page.keyboard.type('1230')
    await page.keyboard.press('Tab')
    await page.keyboard.type(CVV)
    await page.keyboard.press('Tab')
    expect(await page.evaluate<string>('document.activeElement.id')).to.equal('pay')
    expect(await pay(page, () => page.keyboard.press('Enter'))).to.equal('authorization_succeeded')
    const list = await h.request<{ items: Resource[] }>('GET', `/transactions?checkout_session_id=${sessionId}`)
    expect(list.body.items.map((t) => t.status)).to.deep.equal(['authorization_succeeded'])
    const focused = (await events(page)).filter((e) => e.type === 'focus').map((e) => e.field)
    expect(focused).to.deep.equal(['number', 'expirationDate', 'securityCode'])
    await page.close()
  })

  it("rejects with Orka's own error when the session is gone, and the card goes nowhere", async () => {
    const log = await openCheckout()
    const { page, sessionId } = log
    expect((await h.request('DELETE', `/checkout/sessions/${sessionId}`)).status).to.equal(204)
    await typeCard(page, APPROVED)
    expect(await pay(page)).to.equal('rejected not_found')
    expect(log.fieldRequests.filter((r) => r.startsWith(`PUT ${h.url}/checkout/sessions/${sessionId}/fields `))).to.have.length(1)
    expect((await pageSaw(log)).filter((s) => leaks(s, APPROVED))).to.deep.equal([])
    await page.close()
  })

  it('destroys: the frames go, a pending submit and any later one reject with destroyed', async () => {
    const log = await openCheckout()
    const { page } = log
    await typeCard(page, APPROVED)
    const outcome = await page.evaluate<string>(`(async () => {
      const pending = fields.submit().then(() => 'resolved', (e) => e.code)
      fields.destroy()
      const later = await fields.submit().then(() => 'resolved', (e) => e.code)
      return [await pending, later, document.querySelectorAll('iframe').length].join(' ')
    })()`)
    expect(outcome).to.equal('destroyed destroyed 0')
    await page.close()
  })

  /** What a page on `site` gets when it calls a browser route of `orka` (an empty payment): `answered <status>` or the error's name. */
  const callFrom = async (site: Site, orka: string, token: string): Promise<string> => {
    const page = await browser.context.newPage()
    await page.goto(`${site.origin}/framer.html`)
    const outcome = await page.evaluate(
      async ([url, auth]) => {
        try {
          const res = await fetch(`${url}/transactions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
            body: '{}',
          })
          return `answered ${res.status}`
        } catch (e) {
          return (e as Error).name
        }
      },
      [orka, token] as const,
    )
    await page.close()
    return outcome
  }

  /** Whether a page on `site` could frame `orka`'s field document, or got Chromium's error page in its place. */
  const frameFrom = async (site: Site, orka: string): Promise<'framed' | 'refused'> => {
    const page = await browser.context.newPage()
    await page.goto(`${site.origin}/framer.html#orka=${encodeURIComponent(orka)}`)
    const frame = (await (await page.waitForSelector('iframe')).contentFrame())!
    await frame.waitForLoadState('load')
    const field = frame.url().startsWith(`${orka}/secure-fields/v1/field.html#`)
      ? await frame.locator('#field[aria-label="Card number"]').count()
      : 0
    const url = frame.url()
    await page.close()
    if (field === 1) return 'framed'
    expect(url).to.equal('chrome-error://chromewebdata/')
    return 'refused'
  }

  it('lets a page from an origin not listed neither call a browser route nor frame a field', async () => {
    const token = h.token('admin', { scopes: ['embed'] })
    expect(await callFrom(stranger, h.url, token)).to.equal('TypeError')
    expect(await frameFrom(stranger, h.url)).to.equal('refused')
    // The same page from the listed origin does both (Orka's 422 for the empty payment reaches it).
    expect(await callFrom(shop, h.url, token)).to.equal('answered 422')
    expect(await frameFrom(shop, h.url)).to.equal('framed')
  })

  it('with CORS_ALLOWED_ORIGINS unset, sends no CORS header and frames fields for Orka’s own pages only', async () => {
    const closed = await startHarness()
    try {
      const token = closed.token('admin', { scopes: ['embed'] })
      const preflight = await fetch(`${closed.url}/transactions`, {
        method: 'OPTIONS',
        headers: { origin: shop.origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      })
      const post = await fetch(`${closed.url}/transactions`, {
        method: 'POST',
        headers: { origin: shop.origin, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      })
      const cors = (r: Response) => [...r.headers.keys()].filter((k) => k.startsWith('access-control-'))
      expect([preflight.status, cors(preflight), post.status, cors(post)]).to.deep.equal([204, [], 422, []])
      expect(await callFrom(shop, closed.url, token)).to.equal('TypeError')
      expect(await frameFrom(shop, closed.url)).to.equal('refused')
    } finally {
      await closed.close()
    }
  })
})
