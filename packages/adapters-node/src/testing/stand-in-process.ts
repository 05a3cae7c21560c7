import { ChildProcess } from 'node:child_process'
import http from 'node:http'
import { AddressInfo } from 'node:net'

/**
 * What a provider's stand-in (stripe-mock, Prism) prints once it listens: resolves with the match
 * of `ready`. What it printed before is kept for a failure to start, never after: from then on
 * its output is drained and dropped (it would echo requests, card numbers and all).
 */
export const listening = (child: ChildProcess, name: string, ready: RegExp): Promise<RegExpExecArray> =>
  new Promise((resolve, reject) => {
    let out = ''
    const seen = (chunk: Buffer) => {
      out += chunk.toString()
      const m = ready.exec(out)
      if (m === null) return
      child.stdout?.removeListener('data', seen)
      child.stderr?.removeListener('data', seen)
      child.stdout?.resume()
      child.stderr?.resume()
      out = ''
      resolve(m)
    }
    child.stdout?.on('data', seen)
    child.stderr?.on('data', seen)
    child.once('exit', (code) => {
      reject(new Error(`${name} exited (${String(code)}): ${out.slice(-2000)}`))
    })
  })

/** One request forwarded to the stand-in, and its answer. */
export interface Forwarded {
  readonly method: string
  readonly path: string
  readonly request: Buffer
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly answer: Buffer
}

/** An answer the proxy gives itself instead of the stand-in's (what a stateless mock cannot say). */
export type OwnAnswer = (req: http.IncomingMessage) => { readonly status: number; readonly body: unknown } | undefined

/**
 * A proxy on a free port in front of a stand-in listening on `port`: each exchange is handed to
 * `seen`, unless `own` answers the request itself. Closing it stops the stand-in too.
 */
export const recordingProxy = async (
  port: number,
  child: ChildProcess,
  seen: (x: Forwarded) => void,
  own: OwnAnswer = () => undefined,
): Promise<{ readonly url: string; close(): Promise<void> }> => {
  const proxy = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const mine = own(req)
      if (mine !== undefined) {
        res.writeHead(mine.status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(mine.body))
        return
      }
      const request = Buffer.concat(chunks)
      const up = http.request({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        const parts: Buffer[] = []
        answer.on('data', (c: Buffer) => parts.push(c))
        answer.on('end', () => {
          const body = Buffer.concat(parts)
          const status = answer.statusCode ?? 0
          seen({
            method: req.method ?? '',
            path: (req.url ?? '').split('?')[0] ?? '',
            request,
            status,
            headers: answer.headers,
            answer: body,
          })
          res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' })
          res.end(body)
        })
      })
      up.end(request)
    })
  })
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve))
  const { port: proxyPort } = proxy.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(proxyPort)}`,
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
