import { ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { AddressInfo, createServer } from 'node:net'
import path from 'node:path'
import { listening, recordingProxy } from './stand-in-process'

/**
 * Stoplight's Prism (`@stoplight/prism-cli`, a dev dependency), mocking a provider from its own
 * OpenAPI document: with `--errors`, a request the document does not allow (or without the
 * credentials its security scheme names) is answered 4xx with the violations in `sl-violations`;
 * one it allows gets the document's example answer. It keeps no state.
 */
export interface Prism {
  /** A recording proxy in front of Prism: the base URL to give the connector. */
  readonly url: string
  readonly exchanges: PrismExchange[]
  close(): Promise<void>
}

/** One request the connector sent, as Prism answered it. */
export interface PrismExchange {
  readonly method: string
  readonly path: string
  readonly status: number
  /** What Prism found wrong with the request (`sl-violations`), empty when the document allows it. */
  readonly violations: readonly string[]
  readonly request: unknown
  readonly answer: unknown
}

const prismBin = (): string => {
  const manifest = require.resolve('@stoplight/prism-cli/package.json')
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin: { prism: string } }).bin.prism
  return path.join(path.dirname(manifest), bin)
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo
      probe.close(() => {
        resolve(port)
      })
    })
  })

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

const violationsOf = (header: string | string[] | undefined): string[] => {
  if (typeof header !== 'string') return []
  const list = parsed(header)
  if (!Array.isArray(list)) return [header]
  return list.map((v) => {
    const message = (v as { message?: unknown } | null)?.message
    return typeof message === 'string' ? message : JSON.stringify(v)
  })
}

/** Starts Prism on `document` in its own process, on a free port, and a proxy that records each exchange. */
export const startPrism = async (document: string): Promise<Prism> => {
  const port = await freePort()
  const child: ChildProcess = spawn(process.execPath, [prismBin(), 'mock', document, '--errors', '-p', String(port), '-h', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  await listening(child, 'prism', /Prism is listening/)
  const exchanges: PrismExchange[] = []
  const proxy = await recordingProxy(port, child, (x) =>
    exchanges.push({
      method: x.method,
      path: x.path,
      status: x.status,
      violations: violationsOf(x.headers['sl-violations']),
      request: parsed(x.request.toString()),
      answer: parsed(x.answer.toString()),
    }),
  )
  return { url: proxy.url, exchanges, close: () => proxy.close() }
}
