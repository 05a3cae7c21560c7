import { createServer, Server } from 'node:http'
import { AddressInfo, connect, Socket } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import { createHttpApp } from '../../src'
import { FakeKeys, keyPair, koaListener, mint, newP521Key, T0, TestKey } from '../support'
import { parseResponse, recordingDeps, UNAUTHORIZED_BODY } from './app-fixture'

const MiB = 1024 * 1024
const DECLARED = 50 * MiB
/** Far below the declared body: what sat in socket buffers when the 401 went out, at most. */
const READ_CAP = 1 * MiB

interface Upload {
  readonly response: Buffer
  readonly sent: number
  /** The server closed the connection before the client gave up. */
  readonly closedByServer: boolean
  /** Milliseconds from the start to the first response byte, and to the close. */
  readonly firstByteMs: number
  readonly closedMs: number
}

/**
 * Sends the head, then streams zeros towards a declared 50 MiB body, as fast as the socket takes
 * them or one chunk per `pauseMs`, until the server closes the connection or everything is sent
 * (then waits a little and gives up).
 */
const upload = (port: number, head: string, pauseMs: number): Promise<Upload> =>
  new Promise((resolve) => {
    const started = Date.now()
    let firstByteMs = -1
    const socket: Socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let sent = 0
    let closed = false as boolean // set by the `close` listener
    let gaveUp = false
    socket.on('data', (c: Buffer) => {
      if (firstByteMs < 0) firstByteMs = Date.now() - started
      chunks.push(c)
    })
    socket.on('error', () => undefined) // EPIPE / ECONNRESET once the server is gone: expected
    socket.on('close', () => {
      closed = true
      resolve({ response: Buffer.concat(chunks), sent, closedByServer: !gaveUp, firstByteMs, closedMs: Date.now() - started })
    })
    socket.write(`${head}\r\nContent-Type: application/json\r\nContent-Length: ${DECLARED}\r\n\r\n`)
    const chunk = Buffer.alloc(64 * 1024, 0x30)
    void (async () => {
      while (!closed && sent < DECLARED) {
        const ok = socket.write(chunk)
        sent += chunk.length
        if (!ok) await new Promise<void>((r) => (socket.once('drain', r), socket.once('close', r)))
        if (pauseMs > 0) await sleep(pauseMs)
      }
      if (closed) return
      await sleep(500)
      gaveUp = true
      socket.destroy()
    })()
  })

describe('a 401 answers without reading the request body, and closes the connection', () => {
  let key: TestKey
  before(() => {
    key = newP521Key()
  })

  let server: Server
  let port: number
  let serverSockets: Socket[]
  let calls: string[]
  beforeEach(async () => {
    const r = recordingDeps(new FakeKeys(keyPair(key)))
    calls = r.calls
    serverSockets = []
    server = createServer(koaListener(createHttpApp(r.deps).callback()))
    server.on('connection', (s: Socket) => serverSockets.push(s))
    server.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) =>
      server.once('listening', () => {
        resolve()
      }),
    )
    port = (server.address() as AddressInfo).port
  })
  afterEach(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      }),
  )

  const head = (authorization: string | undefined) =>
    [
      'POST /gift-cards/activations HTTP/1.1',
      'Host: localhost',
      ...(authorization === undefined ? [] : [`Authorization: ${authorization}`]),
    ].join('\r\n')

  const badSignature = () => `Bearer ${mint(newP521Key(), { scopes: ['gift-cards.write'], exp: T0 + 60 }, { keyid: key.thumbprint })}`

  const cases: readonly { name: string; authorization: () => string | undefined; pauseMs: number }[] = [
    { name: 'no token, body streamed as fast as the socket takes it', authorization: () => undefined, pauseMs: 0 },
    { name: 'a malformed token, body streamed as fast as the socket takes it', authorization: () => 'Bearer not.a.token', pauseMs: 0 },
    { name: 'a bad signature (checked on the thread pool), body streamed fast', authorization: badSignature, pauseMs: 0 },
    { name: 'a bad signature, body streamed slowly', authorization: badSignature, pauseMs: 5 },
  ]

  for (const c of cases) {
    it(c.name, async () => {
      const u = await upload(port, head(c.authorization()), c.pauseMs)
      const r = parseResponse(u.response)
      expect(r.status).to.equal(401)
      expect(r.body).to.equal(UNAUTHORIZED_BODY)
      expect(r.headers['www-authenticate']).to.equal('Bearer')
      expect(r.headers.connection).to.equal('close')
      expect(u.closedByServer, 'the connection was closed (by the server, or by the client on its end)').to.equal(true)
      // The 401 is there at once, while the upload is held back (not read) until the close.
      expect(u.firstByteMs).to.be.within(0, 1000)
      expect(u.sent, 'the client could not send the whole body').to.be.below(DECLARED)
      expect(serverSockets).to.have.length(1)
      const s = serverSockets[0]!
      // A paused socket does not see the client leave: it goes when the linger is over.
      for (let waited = 0; !s.destroyed && waited < 5000; waited += 50) await sleep(50)
      expect(s.destroyed, 'the server destroyed the socket').to.equal(true)
      expect(s.bytesRead, `server read ${s.bytesRead} bytes`).to.be.below(READ_CAP)
      expect(calls).to.deep.equal([])
    })
  }

  it('keeps the connection of an accepted request alive (only a 401 closes it)', async () => {
    const token = mint(key, { scopes: ['gift-cards.write'], exp: T0 + 60 })
    const res = await fetch(`http://127.0.0.1:${port}/gift-cards/activations`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ number: '4123456789010001' }),
    })
    expect(res.status).to.equal(201)
    await res.text()
    expect(res.headers.get('connection')).to.equal('keep-alive')
  })
})
