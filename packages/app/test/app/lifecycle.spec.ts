import { expect } from 'chai'
import { spawn, ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken } from '../../src/mint-token'
import { readFileSync } from 'node:fs'

const main = join(__dirname, '..', '..', 'src', 'main.js')

/** Starts `main.js` on the embedded store and waits for its address. */
const startMain = async (env: Record<string, string> = {}) => {
  const dir = mkdtempSync(join(tmpdir(), 'orka-life-'))
  const child: ChildProcess = spawn(process.execPath, [main], {
    env: { ...process.env, MONGODB_URI: '', PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += String(d)))
  while (!out.includes('Orka listening')) await once(child.stdout!, 'data')
  const url = /Orka listening on (\S+)"/.exec(out)![1]!
  const token = mintToken(readFileSync(join(dir, 'dev-api-key.pem'), 'utf8'), { scopes: ['*.write'], expiresInS: 300 })
  return { child, url, token, output: () => out }
}

describe('process lifecycle', function () {
  this.timeout(20000)

  it('serves /healthz and /readyz without a token, and keeps them out of the info log', async () => {
    const s = await startMain()
    try {
      const health = await fetch(`${s.url}/healthz`)
      expect([health.status, await health.json()]).to.deep.equal([200, { status: 'ok' }])
      const ready = await fetch(`${s.url}/readyz`)
      expect([ready.status, await ready.json()]).to.deep.equal([200, { status: 'ready', storage: 'memory' }])
      await fetch(`${s.url}/roles`)
      // the child's stdout arrives after the response: wait for the line (bounded)
      for (let i = 0; i < 50 && !s.output().includes('"path":"/roles"'); i++) await new Promise((r) => setTimeout(r, 20))
      expect(s.output()).to.include('"path":"/roles"')
      expect(s.output()).not.to.include('"path":"/healthz"')
    } finally {
      s.child.kill('SIGKILL')
    }
  })

  it('on SIGTERM finishes the request in flight, refuses new connections, and exits 0', async () => {
    const s = await startMain()
    const slow = fetch(`${s.url}/gift-cards/activations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number: '6800000000000000009' }),
    })
    await new Promise((r) => setTimeout(r, 300))
    s.child.kill('SIGTERM')
    await new Promise((r) => setTimeout(r, 200))
    const refused = await fetch(`${s.url}/healthz`).then(
      () => 'answered',
      () => 'refused',
    )
    const res = await slow
    expect(res.status).to.equal(201)
    expect(((await res.json()) as { last4: string }).last4).to.equal('0009')
    expect(refused).to.equal('refused')
    const [code] = (await once(s.child, 'exit')) as [number | null]
    expect(code).to.equal(0)
    expect(s.output()).to.include('SIGTERM: finishing requests in flight, then stopping')
  })

  it('cuts a request that outlives SHUTDOWN_TIMEOUT_MS, and still exits 0', async () => {
    const s = await startMain({ SHUTDOWN_TIMEOUT_MS: '200', CONNECTOR_TIMEOUT_MS: '60000' })
    const hung = fetch(`${s.url}/gift-cards/activations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number: '6800000000000000504' }),
    }).then(
      (r) => r.status,
      () => 'cut',
    )
    await new Promise((r) => setTimeout(r, 200))
    s.child.kill('SIGTERM')
    const [code] = (await once(s.child, 'exit')) as [number | null]
    expect(code).to.equal(0)
    expect(await hung).to.equal('cut')
  })
})
