import { expect } from 'chai'
import type { Page } from 'playwright-core'
import { Chromium, launchChromium } from '../support/chromium'
import { Harness, Resource, startHarness } from '../support/harness'
import { Site, startMerchantSite } from './merchant-site'
import { field, openLogged, PageLog, pageSaw, pay } from './page-log'

const CARD = '4111111111111111'
const AMOUNT = 1299
// Distinctive, so that finding it anywhere is a leak, not a coincidence.
const PIN = 'Kx4Pin'

describe('Secure Fields in Chromium: gift cards, from a merchant page on one origin to Orka on another', function () {
  this.timeout(120_000)
  let h: Harness
  let browser: Chromium
  let shop: Site
  let n = 0
  /** A fresh gift card number the mock service funds with 10000 USD. */
  const giftNumber = () => `72000000000070${String(10 + n++)}`

  before(async () => {
    browser = await launchChromium()
    shop = await startMerchantSite()
    h = await startHarness({ env: { CORS_ALLOWED_ORIGINS: shop.origin } })
  })
  after(async () => {
    const set: Partial<{ h: Harness; browser: Chromium; shop: Site }> = { h, browser, shop }
    await set.browser?.close()
    await set.h?.close()
    await set.shop?.close()
  })

  /** The merchant's server: a session for the amount and a token pinned to it; then the shop's gift card page. */
  const openCheckout = async (): Promise<PageLog & { readonly sessionId: string }> => {
    const session = await h.request<Resource>('POST', '/checkout/sessions', { body: { amount: AMOUNT, currency: 'USD' } })
    const embed = { amount: AMOUNT, currency: 'USD', checkout_session_id: session.body.id }
    const token = h.token('admin', { scopes: ['embed'], embedClaim: embed })
    const fragment = new URLSearchParams({ orka: h.url, session: session.body.id, token, amount: String(AMOUNT) })
    return {
      ...(await openLogged(browser.context, `${shop.origin}/gift-checkout.html#${fragment.toString()}`)),
      sessionId: session.body.id,
    }
  }
  const typeCard = async (page: Page) => {
    await field(page, 'Card number').pressSequentially(CARD)
    await field(page, 'Card expiry date').pressSequentially('1230')
    await field(page, 'Card security code').pressSequentially('737')
  }
  const typeGiftCard = async (page: Page, i: number, number: string, amount: string, pin = PIN) => {
    const which = i === 0 ? 'Gift card' : `Gift card ${i + 1}`
    await field(page, `${which} number`).pressSequentially(number)
    await field(page, `${which} PIN`).pressSequentially(pin)
    await page.locator(`#gift-amount-${i}`).fill(amount)
  }
  const balanceOf = async (number: string) =>
    (await h.request<{ items: { balance: number }[] }>('POST', '/gift-cards/balances', { body: { items: [{ number, pin: PIN }] } })).body
      .items[0]?.balance
  /** Whether a text holds the number (typed or grouped, `7200 0000 …`) or the PIN. */
  const leaks = (text: string, number: string) => new RegExp(number.split('').join('\\D?')).test(text) || text.includes(PIN)
  const fieldsPuts = (log: PageLog) => [...log.pageRequests, ...log.fieldRequests].filter((r) => r.includes('/fields'))

  it('pays card + gift card: the fields send both to the session, the page pays, and never sees the number or PIN', async () => {
    const log = await openCheckout()
    const { page } = log
    const number = giftNumber()
    await typeCard(page)
    await typeGiftCard(page, 0, number, '500')
    expect(await field(page, 'Gift card number').inputValue()).to.equal(
      `${number.slice(0, 4)} ${number.slice(4, 8)} ${number.slice(8, 12)} ${number.slice(12)}`,
    )
    // The page forges a sibling's request for values: the gift card frames answer nothing it can read.
    await page.evaluate(`for (const f of document.querySelectorAll('iframe')) {
      const mount = new URLSearchParams(new URL(f.src).hash.slice(1)).get('mount')
      f.contentWindow.postMessage({ orkaSecureFields: mount, field: 'number', type: 'collect', requestId: 'forged' }, '*')
    }`)
    expect(await pay(page)).to.equal('authorization_succeeded')
    expect(await page.locator('#redemptions').innerText()).to.equal(`succeeded ${number.slice(-4)}`)
    expect(JSON.parse(await page.locator('#paid').innerText())).to.deep.equal({
      scheme: 'visa',
      label: '1111',
      bin: '411111',
      giftCards: [{ last4: number.slice(-4), amount: 500 }],
    })

    const list = await h.request<{ items: Resource[] }>('GET', `/transactions?checkout_session_id=${log.sessionId}`)
    const paid = await h.request<Resource>('GET', `/transactions/${list.body.items[0]!.id}`)
    expect([paid.body.status, paid.body.amount, paid.body.authorized_amount, (paid.body.payment_method as Resource).label]).to.deep.equal([
      'authorization_succeeded',
      AMOUNT,
      AMOUNT - 500,
      '1111',
    ])
    expect(await balanceOf(number)).to.equal(9500)
    // Number and PIN went from a field frame to Orka's fields route (the checks below would see them there)...
    const put = log.fieldRequests.filter((r) => r.startsWith(`PUT ${h.url}/checkout/sessions/${log.sessionId}/fields `))
    expect(put).to.have.length(1)
    expect([leaks(put[0]!, number), put[0]!.includes(PIN), leaks(put[0]!, CARD)]).to.deep.equal([true, true, true])
    // ...and never through the merchant's page: not its DOM, inputs, messages, events, requests or responses.
    const saw = await pageSaw(log)
    expect(saw.filter((s) => leaks(s, number) || leaks(s, CARD))).to.deep.equal([])
    await page.close()
  })

  it('pays with gift cards alone, the card fields left empty: two gift cards, no card sent, captured at once', async () => {
    const log = await openCheckout()
    const { page } = log
    const [first, second] = [giftNumber(), giftNumber()]
    await typeGiftCard(page, 0, first, '1000')
    await typeGiftCard(page, 1, second, '299', 'Other9')
    expect(await pay(page)).to.equal('capture_succeeded')
    expect(await page.locator('#redemptions').innerText()).to.equal(`succeeded ${first.slice(-4)}, succeeded ${second.slice(-4)}`)
    const put = log.fieldRequests.find((r) => r.startsWith(`PUT ${h.url}/checkout/sessions/${log.sessionId}/fields `))
    // The entry is method, URL, headers (a flat JSON object) and body: the body follows the headers' `} `.
    const body = JSON.parse(put!.slice(put!.indexOf('} {') + 2)) as Record<string, unknown>
    expect(body).to.deep.equal({
      gift_cards: [
        { number: first, pin: PIN, amount: 1000 },
        { number: second, pin: 'Other9', amount: 299 },
      ],
    })
    expect(await balanceOf(first)).to.equal(9000)
    expect((await pageSaw(log)).filter((s) => leaks(s, first) || leaks(s, second) || s.includes('Other9'))).to.deep.equal([])
    await page.close()
  })

  it('refuses a gift card begun but not finished, without sending anything: the fields at fault, its amount included', async () => {
    const log = await openCheckout()
    const { page } = log
    await typeCard(page)
    await field(page, 'Gift card number').pressSequentially('720000000000701')
    expect(await pay(page)).to.equal('rejected invalid_fields giftCards.0.number giftCards.0.pin giftCards.0.amount')
    expect(await field(page, 'Gift card number').getAttribute('aria-invalid')).to.equal('true')
    expect(fieldsPuts(log)).to.deep.equal([])
    // Nothing at all to pay with is as invalid: the card's fields are what is missing.
    await field(page, 'Gift card number').fill('')
    await field(page, 'Card number').fill('')
    await page.evaluate(`document.getElementById('status').textContent = ''`)
    expect(await pay(page)).to.equal('rejected invalid_fields number')
    expect(fieldsPuts(log)).to.deep.equal([])
    await page.close()
  })

  it("rejects with Orka's rule when gift cards alone fall short of the session's amount: the card is what is missing", async () => {
    const log = await openCheckout()
    const { page } = log
    const number = giftNumber()
    await typeGiftCard(page, 0, number, '500')
    expect(await pay(page)).to.equal('rejected bad_request payment_method_required')
    expect(fieldsPuts(log)).to.have.length(1)
    expect((await h.request<Resource>('GET', `/checkout/sessions/${log.sessionId}`)).body).to.deep.include({ payment_method: null })
    expect((await pageSaw(log)).filter((s) => leaks(s, number))).to.deep.equal([])
    await page.close()
  })

  it('gives each gift card field one input with an accessible name of its own, autocomplete off, digits for the number', async () => {
    const { page } = await openCheckout()
    const described = []
    for (const [title, name] of [
      ['Gift card number', 'Gift card number'],
      ['Gift card PIN', 'Gift card PIN'],
      ['Gift card 2 number', 'Gift card 2 number'],
      ['Gift card 2 PIN', 'Gift card 2 PIN'],
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
      [1, 'off', 'numeric'],
      [1, 'off', 'text'],
      [1, 'off', 'numeric'],
      [1, 'off', 'text'],
    ])
    // The page hears whether each is empty and valid, by its name in `fields`, and nothing else.
    await field(page, 'Gift card 2 number').pressSequentially('7200000000007099')
    await page.waitForFunction(`window.events.filter((e) => e.type === 'change' && e.field === 'giftCards.1.number').length === 16`)
    const changes = (await page.evaluate<Record<string, unknown>[]>('window.events')).filter((e) => e.type === 'change')
    expect(changes.at(-1)).to.deep.equal({ type: 'change', field: 'giftCards.1.number', empty: false, valid: true })
    expect(changes.at(-2)).to.deep.equal({ type: 'change', field: 'giftCards.1.number', empty: false, valid: false })
    await page.close()
  })
})
