import { ChildProcess, spawn, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import path from 'node:path'
import { listening, recordingProxy } from './stand-in-process'

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
  const ready = await listening(child, 'stripe-mock', /Listening for HTTP at address: [^\s]*:(\d+)/)
  const exchanges: Exchange[] = []
  const proxy = await recordingProxy(
    Number(ready[1]),
    child,
    (x) => exchanges.push({ method: x.method, path: x.path, status: x.status, answer: x.answer.toString() }),
    (req) => {
      const key = req.headers['idempotency-key']
      return intercept({
        method: req.method ?? '',
        path: (req.url ?? '').split('?')[0] ?? '',
        idempotencyKey: typeof key === 'string' ? key : undefined,
      })
    },
  )
  return { url: proxy.url, exchanges, close: () => proxy.close() }
}
