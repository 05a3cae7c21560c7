import { createServer, IncomingHttpHeaders } from 'node:http'
import { once } from 'node:events'
import { AddressInfo } from 'node:net'

/** One request a receiver got. */
export interface Received {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface Answer {
  readonly status: number
  readonly body?: string
  readonly headers?: Record<string, string>
}

/** A webhook endpoint for tests: records every request and answers as told (204 by default; `'hang'`: never). */
export interface Receiver {
  readonly url: string
  readonly received: Received[]
  answer: (r: Received, n: number) => Answer | 'hang'
  close(): Promise<void>
}

export const startReceiver = async (answer: (r: Received, n: number) => Answer | 'hang' = () => ({ status: 204 })): Promise<Receiver> => {
  const received: Received[] = []
  const receiver = { received, answer } as Receiver
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      received.push(r)
      const a = receiver.answer(r, received.length)
      if (a === 'hang') return
      res.writeHead(a.status, a.headers ?? {})
      res.end(a.body ?? '')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as AddressInfo
  return Object.assign(receiver, {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  })
}

/** Polls until `check` returns a value other than undefined, or fails after `ms`. */
export const eventually = async <A>(check: () => A | undefined | Promise<A | undefined>, what: string, ms = 5000): Promise<A> => {
  const end = Date.now() + ms
  for (;;) {
    const a = await check()
    if (a !== undefined) return a
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

/** Resolves after `ms`: to show that nothing happens during a while. */
export const quietFor = (ms: number) => new Promise((r) => setTimeout(r, ms))
