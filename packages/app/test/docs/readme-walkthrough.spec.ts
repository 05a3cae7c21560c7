import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect } from 'chai'
import { OrkaCluster, spawnOrka } from '../mongo/cluster-process'
import { hasPnpm, PNPM_VERSION } from '../support/pnpm'

const REPO = join(__dirname, '..', '..', '..', '..', '..')
const SECTION = '## Five minutes with Orka'

/** The fenced blocks of README's walkthrough, in order, with their info string. */
const walkthroughBlocks = (): { lang: string; text: string }[] => {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8')
  const start = readme.indexOf(SECTION)
  const section = readme.slice(start, readme.indexOf('\n## ', start + SECTION.length))
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1] ?? '', text: m[2] ?? '' }))
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => {
        resolve(port)
      })
    })
  })

/** An expected line or value of the README, where `…` stands for whatever the run made (an id). */
const pattern = (expected: string) => new RegExp(`^${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\S*…\S*/g, '\\S+')}$`)
const matches = (actual: unknown, expected: unknown): boolean => {
  if (typeof expected === 'string' && expected.includes('…')) return typeof actual === 'string' && pattern(expected).test(actual)
  if (typeof expected !== 'object' || expected === null) return actual === expected
  const a = actual as Record<string, unknown>
  return (
    Object.keys(expected).every((k) => matches(a[k], (expected as Record<string, unknown>)[k])) &&
    Object.keys(a).length === Object.keys(expected).length
  )
}

/** The JSON values printed one after the other (jq's pretty output), in order. */
const jsonValues = (text: string): unknown[] => {
  const values: unknown[] = []
  let depth = 0
  let from = -1
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '{') {
      if (depth === 0) from = i
      depth++
    } else if (text[i] === '}' && --depth === 0) values.push(JSON.parse(text.slice(from, i + 1)))
  }
  return values
}

/**
 * README's "Five minutes with Orka", run as written against a started server: its shell blocks
 * (all but the first, which starts the server: the test starts it the same way, on free ports and
 * its own data directory) run in one bash, and what they print is compared with the README's
 * output blocks; the webhooks the receiver got, with theirs. A README whose commands stop working,
 * or whose printed answers drift from the real ones, fails here.
 */
describe("README's five-minute walkthrough, run as written", function () {
  this.timeout(120_000)
  let orka: OrkaCluster
  let dir: string
  let url: string
  let receiverPort: number
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'orka-walkthrough-'))
    const start = walkthroughBlocks()[0]
    expect(start?.text.trim()).to.equal('WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true npm start')
    orka = spawnOrka({
      ...process.env,
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      PORT: String(await freePort()),
      DATA_DIR: join(dir, 'data'),
    })
    const listening = await orka.waitFor((l) => typeof l.url === 'string' && l.msg?.startsWith('Orka listening') === true, 'listening')
    url = String(listening.url)
    receiverPort = await freePort()
  })
  after(async () => {
    orka.child.kill('SIGTERM')
    await orka.exited
    rmSync(dir, { recursive: true, force: true })
  })

  it('mints a token, takes, captures and refunds a card payment, and receives its signed webhooks', async () => {
    const blocks = walkthroughBlocks()
    const script = blocks
      .slice(1)
      .filter((b) => b.lang === 'sh')
      .map((b) => b.text)
      .join('\n')
      .replaceAll('http://127.0.0.1:8080', url)
      .replaceAll('.data/dev-api-key.pem', join(dir, 'data', 'dev-api-key.pem'))
      .replaceAll('9000', String(receiverPort))
      .replaceAll('webhooks.log', join(dir, 'webhooks.log'))
    // README's reader has pnpm after `npm start`; where npm could not install it globally, the run script uses npx.
    const shim = join(dir, 'bin')
    mkdirSync(shim)
    writeFileSync(join(shim, 'pnpm'), `#!/bin/sh\nexec npx -y pnpm@${PNPM_VERSION} "$@"\n`, { mode: 0o755 })
    const path = hasPnpm() ? process.env.PATH : `${shim}:${process.env.PATH ?? ''}`
    const bash = spawn('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: REPO,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PATH: path },
    })
    let out = ''
    let err = ''
    bash.stdout.on('data', (d: Buffer) => (out += String(d)))
    bash.stderr.on('data', (d: Buffer) => (err += String(d)))
    // `exit`, not `close`: the receiver the script leaves in the background holds its stderr open.
    const code = await new Promise<number | null>((resolve) => bash.once('exit', resolve))
    try {
      expect(code, `${out}\n${err}`).to.equal(0)
      const printed = jsonValues(out)
      const expected = blocks.filter((b) => b.lang === 'json').flatMap((b) => jsonValues(b.text))
      expect(printed.length, out).to.equal(expected.length)
      printed.forEach((p, i) =>
        expect(matches(p, expected[i]), `${JSON.stringify(p)} against ${JSON.stringify(expected[i])}`).to.equal(true),
      )

      // Deliveries land within a second or so: wait until each line the README shows is there.
      const shown = (blocks.find((b) => b.lang === 'text')?.text ?? '').replaceAll('9000', String(receiverPort))
      const want = shown.trim().split('\n').map(pattern)
      const got = () => readFileSync(join(dir, 'webhooks.log'), 'utf8').trim().split('\n')
      for (let i = 0; i < 100 && !want.every((w) => got().some((l) => w.test(l))); i++) await new Promise((r) => setTimeout(r, 100))
      expect(want.filter((w) => !got().some((l) => w.test(l))).map(String), got().join('\n')).to.deep.equal([])
      expect(
        got().filter((l) => !want.some((w) => w.test(l))),
        'lines the README does not show',
      ).to.deep.equal([])
    } finally {
      // The receiver the script left running in the background, with the script's process group.
      try {
        process.kill(-(bash.pid ?? 0), 'SIGTERM')
      } catch {
        // gone already
      }
      bash.stdout.destroy()
      bash.stderr.destroy()
    }
  })

  it('serves the demo checkout and the API reference it points to', async () => {
    for (const path of ['/demo/checkout', '/docs']) {
      const r = await fetch(url + path)
      expect([path, r.status, r.headers.get('content-type')]).to.deep.equal([path, 200, 'text/html; charset=utf-8'])
    }
  })
})
