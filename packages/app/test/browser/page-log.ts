import type { BrowserContext, Page } from 'playwright-core'

/** What a merchant page saw: its message events, and its own requests with what they carried. */
export interface PageLog {
  readonly page: Page
  /** Requests made by the merchant's page itself (not by the field frames): method, URL, headers and body. */
  readonly pageRequests: string[]
  /** Requests made by the field frames: the same. */
  readonly fieldRequests: string[]
  /** Bodies of the responses the merchant's page received. */
  readonly pageResponses: Promise<string>[]
}

/** Opens `url` in a new page that records every message event it receives and every request and response, its own apart from its frames'. */
export const openLogged = async (context: BrowserContext, url: string): Promise<PageLog> => {
  const page = await context.newPage()
  // Every message event the merchant's page receives, as the page could read it (frames keep their own).
  await page.addInitScript(`window.seenMessages = []
    addEventListener('message', (e) => window.seenMessages.push(JSON.stringify(e.data)), true)`)
  const log: PageLog = { page, pageRequests: [], fieldRequests: [], pageResponses: [] }
  page.on('request', (r) => {
    const entry = [r.method(), r.url(), JSON.stringify(r.headers()), r.postData() ?? ''].join(' ')
    if (r.frame() === page.mainFrame()) log.pageRequests.push(entry)
    else log.fieldRequests.push(entry)
  })
  page.on('response', (r) => {
    if (r.frame() === page.mainFrame()) log.pageResponses.push(r.text().catch(() => ''))
  })
  await page.goto(url)
  await page.locator('body[data-ready="true"]').waitFor({ timeout: 20_000 })
  return log
}

/** Everything the merchant's page could have read: its DOM and inputs, its message events, what the fields told it, its network. */
export const pageSaw = async (log: PageLog): Promise<string[]> => {
  const { page } = log
  const dom = await page.content()
  const inputs = await page.evaluate<string>(`Array.from(document.querySelectorAll('input'), (i) => i.value).join(' ')`)
  const messages = await page.evaluate<string>('JSON.stringify(window.seenMessages)')
  const events = await page.evaluate<string>('JSON.stringify(window.events)')
  return [dom, inputs, messages, events, ...log.pageRequests, ...(await Promise.all(log.pageResponses))]
}

/** Pay, and wait for the page to say how it went. */
export const pay = async (page: Page, press?: () => Promise<void>): Promise<string> => {
  await (press ? press() : page.click('#pay'))
  await page.waitForFunction(`document.getElementById('status').textContent !== ''`, undefined, { timeout: 30_000 })
  return page.locator('#status').innerText()
}

/** The input of the field framed under this title. */
export const field = (page: Page, title: string) => page.frameLocator(`iframe[title="${title}"]`).locator('input')
