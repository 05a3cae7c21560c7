import { ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import http from 'node:http'
import { AddressInfo } from 'node:net'
import path from 'node:path'

/**
 * stripe-mock, the mock server Stripe publishes: it checks every request against Stripe's own
 * OpenAPI document and answers fixtures, keeping no state. Built once with the Go toolchain into
 * tools/stripe-mock/bin (cached there), started here on a free port.
 */
export const STRIPE_MOCK_VERSION = 'v0.203.0'

const root = (): string => {
  let dir = __dirname
  while (!existsSync(path.join(dir, 'pnpm-workspace.yaml'))) {
    const up = path.dirname(dir)
    if (up === dir) throw new Error('no pnpm-workspace.yaml above the tests')
    dir = up
  }
  return dir
}

/** The Go module stripe-mock was installed from: its embedded OpenAPI document and fixtures. */
export const stripeMockModule = (): string => {
  binary()
  const env = { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/local/go/bin` }
  const cache = spawnSync('go', ['env', 'GOMODCACHE'], { env, encoding: 'utf8' }).stdout.trim()
  return path.join(cache, 'github.com', 'stripe', `stripe-mock@${STRIPE_MOCK_VERSION}`, 'embedded', 'openapi')
}

const binary = (): string => {
  const bin = path.join(root(), 'tools', 'stripe-mock', 'bin')
  const file = path.join(bin, 'stripe-mock')
  if (existsSync(file)) return file
  const env = { ...process.env, GOBIN: bin, PATH: `${process.env.PATH ?? ''}:/usr/local/go/bin` }
  const r = spawnSync('go', ['install', `github.com/stripe/stripe-mock@${STRIPE_MOCK_VERSION}`], {
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  })
  if (r.status !== 0) throw new Error(`go install stripe-mock failed (${r.error?.message ?? `exit ${String(r.status)}`})`)
  return file
}

/** One request the connector sent, as stripe-mock answered it. */
export interface Exchange {
  readonly method: string
  readonly path: string
  readonly status: number
  readonly answer: string
}

export interface StripeMock {
  /** A recording proxy in front of stripe-mock: the base URL to give the connector. */
  readonly url: string
  readonly exchanges: Exchange[]
  close(): Promise<void>
}

/** An answer the proxy gives itself instead of stripe-mock's (for what a stateless mock cannot say). */
export type Intercept = (req: {
  readonly method: string
  readonly path: string
  readonly idempotencyKey: string | undefined
}) => { readonly status: number; readonly body: unknown } | undefined

/** Starts stripe-mock and a proxy that records each exchange with it. */
export const startStripeMock = async (intercept: Intercept = () => undefined): Promise<StripeMock> => {
  const child: ChildProcess = spawn(binary(), ['-http-addr', '127.0.0.1:0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    const seen = (chunk: Buffer) => {
      out += chunk.toString()
      const m = /Listening for HTTP at address: [^\s]*:(\d+)/.exec(out)
      if (m !== null) resolve(Number(m[1]))
    }
    child.stdout?.on('data', seen)
    child.stderr?.on('data', seen)
    child.once('exit', (code) => {
      reject(new Error(`stripe-mock exited (${String(code)}): ${out}`))
    })
  })
  const exchanges: Exchange[] = []
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const key = req.headers['idempotency-key']
      const own = intercept({
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0] ?? '',
        idempotencyKey: typeof key === 'string' ? key : undefined,
      })
      if (own !== undefined) {
        res.writeHead(own.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(own.body))
        return
      }
      const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = []
        answer.on('data', (c: Buffer) => parts.push(c))
        answer.on('end', () => {
          const body = Buffer.concat(parts)
          exchanges.push({
            method: req.method ?? '',
            path: (req.url ?? '').split('?')[0] ?? '',
            status: answer.statusCode ?? 0,
            answer: body.toString(),
          })
          res.writeHead(answer.statusCode ?? 502, { 'content-type': 'application/json' })
          res.end(body)
        })
      })
      up.end(Buffer.concat(chunks))
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port: proxyPort } = proxy.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(proxyPort)}`,
    exchanges,
    close: async () => {
      await new Promise<void>((resolve) =>
        proxy.close(() => {
          resolve()
        }),
      )
      child.kill('SIGTERM')
    },
  }
}
