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
    const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir })
    if (E.isLeft(config)) throw new Error(config.left.join('; '))
    server = await startServer(config.right, { logger: createLogger('silent') })
  })
  after(async () => {
    const set: Partial<{ browser: Chromium; server: RunningServer }> = { browser, server }
    await set.browser?.close()
    await set.server?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  /** Loads the demo, types the card into its Secure Fields, pays, and reads the status it shows. */
  const payWith = async (number: string): Promise<{ status: string; problems: string[]; elsewhere: string[] }> => {
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
    await page.frameLocator('iframe[title="Card number"]').locator('input').pressSequentially(number)
    await page.frameLocator('iframe[title="Card expiry date"]').locator('input').pressSequentially('1230')
    await page.frameLocator('iframe[title="Card security code"]').locator('input').pressSequentially('123')
    await page.click('#pay')
    await page.locator('#status[data-outcome]:not([data-outcome=""])').waitFor({ timeout: 30_000 })
    const status = await page.locator('#status').innerText()
    await page.close()
    const origin = new URL(server.url).origin
    return { status, problems, elsewhere: requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:')) }
  }

  it('pays with an approved card and shows authorization_succeeded, loading nothing from elsewhere', async () => {
    expect(await payWith('4111111111111111')).to.deep.equal({ status: 'authorization_succeeded', problems: [], elsewhere: [] })
  })

  it('shows authorization_declined for the declined test card', async () => {
    expect(await payWith('4000000000000002')).to.deep.equal({ status: 'authorization_declined', problems: [], elsewhere: [] })
  })
})
