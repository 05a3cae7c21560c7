import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BrowserContext, chromium } from 'playwright-core'

/** Debian's Chromium: the project's setup installs it with apt; no browser is downloaded. */
export const CHROMIUM = '/usr/bin/chromium'

export interface Chromium {
  readonly context: BrowserContext
  close(): Promise<void>
}

/** A headless Chromium with a throwaway profile, kept from reaching any host on its own. */
export const launchChromium = async (viewport = { width: 1280, height: 900 }): Promise<Chromium> => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: the browser tests drive Debian's Chromium. Install it with: apt-get install -y chromium`)
  const userDataDir = mkdtempSync(join(tmpdir(), 'orka-chromium-'))
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      // Without the background-networking switches Chromium keeps trying to reach Google's hosts.
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport,
    })
    return {
      context,
      close: async () => {
        await context.close()
        rmSync(userDataDir, { recursive: true, force: true })
      },
    }
  } catch (e) {
    rmSync(userDataDir, { recursive: true, force: true })
    throw e
  }
}
