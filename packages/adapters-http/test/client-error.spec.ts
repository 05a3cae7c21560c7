import { createServer, IncomingMessage, Server, ServerOptions, ServerResponse } from 'node:http'
import { AddressInfo, connect, Socket } from 'node:net'
import { Duplex } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import Koa from 'koa'
import getRawBody from 'raw-body'
import { makeAuthorize, makeCheckRateLimit } from '@orka/domain'
import { clientErrorHandler, createHttpApp, HttpDeps, REQUEST_TIMEOUT_BODY } from '../src'
import type { OrkaState } from '../src/context'
import { accessLog } from '../src/middleware/access-log'
import { catchErrors } from '../src/middleware/catch-errors'
import { serializeError } from '../src/respond'
import {
  AdmitAll,
  CaptureLog,
  catalogueRoles,
  clockAtT0,
  FakeKeys,
  fakeMac,
  fakeMerchantAccounts,
  keyPair,
  LogLine,
  mint,
  newP521Key,
  T0,
  TestKey,
  useCasesWith,
  koaListener,
} from './support'

const BAD_REQUEST_BODY = '{"type":"error","code":"bad_request","status":400,"message":"Generic error","details":[]}'
const TIMEOUT_BODY = '{"type":"error","code":"request_timeout","status":408,"message":"Request timed out","details":[]}'
const SERVER_ERROR_BODY = '{"type":"error","code":"server_error","status":500,"message":"Request could not be processed","details":[]}'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

interface Exchange {
  /** Everything the server sent. */
  readonly raw: string
  readonly status: number | undefined
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** The server closed the connection (the client never does in these tests, unless told to). */
  readonly closedByServer: boolean
}

const parse = (raw: string, closedByServer: boolean): Exchange => {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) return { raw, status: undefined, headers: {}, body: '', closedByServer }
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const l of lines) {
    const i = l.indexOf(':')
    headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim()
  }
  return { raw, status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]), headers, body: raw.slice(end + 4), closedByServer }
}

/**
 * Opens a connection, lets `script` write to it, and collects what comes back until the server
 * closes it (or `giveUpMs` passes: then the client cuts it).
 */
const exchange = (port: number, script: (s: Socket) => void | Promise<void>, giveUpMs = 3000): Promise<Exchange> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let gaveUp = false
    const timer = setTimeout(() => {
      gaveUp = true
      socket.destroy()
    }, giveUpMs)
    socket.on('data', (c: Buffer) => chunks.push(c))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve(parse(Buffer.concat(chunks).toString('latin1'), !gaveUp))
    })
    void script(socket)
  })

/** Log lines arrive when the server sees the connection go, a moment after the client does. */
const settle = async (log: CaptureLog, until: (lines: readonly LogLine[]) => boolean = () => true): Promise<void> => {
  for (let i = 0; i < 100 && !until(log.lines); i++) await sleep(10)
  await sleep(30)
}

const without = (line: LogLine | undefined, ...keys: string[]): unknown => {
  if (!line) return undefined
  const o = Object.fromEntries(Object.entries(line.o).filter(([k]) => !keys.includes(k)))
  return { level: line.level, msg: line.msg, o }
}

/** The access log's line, without what changes from run to run. */
const accessLine = (log: CaptureLog): unknown =>
  without(
    log.lines.find((l) => l.msg === 'request'),
    'ms',
    'requestId',
  )

const startServer = async (
  handler: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  options: ServerOptions,
  log: CaptureLog | undefined,
) => {
  const server: Server = createServer(options, koaListener(handler))
  if (log) server.on('clientError', clientErrorHandler(log))
  server.listen(0, '127.0.0.1')
  await new Promise<void>((resolve) =>
    server.once('listening', () => {
      resolve()
    }),
  )
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => {
          resolve()
        })
      }),
  }
}

