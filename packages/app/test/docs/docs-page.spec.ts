import { existsSync, mkdirSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { expect } from 'chai'
import type { BrowserContext } from 'playwright-core'
import { Chromium, launchChromium } from '../support/chromium'
import { Harness, startHarness } from '../support/harness'

/** From packages/app/dist/test/docs up to the repository. */
const REPO_ROOT = resolve(__dirname, '..', '..', '..', '..', '..')
const SCREENSHOT = join(REPO_ROOT, 'docs', 'api-reference.png')
/** The three operations SPEC.md specifies, by their summaries. */
const SPEC_OPERATIONS = ['Activate a gift card', 'List all roles', 'Delete webhook subscription']

describe('GET /docs in a browser', function () {
  this.timeout(120_000)
  let h: Harness
  let browser: Chromium
  let context: BrowserContext

  before(async function () {
    browser = await launchChromium({ width: 1440, height: 1000 })
    context = browser.context
    h = await startHarness()
  })
  after(async () => {
    // before() may have failed before setting each of these (no Chromium, a harness that did not start).
    const set: Partial<{ h: Harness; browser: Chromium }> = { h, browser }
    await set.browser?.close()
    await set.h?.close()
  })

  it('renders the reference from /openapi.json with the three operations of SPEC.md, fetching nothing from elsewhere', async () => {
    const page = await context.newPage()
    const requested: string[] = []
    const problems: string[] = []
    page.on('request', (r) => requested.push(r.url()))
    page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`))
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`))
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`console: ${m.text()}`)
    })

    const res = await page.goto(`${h.url}/docs`)
    expect(res?.status()).to.equal(200)
    // Redoc documents every operation once it has read the document: a heading for each.
    const redoc = page.locator('#redoc')
    for (const name of SPEC_OPERATIONS) await redoc.locator('h2', { hasText: name }).first().waitFor({ state: 'visible', timeout: 60_000 })
    // Its side menu lists them under their tags, collapsed (Redoc keeps one tag open at a time):
    // open each tag as a reader would and see the operation listed.
    const menu = page.locator('.menu-content')
    for (const [tag, name] of [
      ['Gift cards', SPEC_OPERATIONS[0]!],
      ['Roles', SPEC_OPERATIONS[1]!],
      ['Webhook subscriptions', SPEC_OPERATIONS[2]!],
    ]) {
      await menu.getByText(tag!, { exact: true }).click()
      await menu.getByText(name!, { exact: true }).waitFor({ state: 'visible', timeout: 10_000 })
    }
    const body = await redoc.innerText()
    for (const text of ['/gift-cards/activations', '/roles', '/webhook-subscriptions/{subscription_id}']) expect(body).to.include(text)
    await page.evaluate('window.scrollTo(0, 0)')

    const tryIt = await page.locator('#try-it').innerText()
    expect(tryIt).to.include("pnpm orka token --key .data/dev-api-key.pem --scopes '*.read,*.write'")
    expect(tryIt).to.include(`curl -s ${h.url}/roles?limit=2`)

    mkdirSync(dirname(SCREENSHOT), { recursive: true })
    await page.screenshot({ path: SCREENSHOT })
    expect(existsSync(SCREENSHOT)).to.equal(true)

    const origin = new URL(h.url).origin
    const elsewhere = requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'))
    expect(elsewhere, 'requests that left this server').to.deep.equal([])
    expect(requested).to.include.members([
      `${origin}/docs`,
      `${origin}/docs/assets/redoc.standalone.js`,
      `${origin}/docs/assets/docs.js`,
      `${origin}/openapi.json`,
    ])
    expect(problems).to.deep.equal([])
  })
})
