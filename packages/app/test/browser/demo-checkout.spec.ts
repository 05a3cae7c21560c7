import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { loadConfig } from '../../src/config'
import { createLogger } from '../../src/logger'
import { RunningServer, startServer } from '../../src/server'
import { Chromium, launchChromium } from '../support/chromium'

describe('GET /demo/checkout in Chromium: the sandbox pays as its own merchant', function () {
  this.timeout(120_000)
  let browser: Chromium
  let server: RunningServer
  let dataDir: string

  before(async () => {
    browser = await launchChromium()
    // As `npm start` runs it: the sandbox, no seed file, so the dev key is generated and accepted.
    dataDir = mkdtempSync(join(tmpdir(), 'orka-demo-'))
    const config = loadConfig({ PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir })
    if (E.isLeft(config)) throw new Error(config.left.join('; '))
    server = await startServer(config.right, { logger: createLogger('silent') })
  })
  after(async () => {
    const set: Partial<{ browser: Chromium; server: RunningServer }> = { browser, server }
    await set.browser?.close()
    await set.server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  interface Tender {
    readonly card?: string
    readonly giftCards?: readonly { readonly number: string; readonly pin: string; readonly amount: string }[]
  }
  /** Loads the demo, types the card and gift cards into its Secure Fields, pays, and reads what it shows. */
  const payWith = async (tender: Tender): Promise<{ status: string; redemptions: string[]; problems: string[]; elsewhere: string[] }> => {
    const page = await browser.context.newPage()
    const problems: string[] = []
    const requested: string[] = []
    page.on('request', (r) => requested.push(r.url()))
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console: ${m.text()}`)
    })
    const res = await page.goto(`${server.url}/demo/checkout`)
    expect(res?.status()).to.equal(200)
    await page.locator('#pay:not([disabled])').waitFor({ timeout: 20_000 })
    const type = (title: string, text: string) => page.frameLocator(`iframe[title="${title}"]`).locator('input').pressSequentially(text)
    if (tender.card !== undefined) {
      await type('Card number', tender.card)
      await type('Card expiry date', '1230')
      await type('Card security code', '123')
    }
    for (const [i, g] of (tender.giftCards ?? []).entries()) {
      // The first gift card is there; each further one is a click on "Add another gift card".
      if (i > 0) await page.click('#add-gift-card')
      const which = i === 0 ? 'Gift card' : `Gift card ${i + 1}`
      await type(`${which} number`, g.number)
      await type(`${which} PIN`, g.pin)
      await page.locator(`#gift-card-${i}-amount`).fill(g.amount)
    }
    await page.click('#pay')
    await page.locator('#status[data-outcome]:not([data-outcome=""])').waitFor({ timeout: 30_000 })
    const status = await page.locator('#status').innerText()
    const redemptions = await page.locator('#redemptions li').allInnerTexts()
    await page.close()
    const origin = new URL(server.url).origin
    return { status, redemptions, problems, elsewhere: requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:')) }
  }
  const clean = { problems: [], elsewhere: [] }

  it('pays with an approved card and shows authorization_succeeded, loading nothing from elsewhere', async () => {
    expect(await payWith({ card: '4111111111111111' })).to.deep.equal({ status: 'authorization_succeeded', redemptions: [], ...clean })
  })

  it('shows authorization_declined for the declined test card', async () => {
    expect(await payWith({ card: '4000000000000002' })).to.deep.equal({ status: 'authorization_declined', redemptions: [], ...clean })
  })

  it('makes a split payment, a card and a gift card, and shows each redemption’s status and last 4', async () => {
    const paid = await payWith({ card: '4111111111111111', giftCards: [{ number: '7200000000008001', pin: '4321', amount: '5.00' }] })
    expect(paid).to.deep.equal({
      status: 'authorization_succeeded',
      redemptions: ['Gift card ending 8001: 5.00 USD, succeeded'],
      ...clean,
    })
  })

  it('pays with two gift cards alone, the second added with "Add another gift card", the card left empty', async () => {
    const paid = await payWith({
      giftCards: [
        { number: '7200000000008002', pin: '4321', amount: '10' },
        { number: '7200000000008003', pin: 'ab12', amount: '2,99' },
      ],
    })
    expect(paid).to.deep.equal({
      status: 'capture_succeeded',
      redemptions: ['Gift card ending 8002: 10.00 USD, succeeded', 'Gift card ending 8003: 2.99 USD, succeeded'],
      ...clean,
    })
  })

  it('shows a refused gift card undoing the payment: the card part voided, the gift card failed with its code', async () => {
    const paid = await payWith({ card: '4111111111111111', giftCards: [{ number: '7200000000000004', pin: '4321', amount: '1.00' }] })
    expect(paid).to.deep.equal({
      status: 'authorization_voided',
      redemptions: ['Gift card ending 0004: 1.00 USD, failed (insufficient_funds)'],
      ...clean,
    })
  })
})
