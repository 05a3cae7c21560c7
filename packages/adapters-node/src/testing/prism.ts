import { ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { AddressInfo, createServer } from 'node:net'
import path from 'node:path'

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
  await new Promise<void>((resolve, reject) => {
    // Only what Prism says before it listens is kept (for a failure to start): never a request.
    let out = ''
    const seen = (chunk: Buffer) => {
      out += chunk.toString()
      if (out.includes('Prism is listening')) {
        child.stdout?.removeListener('data', seen)
        child.stderr?.removeListener('data', seen)
        out = ''
        resolve()
      }
    }
    child.stdout?.on('data', seen)
    child.stderr?.on('data', seen)
    child.once('exit', (code) => {
      reject(new Error(`prism exited (${String(code)}): ${out.slice(-2000)}`))
    })
  })
  // Its output is drained and dropped from now on: it would echo the requests, card numbers and all.
  child.stdout?.resume()
  child.stderr?.resume()
  const exchanges: PrismExchange[] = []
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = []
        answer.on('data', (c: Buffer) => parts.push(c))
        answer.on('end', () => {
          const text = Buffer.concat(parts)
          exchanges.push({
            method: req.method ?? '',
            path: (req.url ?? '').split('?')[0] ?? '',
            status: answer.statusCode ?? 0,
            violations: violationsOf(answer.headers['sl-violations']),
            request: parsed(body.toString()),
            answer: parsed(text.toString()),
          })
          res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' })
          res.end(text)
        })
      })
      up.end(body)
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port: proxyPort } = proxy.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(proxyPort)}`,
    exchanges,
    close: async () => {
      proxy.closeAllConnections()
      await new Promise<void>((resolve) => {
        proxy.close(() => {
          resolve()
        })
      })
      if (child.exitCode !== null) return
      const exited = new Promise<void>((resolve) => {
        child.once('exit', () => {
          resolve()
        })
      })
      child.kill('SIGTERM')
      await exited
    },
  }
}
