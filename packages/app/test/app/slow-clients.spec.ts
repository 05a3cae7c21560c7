import { expect } from 'chai'
import { connect, Socket } from 'node:net'
import { Harness, startHarness } from '../support/harness'

/** A raw connection that sends `prefix` at once, then trickles `text` one byte every `everyMs`, and records how it ended. */
const trickle = (url: string, prefix: string, text: string, everyMs: number) => {
  const { hostname, port } = new URL(url)
  const socket: Socket = connect(Number(port), hostname, () => socket.write(prefix))
  const started = Date.now()
  let received = ''
  let sent = 0
  const timer = setInterval(() => {
    if (sent < text.length && !socket.destroyed) socket.write(text[sent++]!)
  }, everyMs)
  socket.on('data', (d: Buffer) => (received += String(d)))
  socket.on('error', () => undefined)
  const ended = new Promise<{ afterMs: number; received: string; sent: number }>((resolve) =>
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ afterMs: Date.now() - started, received, sent })
    }),
  )
  return { ended }
}

describe('slow clients', function () {
  this.timeout(20000)
  let h: Harness
  before(async () => {
    h = await startHarness({ env: { HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000', KEEP_ALIVE_TIMEOUT_MS: '500' } })
  })
  after(() => h.close())

  it('cuts a client that trickles its headers after HEADERS_TIMEOUT_MS, serving others meanwhile', async () => {
    const slow = trickle(h.url, '', 'GET /roles HTTP/1.1\r\nHost: x\r\nX-Padding: ' + 'a'.repeat(200), 100)
    const served = await h.request('GET', '/roles?limit=1')
    expect(served.status).to.equal(200)
    const end = await slow.ended
    // The timeout, plus at most the 1 s interval at which node checks it.
    expect(end.afterMs).to.be.within(900, 3500)
    expect(end.sent).to.be.below(60)
    if (end.received !== '')
      expect(end.received).to.match(/^HTTP\/1\.1 408 [\s\S]*\r\n\r\n\{"type":"error","code":"request_timeout","status":408/)
  })

  it('cuts a client that trickles its body after REQUEST_TIMEOUT_MS with a 408', async () => {
    const head = `POST /buyers HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${h.token()}\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n`
    const slow = trickle(h.url, head, '{"display_name":"' + 'b'.repeat(380) + '"}', 100)
    const served = await h.request('GET', '/roles?limit=1')
    expect(served.status).to.equal(200)
    const end = await slow.ended
    expect(end.afterMs).to.be.within(1500, 4500)
    expect(end.received).to.match(
      /^HTTP\/1\.1 408 [\s\S]*\r\n\r\n\{"type":"error","code":"request_timeout","status":408,"message":"Request timed out","details":\[\]\}$/,
    )
  })

  it('closes an idle kept-alive connection after KEEP_ALIVE_TIMEOUT_MS', async () => {
    const slow = trickle(h.url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '', 1000)
    const end = await slow.ended
    expect(end.received).to.match(/^HTTP\/1\.1 200 /)
    expect(end.afterMs).to.be.within(400, 2500)
  })
})
