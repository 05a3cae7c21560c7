import 'reflect-metadata'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import autocannon from 'autocannon'
import * as E from 'fp-ts/Either'
import pino from 'pino'
import { loadConfig } from '../src/config'
import { generateKeyPair } from '../src/dev-key'
import { mintToken } from '../src/mint-token'
import { startServer } from '../src/server'

/**
 * Throughput of the HTTP service on the embedded store, printed as figures (no assertions):
 * the cached-token path, fresh tokens (each an ES512 verification), and activations.
 * `BENCH_SECONDS` (default 5) and `BENCH_CONNECTIONS` (default 20) tune a run.
 */
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20)

const run = (title: string, o: autocannon.Options) =>
  new Promise<void>((resolve, reject) =>
    autocannon({ duration: seconds, connections, ...o }, (err, r) => {
      if (err) {
        reject(err instanceof Error ? err : new Error(String(err)))
        return
      }
      const non2xx = r.non2xx + r.errors
      console.log(
        `${title.padEnd(46)} ${String(Math.round(r.requests.average)).padStart(7)} req/s   ` +
          `p50 ${String(r.latency.p50).padStart(4)} ms   p99 ${String(r.latency.p99).padStart(4)} ms   non-2xx ${non2xx}`,
      )
      resolve()
    }),
  )

const main = async () => {
  const dir = mkdtempSync(join(tmpdir(), 'orka-bench-'))
  const key = generateKeyPair()
  writeFileSync(join(dir, 'seed.json'), JSON.stringify({ api_key_pairs: [{ public_key_pem: key.publicKeyPem }] }))
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', SEED_FILE: join(dir, 'seed.json'), DATA_DIR: dir, LOG_LEVEL: 'silent' })
  if (E.isLeft(config)) throw new Error(config.left.join('; '))
  const server = await startServer(config.right, { logger: pino({ level: 'silent' }) })
  const token = mintToken(key.privateKeyPem, { scopes: ['*.read', '*.write'], expiresInS: 600 })
  const fresh = Array.from({ length: 4000 }, () => mintToken(key.privateKeyPem, { scopes: ['roles.read'], expiresInS: 600 }))
  let next = 0
  let card = 0
  console.log(`Orka HTTP throughput, ${connections} connections, ${seconds} s per row, embedded store`)
  try {
    await run('GET /roles, one token (verification cached)', { url: `${server.url}/roles`, headers: { authorization: `Bearer ${token}` } })
    // Each token is used once (`amount`), so every request pays for a signature verification.
    await run(`GET /roles, ${fresh.length} fresh tokens (ES512 each)`, {
      url: `${server.url}/roles`,
      amount: fresh.length,
      requests: [
        { setupRequest: (req) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${fresh[next++ % fresh.length]}` } }) },
      ],
    })
    await run('POST /gift-cards/activations, store: false', {
      url: `${server.url}/gift-cards/activations`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      requests: [
        {
          setupRequest: (req) => ({
            ...req,
            body: JSON.stringify({ number: `41234555${String(card++).padStart(10, '0')}1`, amount: 500, currency: 'USD' }),
          }),
        },
      ],
    })
  } finally {
    await server.close()
  }
}

main().catch((e: unknown) => {
  console.error(e)
  process.exit(1)
})