const unexpected = () => (): never => {
  throw new Error('not expected in this test')
}
const appDeps = (key: TestKey, log: CaptureLog): HttpDeps => {
  const clock = clockAtT0()
  return {
    keys: new FakeKeys(keyPair(key)),
    clock,
    mac: fakeMac,
    log,
    config: {
      merchantAccountHeader: 'x-orka-merchant-account-id',
      defaultMerchantAccountId: 'default',
      maxBodyBytes: 1024,
      tokenCacheSize: 10,
    },
    useCases: useCasesWith(unexpected, {
      authorize: makeAuthorize({ merchantAccounts: fakeMerchantAccounts('default'), roles: catalogueRoles }),
      checkRateLimit: makeCheckRateLimit({ store: new AdmitAll(), clock, config: { limit: 100, windowS: 60 } }),
    }),
  }
}

describe('malformed, slow and aborted requests', () => {
  let key: TestKey
  before(() => {
    key = newP521Key()
  })
  const activationHead = (extra: string[]) =>
    [
      'POST /gift-cards/activations HTTP/1.1',
      'Host: localhost',
      `Authorization: Bearer ${mint(key, { scopes: ['gift-cards.write'], exp: T0 + 60 })}`,
      'Content-Type: application/json',
      ...extra,
    ].join('\r\n') + '\r\n\r\n'
  const badChunk = () => `${activationHead(['Transfer-Encoding: chunked'])}5\r\n{"num\r\nzz\r\n{"4123455566667777"}\r\n`
  const errorLines = (log: CaptureLog) => log.lines.filter((l) => l.level === 'error')

  describe('with clientErrorHandler on the server (the full app)', () => {
    let log: CaptureLog
    let server: { port: number; close(): Promise<void> }
    beforeEach(async () => {
      log = new CaptureLog()
      server = await startServer(createHttpApp(appDeps(key, log)).callback(), {}, log)
    })
    afterEach(() => server.close())

    it('a bad chunk size in a chunked body: 400 envelope, connection closed, access log says 400, nothing at error', async () => {
      const r = await exchange(server.port, (s) => void s.write(badChunk()))
      expect(r.status).to.equal(400)
      expect(r.body).to.equal(BAD_REQUEST_BODY)
      expect(r.headers).to.deep.equal({
        'content-type': 'application/json; charset=utf-8',
        'content-length': `${BAD_REQUEST_BODY.length}`,
        connection: 'close',
      })
      expect(r.closedByServer).to.equal(true)
      await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
      expect(log.lines.find((l) => l.msg === 'client connection error')).to.deep.equal({
        level: 'warn',
        msg: 'client connection error',
        o: { code: 'HPE_INVALID_CHUNK_SIZE', status: 400 },
      })
      const access = log.lines.filter((l) => l.msg === 'request')
      expect(access).to.have.length(1)
      expect(without(access[0], 'ms', 'requestId')).to.deep.equal({
        level: 'info',
        msg: 'request',
        o: { method: 'POST', path: '/gift-cards/activations', status: 400, outcome: 'rejected' },
      })
      expect(access[0]!.o.requestId).to.match(UUID)
      expect(errorLines(log)).to.deep.equal([])
      expect(JSON.stringify(log.lines)).not.to.include('4123455566667777')
    })

    const parseErrors: readonly (readonly [string, string, string])[] = [
      ['an invalid header line', 'GET /roles HTTP/1.1\r\nHost: localhost\r\nThis is not a header\r\n\r\n', 'HPE_INVALID_HEADER_TOKEN'],
      [
        'a control character in a header value',
        'GET /roles HTTP/1.1\r\nHost: localhost\r\nX-Card: 4123\x014555\r\n\r\n',
        'HPE_INVALID_HEADER_TOKEN',
      ],
      ['a request line of garbage', '\x01\x02 4123455566667777 garbage\r\n\r\n', 'HPE_INVALID_METHOD'],
      ['a request line with an unknown method', 'HELLO 4123455566667777 WORLD\r\n\r\n', 'HPE_INVALID_METHOD'],
      ['a request line with a bad version', 'GET /roles HTTP/9.9\r\nHost: localhost\r\n\r\n', 'HPE_INVALID_VERSION'],
      [
        'headers over the size limit',
        `GET /roles HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'4123455566667777'.repeat(1500)}\r\n\r\n`,
        'HPE_HEADER_OVERFLOW',
      ],
    ]
    for (const [name, raw, code] of parseErrors)
      it(`${name}: 400 envelope, connection closed, one warn line with the code only`, async () => {
        const r = await exchange(server.port, (s) => void s.write(raw))
        expect(r.status).to.equal(400)
        expect(r.body).to.equal(BAD_REQUEST_BODY)
        expect(r.headers.connection).to.equal('close')
        expect(r.closedByServer).to.equal(true)
        await settle(log)
        expect(log.lines).to.deep.equal([{ level: 'warn', msg: 'client connection error', o: { code, status: 400 } }])
      })

    it('a client that sends half its body and half-closes: 400 envelope, access log rejected 400', async () => {
      const r = await exchange(server.port, async (s) => {
        s.write(`${activationHead(['Content-Length: 100'])}{"number":`)
        await sleep(100)
        s.end()
      })
      expect(r.status).to.equal(400)
      expect(r.body).to.equal(BAD_REQUEST_BODY)
      await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
      expect(log.lines.find((l) => l.msg === 'client connection error')).to.deep.equal({
        level: 'warn',
        msg: 'client connection error',
        o: { code: 'HPE_INVALID_EOF_STATE', status: 400 },
      })
      expect(accessLine(log)).to.deep.equal({
        level: 'info',
        msg: 'request',
        o: { method: 'POST', path: '/gift-cards/activations', status: 400, outcome: 'rejected' },
      })
      expect(errorLines(log)).to.deep.equal([])
    })

    it('a client that resets the connection mid-body: nothing answered, access log aborted, nothing at error', async () => {
      const r = await exchange(server.port, async (s) => {
        s.write(`${activationHead(['Content-Length: 100'])}{"number":`)
        await sleep(100)
        s.resetAndDestroy()
      })
      expect(r.raw).to.equal('')
      await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
      expect(log.lines.find((l) => l.msg === 'client connection error')).to.deep.equal({
        level: 'info',
        msg: 'client connection error',
        o: { code: 'ECONNRESET', status: null },
      })
      expect(accessLine(log)).to.deep.equal({
        level: 'info',
        msg: 'request',
        o: { method: 'POST', path: '/gift-cards/activations', status: null, outcome: 'aborted' },
      })
      expect(errorLines(log)).to.deep.equal([])
    })
  })

  describe('timeouts, with clientErrorHandler', () => {
    let log: CaptureLog
    let server: { port: number; close(): Promise<void> }
    beforeEach(async () => {
      log = new CaptureLog()
      server = await startServer(
        createHttpApp(appDeps(key, log)).callback(),
        { headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 25 },
        log,
      )
    })
    afterEach(() => server.close())

    it('headers too slow: 408 envelope, connection closed, one info line', async () => {
      const r = await exchange(server.port, (s) => void s.write('GET /roles HTTP/1.1\r\nHost: localhost\r\n'))
      expect(r.status).to.equal(408)
      expect(r.body).to.equal(TIMEOUT_BODY)
      expect(JSON.parse(r.body)).to.deep.equal(REQUEST_TIMEOUT_BODY)
      expect(r.headers).to.deep.equal({
        'content-type': 'application/json; charset=utf-8',
        'content-length': `${TIMEOUT_BODY.length}`,
        connection: 'close',
      })
      expect(r.closedByServer).to.equal(true)
      await settle(log)
      expect(log.lines).to.deep.equal([
        { level: 'info', msg: 'client connection error', o: { code: 'ERR_HTTP_REQUEST_TIMEOUT', status: 408 } },
      ])
    })

    it('a body too slow: 408 envelope, access log rejected 408', async () => {
      const r = await exchange(server.port, (s) => void s.write(`${activationHead(['Content-Length: 100'])}{"number":`))
      expect(r.status).to.equal(408)
      expect(r.body).to.equal(TIMEOUT_BODY)
      expect(r.closedByServer).to.equal(true)
      await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
      expect(log.lines.find((l) => l.msg === 'client connection error')).to.deep.equal({
        level: 'info',
        msg: 'client connection error',
        o: { code: 'ERR_HTTP_REQUEST_TIMEOUT', status: 408 },
      })
      expect(accessLine(log)).to.deep.equal({
        level: 'info',
        msg: 'request',
        o: { method: 'POST', path: '/gift-cards/activations', status: 408, outcome: 'rejected' },
      })
      expect(errorLines(log)).to.deep.equal([])
    })
  })

  describe("without clientErrorHandler (Node's own bare 400)", () => {
    let log: CaptureLog
    let server: { port: number; close(): Promise<void> }
    beforeEach(async () => {
      log = new CaptureLog()
      server = await startServer(createHttpApp(appDeps(key, log)).callback(), {}, undefined)
    })
    afterEach(() => server.close())

    it('a bad chunk size is a client fault below error, and the access log does not claim a 404', async () => {
      const r = await exchange(server.port, (s) => void s.write(badChunk()))
      expect(r.status).to.equal(400)
      expect(r.closedByServer).to.equal(true)
      await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
      expect(
        without(
          log.lines.find((l) => l.msg === 'client request error'),
          'requestId',
        ),
      ).to.deep.equal({
        level: 'warn',
        msg: 'client request error',
        o: { method: 'POST', status: null, err: { type: 'Error', code: 'HPE_INVALID_CHUNK_SIZE' } },
      })
      const access = log.lines.filter((l) => l.msg === 'request')
      expect(access).to.have.length(1)
      expect(without(access[0], 'ms', 'requestId')).to.deep.equal({
        level: 'info',
        msg: 'request',
        o: { method: 'POST', path: '/gift-cards/activations', status: null, outcome: 'rejected' },
      })
      expect(errorLines(log)).to.deep.equal([])
    })
  })

  describe('catchErrors: client faults that escape a body reader', () => {
    let log: CaptureLog
    let server: { port: number; close(): Promise<void> }
    let thrown: () => Error | undefined
    beforeEach(() => {
      log = new CaptureLog()
      thrown = () => undefined
    })
    afterEach(() => server.close())

    /** access log, catchErrors, then a route that reads the body with raw-body and lets its errors escape. */
    const start = async (opts: { handler: boolean; length?: number }) => {
      const app = new Koa<OrkaState>()
      app.use(accessLog(log))
      app.use(catchErrors(log))
      app.use(async (ctx) => {
        const e = thrown()
        if (e !== undefined) throw e
        const text = await getRawBody(ctx.req, {
          limit: 1024,
          encoding: 'utf-8',
          ...(opts.length === undefined ? {} : { length: opts.length }),
        })
        ctx.body = { length: text.length }
      })
      app.on('error', (err: unknown) => {
        log.error({ err: serializeError(err) }, 'http server error')
      })
      server = await startServer(app.callback(), {}, opts.handler ? log : undefined)
    }
    const post = (body: string) => `POST /upload HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n${body}`

    it('a raw-body error on a live connection (length mismatch): 400 envelope with Connection: close, logged at info', async () => {
      await start({ handler: true, length: 5 })
      const r = await exchange(server.port, (s) => void s.write(post('abc')))
      expect(r.status).to.equal(400)
      expect(r.body).to.equal(BAD_REQUEST_BODY)
      expect(r.headers.connection).to.equal('close')
      expect(r.headers['x-request-id']).to.match(UUID)
      expect(r.closedByServer).to.equal(true)
      await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
      const requestId = r.headers['x-request-id']
      expect(log.lines.map((l) => without(l, 'ms'))).to.deep.equal([
        {
          level: 'info',
          msg: 'client request error',
          o: { requestId, method: 'POST', status: 400, err: { type: 'BadRequestError', code: 'request.size.invalid' } },
        },
        { level: 'info', msg: 'request', o: { requestId, method: 'POST', path: '/upload', status: 400 } },
      ])
    })

    it('a malformed chunked body read by raw-body, no clientError handler: clean close, nothing at error', async () => {
      await start({ handler: false })
      const r = await exchange(
        server.port,
        (s) => void s.write('POST /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n'),
      )
      expect(r.status).to.equal(400)
      expect(r.closedByServer).to.equal(true)
      await settle(log, (ls) => ls.some((l) => l.msg === 'request') && ls.filter((l) => l.msg === 'client request error').length >= 2)
      expect(errorLines(log)).to.deep.equal([])
      expect(log.lines.filter((l) => l.msg === 'client request error').map((l) => without(l, 'requestId'))).to.deep.equal([
        {
          level: 'warn',
          msg: 'client request error',
          o: { method: 'POST', status: null, err: { type: 'Error', code: 'HPE_INVALID_CHUNK_SIZE' } },
        },
        {
          level: 'info',
          msg: 'client request error',
          o: { method: 'POST', status: null, err: { type: 'BadRequestError', code: 'ECONNABORTED' } },
        },
      ])
      expect(accessLine(log)).to.deep.equal({
        level: 'info',
        msg: 'request',
        o: { method: 'POST', path: '/upload', status: null, outcome: 'rejected' },
      })
    })

    it('a malformed chunked body read by raw-body, with the handler: 400 envelope, access log rejected 400', async () => {
      await start({ handler: true })
      const r = await exchange(
        server.port,
        (s) => void s.write('POST /upload HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\nzz\r\n'),
      )
      expect(r.status).to.equal(400)
      expect(r.body).to.equal(BAD_REQUEST_BODY)
      await settle(log, (ls) => ls.some((l) => l.msg === 'request') && ls.some((l) => l.msg === 'client request error'))
      expect(errorLines(log)).to.deep.equal([])
      expect(log.lines.map((l) => without(l, 'ms', 'requestId'))).to.deep.equal([
        { level: 'warn', msg: 'client connection error', o: { code: 'HPE_INVALID_CHUNK_SIZE', status: 400 } },
        { level: 'info', msg: 'request', o: { method: 'POST', path: '/upload', status: 400, outcome: 'rejected' } },
        {
          level: 'info',
          msg: 'client request error',
          o: { method: 'POST', status: null, err: { type: 'BadRequestError', code: 'ECONNABORTED' } },
        },
      ])
    })

    const escaped: readonly { name: string; error: () => Error; status: number; body: string; line: LogLine }[] = [
      {
        name: 'a parser error surfaced by the request stream',
        error: () => Object.assign(new Error('Parse Error: Invalid character in chunk size'), { code: 'HPE_INVALID_CHUNK_SIZE' }),
        status: 400,
        body: BAD_REQUEST_BODY,
        line: {
          level: 'warn',
          msg: 'client request error',
          o: { method: 'POST', status: 400, err: { type: 'Error', code: 'HPE_INVALID_CHUNK_SIZE' } },
        },
      },
      {
        name: 'a request timeout',
        error: () => Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
        status: 408,
        body: TIMEOUT_BODY,
        line: {
          level: 'info',
          msg: 'client request error',
          o: { method: 'POST', status: 408, err: { type: 'Error', code: 'ERR_HTTP_REQUEST_TIMEOUT' } },
        },
      },
      {
        name: 'an HTTP error for the client (expose, 413)',
        error: () =>
          Object.assign(new Error('request entity too large 4123455566667777'), {
            name: 'PayloadTooLargeError',
            status: 413,
            expose: true,
            type: 'entity.too.large',
          }),
        status: 400,
        body: BAD_REQUEST_BODY,
        line: {
          level: 'info',
          msg: 'client request error',
          o: { method: 'POST', status: 400, err: { type: 'PayloadTooLargeError', code: 'entity.too.large' } },
        },
      },
    ]
    for (const c of escaped)
      it(`${c.name}: ${c.status} envelope, logged below error with its code only`, async () => {
        await start({ handler: true })
        thrown = c.error
        const r = await exchange(server.port, (s) => void s.write(post('abc')))
        expect(r.status).to.equal(c.status)
        expect(r.body).to.equal(c.body)
        expect(r.headers.connection).to.equal('close')
        await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
        expect(log.lines.map((l) => without(l, 'ms', 'requestId'))).to.deep.equal([
          without(c.line),
          { level: 'info', msg: 'request', o: { method: 'POST', path: '/upload', status: c.status } },
        ])
        expect(JSON.stringify(log.lines)).not.to.include('4123455566667777')
      })

    const serverFaults: readonly { name: string; error: () => Error }[] = [
      {
        name: 'an ECONNRESET from a dependency while the client is still there',
        error: () => Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }),
      },
      { name: 'an "aborted" error while the client is still there', error: () => new Error('aborted') },
      {
        name: 'an error with a 4xx status not marked for the client',
        error: () => Object.assign(new Error('upstream said 404'), { status: 404 }),
      },
      {
        name: 'an HTTP error for the client with a 5xx status',
        error: () => Object.assign(new Error('bad gateway'), { status: 502, expose: true }),
      },
      {
        name: 'a programming error with an ERR_ code',
        error: () => Object.assign(new TypeError('bad arg'), { code: 'ERR_INVALID_ARG_TYPE' }),
      },
    ]
    for (const c of serverFaults)
      it(`stays a server fault: ${c.name} (500, error)`, async () => {
        await start({ handler: true })
        thrown = c.error
        const r = await exchange(server.port, (s) => void s.write(post('abc')), 500)
        expect(r.status).to.equal(500)
        expect(r.body).to.equal(SERVER_ERROR_BODY)
        await settle(log, (ls) => ls.some((l) => l.msg === 'request'))
        expect(log.lines.map((l) => `${l.level} ${l.msg}`)).to.deep.equal(['error unhandled exception', 'info request'])
        expect(log.lines[1]!.o.status).to.equal(500)
      })
  })

  describe('clientErrorHandler on its own', () => {
    class FakeSocket extends Duplex {
      written = ''
      inFlight: { headersSent: boolean } | null = null
      get _httpMessage() {
        return this.inFlight
      }
      override _read() {
        // Nothing to read: the tests only write to it.
      }
      override _write(chunk: Buffer, _enc: BufferEncoding, cb: () => void) {
        this.written += chunk.toString('latin1')
        cb()
      }
    }
    const parserError = () =>
      Object.assign(new Error('Parse Error: Invalid method encountered'), {
        code: 'HPE_INVALID_METHOD',
        rawPacket: Buffer.from('4123455566667777'),
      })

    it('writes nothing over a response that has started, and closes', () => {
      const log = new CaptureLog()
      const s = new FakeSocket()
      s.inFlight = { headersSent: true }
      clientErrorHandler(log)(parserError(), s)
      expect(s.written).to.equal('')
      expect(s.destroyed).to.equal(true)
      expect(log.lines).to.deep.equal([{ level: 'warn', msg: 'client connection error', o: { code: 'HPE_INVALID_METHOD', status: null } }])
    })

    it('writes nothing to a socket that cannot be written, and closes', () => {
      const log = new CaptureLog()
      const s = new FakeSocket()
      s.end()
      clientErrorHandler(log)(parserError(), s)
      expect(s.written).to.equal('')
      expect(s.destroyed).to.equal(true)
      expect(log.lines[0]!.o).to.deep.equal({ code: 'HPE_INVALID_METHOD', status: null })
    })

    it('answers a response not yet started, then closes', async () => {
      const log = new CaptureLog()
      const s = new FakeSocket()
      s.inFlight = { headersSent: false }
      clientErrorHandler(log)(parserError(), s)
      await sleep(10)
      expect(s.written).to.equal(
        `HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ` +
          `${BAD_REQUEST_BODY.length}\r\nConnection: close\r\n\r\n${BAD_REQUEST_BODY}`,
      )
      expect(s.destroyed).to.equal(true)
      expect(JSON.stringify(log.lines)).not.to.include('4123455566667777')
    })

    it('only closes a reset connection or one that failed otherwise, logging at info', () => {
      const log = new CaptureLog()
      for (const code of ['ECONNRESET', 'EPIPE']) {
        const s = new FakeSocket()
        clientErrorHandler(log)(Object.assign(new Error(code), { code }), s)
        expect(s.written).to.equal('')
        expect(s.destroyed).to.equal(true)
      }
      expect(log.lines).to.deep.equal([
        { level: 'info', msg: 'client connection error', o: { code: 'ECONNRESET', status: null } },
        { level: 'info', msg: 'client connection error', o: { code: 'EPIPE', status: null } },
      ])
    })
  })
})
