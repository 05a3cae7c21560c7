import { once } from 'node:events'
import { createConnection, createServer, Socket } from 'node:net'
import { NotMeasured } from './processes'

/**
 * A MongoDB-wire TCP proxy that counts what its clients send: one message is one round trip.
 * Orka runs in its own process, so its storage calls are counted from outside, between it and
 * the server. Each message is keyed by its command and collection (`insert transactions`), read
 * from the OP_MSG body: 16-byte header, opCode 2013, flagBits, then sections, the kind-0 one a
 * BSON document whose first key names the command and whose value names the collection.
 */
export interface WireCounter {
  /** The URI to connect through the proxy (one host, `directConnection=true`). */
  readonly uri: string
  /** Messages sent so far, by `command collection`. */
  counts(): Map<string, number>
  stop(): Promise<void>
}

const OP_MSG = 2013
const OP_COMPRESSED = 2012
const OP_QUERY = 2004

/** Length of a BSON value of `type` at `p`; undefined for a type this reader does not know. */
const valueLength = (b: Buffer, type: number, p: number): number | undefined => {
  switch (type) {
    case 0x01:
    case 0x09:
    case 0x11:
    case 0x12:
      return 8
    case 0x02:
    case 0x0d:
    case 0x0e:
      return 4 + b.readInt32LE(p)
    case 0x03:
    case 0x04:
      return b.readInt32LE(p)
    case 0x05:
      return 5 + b.readInt32LE(p)
    case 0x06:
    case 0x0a:
    case 0x7f:
    case 0xff:
      return 0
    case 0x07:
      return 12
    case 0x08:
      return 1
    case 0x10:
      return 4
    case 0x13:
      return 16
    default:
      return undefined
  }
}

/** The top-level keys of the BSON document at `start`, with each string value (others: undefined). */
function* elements(b: Buffer, start: number): Generator<{ readonly key: string; readonly text: string | undefined }> {
  const end = start + b.readInt32LE(start) - 1
  for (let p = start + 4; p < end;) {
    const type = b[p] ?? 0
    const keyEnd = b.indexOf(0, p + 1)
    if (keyEnd < 0) return
    const key = b.toString('utf8', p + 1, keyEnd)
    const v = keyEnd + 1
    yield { key, text: type === 0x02 ? b.toString('utf8', v + 4, v + 4 + b.readInt32LE(v) - 1) : undefined }
    const n = valueLength(b, type, v)
    if (n === undefined) return
    p = v + n
  }
}

/** `command collection` of one client message (`getMore` names its collection in `collection`). */
export const commandOf = (m: Buffer): string => {
  const opCode = m.readInt32LE(12)
  if (opCode === OP_COMPRESSED) return 'OP_COMPRESSED'
  if (opCode === OP_QUERY) return 'OP_QUERY'
  if (opCode !== OP_MSG) return `opCode ${opCode}`
  for (let p = 20; p < m.length;) {
    const kind = m[p]
    if (kind === 1) {
      p += 1 + m.readInt32LE(p + 1)
      continue
    }
    if (kind !== 0) break
    const [first, ...rest] = elements(m, p + 1)
    if (first === undefined) break
    const collection = first.key === 'getMore' ? rest.find((e) => e.key === 'collection')?.text : first.text
    return collection === undefined ? first.key : `${first.key} ${collection}`
  }
  return 'OP_MSG (unread)'
}

/** The one host of `uri`, and the URI to give through the proxy; NotMeasured for what cannot be proxied. */
const upstreamOf = (uri: string): { host: string; port: number; through(port: number): string } => {
  if (!uri.startsWith('mongodb://')) throw new NotMeasured(`counting round trips needs a mongodb:// URI, not ${uri.split(':')[0] ?? ''}`)
  if ((uri.split('/')[2] ?? '').includes(',')) throw new NotMeasured('counting round trips needs a one-host MONGODB_URI')
  const u = new URL(uri)
  return {
    host: u.hostname,
    port: Number(u.port || 27017),
    through: (port) => {
      u.host = `127.0.0.1:${port}`
      // Else a replica set's hello would send the driver to its members, around the proxy.
      u.searchParams.set('directConnection', 'true')
      return u.toString()
    },
  }
}

export const startWireCounter = async (upstreamUri: string): Promise<WireCounter> => {
  const target = upstreamOf(upstreamUri)
  const counts = new Map<string, number>()
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = createConnection({ host: target.host, port: target.port })
    sockets.add(client).add(upstream)
    let pending: Buffer = Buffer.alloc(0)
    client.on('data', (chunk: Buffer) => {
      upstream.write(chunk)
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      while (pending.length >= 16 && pending.length >= pending.readInt32LE(0)) {
        const key = commandOf(pending.subarray(0, pending.readInt32LE(0)))
        counts.set(key, (counts.get(key) ?? 0) + 1)
        pending = pending.subarray(pending.readInt32LE(0))
      }
    })
    upstream.pipe(client)
    const close = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('close', close).on('error', close)
    upstream.on('close', close).on('error', close)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    uri: target.through(port),
    counts: () => new Map(counts),
    stop: async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((r) => {
        server.close(() => {
          r()
        })
      })
    },
  }
}

/** What `after` counted beyond `before`, by key. */
export const difference = (after: Map<string, number>, before: Map<string, number>): Map<string, number> =>
  new Map([...after].map(([k, n]) => [k, n - (before.get(k) ?? 0)] as const).filter(([, n]) => n > 0))
