import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { AddressInfo, createConnection, createServer, Server, Socket } from 'node:net'
import { connectMongo, MongoConnectOptions, MongoStore } from '../src/mongo-database'
import { MONGODB_URI } from './support'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * A TCP proxy in front of the test server that can be frozen (connections are still accepted,
 * as the kernel does for a SIGSTOPped process, but no byte moves either way until it thaws) or
 * taken down (every connection reset, new ones refused). Counts the connections it accepts.
 */
export class FreezingProxy {
  #server: Server | null = null
  #port = 0
  #frozen = false
  #resumes: (() => void)[] = []
  readonly #sockets = new Set<Socket>()
  accepted = 0

  constructor(
    readonly upstreamHost: string,
    readonly upstreamPort: number,
  ) {}

  get port(): number {
    return this.#port
  }

  async start(port = 0): Promise<void> {
    const server = createServer((client) => {
      this.#accept(client)
    })
    server.listen(port, '127.0.0.1')
    await once(server, 'listening')
    this.#server = server
    this.#port = (server.address() as AddressInfo).port
  }

  freeze(): void {
    this.#frozen = true
  }

  thaw(): void {
    this.#frozen = false
    for (const resume of this.#resumes.splice(0)) resume()
  }

  /** Resets every connection and stops listening: connections are refused until `start` again. */
  async down(): Promise<void> {
    const server = this.#server
    this.#server = null
    for (const s of this.#sockets) s.resetAndDestroy()
    if (server !== null) await new Promise((r) => server.close(r))
  }

  async stop(): Promise<void> {
    this.thaw()
    await this.down()
  }

  #accept(client: Socket): void {
    this.accepted++
    const upstream = createConnection({ host: this.upstreamHost, port: this.upstreamPort })
    for (const s of [client, upstream]) {
      this.#sockets.add(s)
      s.on('error', () => undefined)
      s.on('close', () => {
        this.#sockets.delete(s)
        client.destroy()
        upstream.destroy()
      })
    }
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (!this.#frozen) {
          to.write(chunk)
          return
        }
        // Frozen: hold this byte and everything after it until the thaw.
        from.pause()
        this.#resumes.push(() => {
          to.write(chunk)
          from.resume()
        })
      })
    forward(client, upstream)
    forward(upstream, client)
  }
}

export const upstreamOf = (uri: string): [string, number] => {
  const m = /^mongodb:\/\/([^/:,@]+):(\d+)\/?/.exec(uri)
  if (m === null) throw new Error(`this suite needs a plain mongodb://host:port/ URI, got another form`)
  return [m[1]!, Number(m[2])]
}

/** Polls `f` until it is true, returning how long it took, or fails after `ms`. */
export const eventually = async (what: string, ms: number, f: () => Promise<boolean>): Promise<number> => {
  const started = Date.now()
  for (;;) {
    if (await f()) return Date.now() - started
    if (Date.now() - started > ms) throw new Error(`${what}: not within ${ms} ms`)
    await sleep(100)
  }
}

/**
 * A store on a database of its own (indexes created) that reaches the test server through a
 * FreezingProxy. Skips the suite when the server's URI is not a plain host and port to proxy.
 */
export const startProxiedStore = async (
  suite: Mocha.Context,
  options: MongoConnectOptions,
): Promise<{ proxy: FreezingProxy; store: MongoStore; dbName: string }> => {
  let upstream: [string, number] | undefined
  try {
    upstream = upstreamOf(MONGODB_URI)
  } catch {
    suite.skip()
  }
  const proxy = new FreezingProxy(...upstream)
  await proxy.start()
  const dbName = `orka_test_${randomBytes(6).toString('hex')}`
  const store = await connectMongo(`mongodb://127.0.0.1:${proxy.port}/`, { dbName, serverSelectionTimeoutMS: 5000, ...options })
  await store.ensureIndexes()
  return { proxy, store, dbName }
}
