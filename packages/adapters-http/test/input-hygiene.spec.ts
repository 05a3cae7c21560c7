import { createServer, Server } from 'node:http'
import { AddressInfo, connect, Socket } from 'node:net'
import { PassThrough } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { Buyer, makeAuthorize, makeCheckRateLimit, notFound, Role, ROLE_CATALOGUE, unavailable } from '@orka/domain'
import { createHttpApp, HttpDeps } from '../src'
import { LINGER_MS } from '../src/close-connection'
import { readJsonBody, readOptionalJsonBody } from '../src/decode/json-body'
import { PAYMENT_METHOD_USE_CASES_UNUSED, PAYMENT_SERVICE_USE_CASES_UNUSED, TRANSACTION_USE_CASES_UNUSED } from './support'
import {
  aBuyer,
  aCard,
  AdmitAll,
  CaptureLog,
  catalogueRoles,
  clockAtT0,
  FakeKeys,
  fakeMac,
  fakeMerchantAccounts,
  keyPair,
  mint,
  newP521Key,
  pageOf,
  T0,
  TestKey,
  koaListener,
} from './support'

/**
 * Hostile input at the HTTP edge: characters no storage keeps as sent (NUL, lone surrogates,
 * bytes that are not UTF-8), client data in `loc`, repeated headers, oversized and malformed
 * bodies, and upper-case path ids.
 */

const roles = catalogueRoles
const merchantAccounts = fakeMerchantAccounts('default', 'other')
const buyer = aBuyer
const card = aCard
const page = pageOf
const EMPTY_PAGE = { items: [], limit: 20, next_cursor: null, previous_cursor: null }

/** What each use case was called with, in order (authorization: the merchant account id). */
type Call = readonly [string, unknown]

const makeDeps = (keys: FakeKeys, calls: Call[], log: CaptureLog, merchantAccountHeader: string): HttpDeps => {
  const clock = clockAtT0()
  const authorize = makeAuthorize({ merchantAccounts, roles })
  return {
    keys,
    clock,
    mac: fakeMac,
    log,
    config: { merchantAccountHeader, defaultMerchantAccountId: 'default', maxBodyBytes: 1024, tokenCacheSize: 10 },
    useCases: {
      ...TRANSACTION_USE_CASES_UNUSED,
      ...PAYMENT_METHOD_USE_CASES_UNUSED,
      ...PAYMENT_SERVICE_USE_CASES_UNUSED,
      authorize: (q) => {
        calls.push(['authorize', q.merchantAccountId])
        return authorize(q)
      },
      checkRateLimit: makeCheckRateLimit({ store: new AdmitAll(), clock, config: { limit: 1000, windowS: 60 } }),
      activateGiftCard: (cmd) => {
        calls.push(['activateGiftCard', { input: cmd.input, idempotencyKey: cmd.idempotencyKey }])
        return TE.right({ value: card, replayed: false })
      },
      storeGiftCard: (cmd) => {
        calls.push(['storeGiftCard', { input: cmd.input, idempotencyKey: cmd.idempotencyKey }])
        return TE.right({ value: card, replayed: false })
      },
      listGiftCards: (q) => {
        calls.push(['listGiftCards', q.filter])
        return TE.right(page([]))
      },
      getGiftCard: (q) => {
        calls.push(['getGiftCard', q.id])
        return TE.left(notFound('GiftCard', q.id))
      },
      deleteGiftCard: (q) => {
        calls.push(['deleteGiftCard', q.id])
        return TE.left(notFound('GiftCard', q.id))
      },
      checkBalances: (q) => {
        calls.push(['checkBalances', q.items])
        return TE.right({ items: [] })
      },
      listBuyerGiftCards: (q) => {
        calls.push(['listBuyerGiftCards', q.buyer])
        return TE.right({ items: [] })
      },
      listRoles: (q) => {
        calls.push(['listRoles', { limit: q.limit, cursor: q.cursor }])
        return TE.right(page<Role>([ROLE_CATALOGUE[0]!]))
      },
      createBuyer: (cmd) => {
        calls.push(['createBuyer', cmd.input])
        return TE.right(buyer)
      },
      listBuyers: (q) => {
        calls.push(['listBuyers', q.filter])
        return TE.right(page<Buyer>([]))
      },
      getBuyer: (q) => {
        calls.push(['getBuyer', q.id])
        return TE.left(notFound('Buyer', q.id))
      },
      updateBuyer: (q) => {
        calls.push(['updateBuyer', { id: q.id, input: q.input }])
        return TE.left(notFound('Buyer', q.id))
      },
      deleteBuyer: (q) => {
        calls.push(['deleteBuyer', q.id])
        return TE.left(notFound('Buyer', q.id))
      },
      createWebhookSubscription: (cmd) => {
        calls.push(['createWebhookSubscription', cmd.input])
        return TE.left(unavailable(new Error('not expected here')))
      },
      getWebhookSubscription: (q) => {
        calls.push(['getWebhookSubscription', q.id])
        return TE.left(notFound('WebhookSubscription', q.id))
      },
      listWebhookSubscriptions: () => {
        calls.push(['listWebhookSubscriptions', null])
        return TE.right(page([]))
      },
      deleteWebhookSubscription: (q) => {
        calls.push(['deleteWebhookSubscription', q.id])
        return TE.right(undefined)
      },
      updateWebhookSubscription: (q) => {
        calls.push(['updateWebhookSubscription', q.id])
        return TE.left(notFound('WebhookSubscription', q.id))
      },
      rotateWebhookSecret: (q) => {
        calls.push(['rotateWebhookSecret', { id: q.id, input: q.input }])
        return TE.left(notFound('WebhookSubscription', q.id))
      },
      listWebhookDeliveries: (q) => {
        calls.push(['listWebhookDeliveries', { subscriptionId: q.subscriptionId, filter: q.filter }])
        return TE.right(page([]))
      },
      redeliverWebhookDelivery: (q) => {
        calls.push(['redeliverWebhookDelivery', { subscriptionId: q.subscriptionId, deliveryId: q.deliveryId }])
        return TE.left(notFound('WebhookDelivery', q.deliveryId))
      },
      createCheckoutSession: (cmd) => {
        calls.push(['createCheckoutSession', cmd.input])
        return TE.left(unavailable(new Error('not expected here')))
      },
      getCheckoutSession: (q) => {
        calls.push(['getCheckoutSession', q.id])
        return TE.left(notFound('CheckoutSession', q.id))
      },
      updateCheckoutSession: (q) => {
        calls.push(['updateCheckoutSession', { id: q.id, input: q.input }])
        return TE.left(notFound('CheckoutSession', q.id))
      },
      deleteCheckoutSession: (q) => {
        calls.push(['deleteCheckoutSession', q.id])
        return TE.left(notFound('CheckoutSession', q.id))
      },
      putCheckoutSessionFields: (q) => {
        calls.push(['putCheckoutSessionFields', q.id])
        return TE.left(notFound('CheckoutSession', q.id))
      },
    },
  }
}

interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** Milliseconds from the first byte sent to the first byte of the answer. */
  readonly answeredAfterMs: number | undefined
}

const parseResponse = (raw: Buffer, answeredAfterMs: number | undefined): RawResponse => {
  const end = raw.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`)
  const [statusLine, ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1])
  const headers: Record<string, string> = {}
  for (const l of lines) {
    const i = l.indexOf(':')
    const name = l.slice(0, i).trim().toLowerCase()
    headers[name] = headers[name] === undefined ? l.slice(i + 1).trim() : `${headers[name]}, ${l.slice(i + 1).trim()}`
  }
  const length = Number(headers['content-length'] ?? 0)
  return { status, headers, body: raw.subarray(end + 4, end + 4 + length).toString('utf8'), answeredAfterMs }
}

interface Exchange {
  readonly response: Buffer
  readonly answeredAfterMs: number | undefined
  readonly sent: number
  readonly closedByServer: boolean
  readonly localPort: number
}

/**
 * Writes `head` (request line and header lines, without the blank line), the blank line, then
 * `body` parts: a Buffer or string is written as is, a number is a pause in ms, `'stream'`
 * streams zeros (one 64 KiB chunk per `pauseMs`) until `limit` bytes or the server closes.
 * Ends when the server closes the connection, or `giveUpMs` after the last write.
 */
const exchange = (
  port: number,
  head: string,
  body: readonly (Buffer | string | number | { stream: number; pauseMs: number })[] = [],
  giveUpMs = 1000,
): Promise<Exchange> =>
  new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let sent = 0
    let closed = false
    /** Set by the `close` listener, between the writes below. */
    const isClosed = () => closed
    let gaveUp = false
    let firstAnswerAt: number | undefined
    const started = Date.now()
    let localPort = 0
    socket.once('connect', () => (localPort = socket.localPort ?? 0))
    socket.on('data', (c: Buffer) => {
      firstAnswerAt ??= Date.now()
      chunks.push(c)
    })
    socket.on('error', () => undefined) // EPIPE / ECONNRESET once the server is gone: expected
    socket.on('close', () => {
      closed = true
      resolve({
        response: Buffer.concat(chunks),
        answeredAfterMs: firstAnswerAt === undefined ? undefined : firstAnswerAt - started,
        sent,
        closedByServer: !gaveUp,
        localPort,
      })
    })
    void (async () => {
      socket.write(`${head}\r\n\r\n`)
      for (const part of body) {
        if (isClosed()) return
        if (typeof part === 'number') await sleep(part)
        else if (typeof part === 'string' || Buffer.isBuffer(part)) {
          socket.write(part)
          sent += Buffer.byteLength(part)
        } else {
          const chunk = Buffer.alloc(64 * 1024, 0x30)
          while (!isClosed() && sent < part.stream) {
            const ok = socket.write(chunk)
            sent += chunk.length
            if (!ok) await new Promise<void>((r) => (socket.once('drain', r), socket.once('close', r)))
            if (part.pauseMs > 0) await sleep(part.pauseMs)
          }
        }
      }
      if (isClosed()) return
      await sleep(giveUpMs)
      if (isClosed()) return
      gaveUp = true
      socket.destroy()
    })()
  })

const MiB = 1024 * 1024
const NUL = { msg: 'String should not contain the NUL character (U+0000)', type: 'string_invalid_characters' }
const UNICODE = { msg: 'Input should be a valid string, unable to parse raw data as a unicode string', type: 'string_unicode' }
const REPEATED = { msg: 'Value error, the header must not be sent more than once', type: 'value_error' }
const TOO_LARGE = { detail: [{ loc: ['body'], msg: 'Request body must not exceed 1024 bytes', type: 'value_error' }] }
const NOT_UTF8 = { detail: [{ loc: ['body'], msg: 'Request body must be valid UTF-8', type: 'json_invalid' }] }
const SUBSCRIPTION_ID = 'ef9496d8-53a5-4aad-8ca2-00eb68334389'
const DELIVERY_ID = '5b0e8f7c-3a9d-4c1e-8f2b-6d7a9c0e1f23'
const N = '4111111111111111'

describe('input hygiene at the HTTP edge', () => {
  let key: TestKey
  before(() => {
    key = newP521Key()
  })

  let server: Server
  let url: string
  let port: number
  /** Each server-side socket with its peer's port, taken when it connected (a destroyed socket no longer knows it). */
  let serverSockets: { socket: Socket; peerPort: number | undefined }[]
  let calls: Call[]
  let log: CaptureLog
  const start = async (merchantAccountHeader = 'x-orka-merchant-account-id') => {
    calls = []
    log = new CaptureLog()
    serverSockets = []
    server = createServer(koaListener(createHttpApp(makeDeps(new FakeKeys(keyPair(key)), calls, log, merchantAccountHeader)).callback()))
    server.on('connection', (socket: Socket) => serverSockets.push({ socket, peerPort: socket.remotePort }))
    server.listen(0, '127.0.0.1')
    await new Promise<void>((resolve) =>
      server.once('listening', () => {
        resolve()
      }),
    )
    port = (server.address() as AddressInfo).port
    url = `http://127.0.0.1:${port}`
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => {
        resolve()
      })
    })
  beforeEach(() => start())
  afterEach(() => stop())

  const token = (scopes: string[]) => mint(key, { scopes, exp: T0 + 60 })
  const call = async (
    method: string,
    path: string,
    scopes: string[],
    init: { headers?: Record<string, string>; body?: string | Buffer } = {},
  ) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token(scopes)}`,
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...init.headers,
      },
      ...(init.body === undefined ? {} : { body: init.body }),
    })
    const text = await res.text()
    return { status: res.status, headers: res.headers, text, json: text === '' ? undefined : (JSON.parse(text) as unknown) }
  }
  /** Use cases reached other than authorization. */
  const reached = () => calls.filter(([name]) => name !== 'authorize')
  const serverSocketOf = (e: Exchange) => serverSockets.find((s) => s.peerPort === e.localPort)?.socket
  /** The server side of the exchange, once the server has closed it (within the linger time and a margin). */
  const closedServerSocket = async (e: Exchange): Promise<Socket> => {
    const s = serverSocketOf(e)
    if (s === undefined) throw new Error('no server socket for this exchange')
    if (!s.destroyed) await Promise.race([new Promise((r) => s.once('close', r)), sleep(LINGER_MS + 1000)])
    expect(s.destroyed, 'the server closed its socket').to.equal(true)
    return s
  }
  const unhandled = () => log.lines.filter((l) => l.msg === 'unhandled exception')

  describe('NUL and lone surrogates are refused everywhere the API reads a string', () => {
    const buyers = (body: string | Buffer) => call('POST', '/buyers', ['buyers.write'], { body })

    it('refuses NUL in a body string with 422, without echoing it', async () => {
      const r = await buyers('{"external_identifier":"ext\\u0000-1","display_name":"Jo"}')
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({ detail: [{ loc: ['body', 'external_identifier'], ...NUL }] })
      expect(reached()).to.deep.equal([])
    })

    it('refuses lone high and low surrogates from JSON escapes, so two of them never collide', async () => {
      for (const escaped of ['\\ud800', '\\udbff', 'x\\udc00', '\\ude00\\ud83d']) {
        const r = await buyers(`{"external_identifier":"${escaped}"}`)
        expect(r.status, escaped).to.equal(422)
        expect(r.json, escaped).to.deep.equal({ detail: [{ loc: ['body', 'external_identifier'], ...UNICODE }] })
      }
      expect(reached()).to.deep.equal([])
    })

    it('accepts surrogate pairs (an emoji), escaped or as UTF-8', async () => {
      expect((await buyers('{"display_name":"\\ud83d\\ude00"}')).status).to.equal(201)
      expect((await buyers(Buffer.from('{"display_name":"a😀b"}', 'utf8'))).status).to.equal(201)
      expect(reached()).to.deep.equal([
        ['createBuyer', { display_name: '😀' }],
        ['createBuyer', { display_name: 'a😀b' }],
      ])
    })

    it('refuses NUL in a nested billing field, a webhook url and a basic auth username', async () => {
      const b = await buyers('{"billing_details":{"address":{"city":"Ber\\u0000lin"}}}')
      expect(b.status).to.equal(422)
      expect(b.json).to.deep.equal({ detail: [{ loc: ['body', 'billing_details', 'address', 'city'], ...NUL }] })
      const w = await call('POST', '/webhook-subscriptions', ['webhook-subscriptions.write'], {
        body: '{"url":"https://hooks.test/a\\u0000","authentication":{"kind":"basic","username":"\\u0000","password":"p"}}',
      })
      expect(w.status).to.equal(422)
      expect(w.json).to.deep.equal({
        detail: [
          { loc: ['body', 'url'], ...NUL },
          { loc: ['body', 'authentication', 'username'], ...NUL },
        ],
      })
      expect(reached()).to.deep.equal([])
    })

    it('refuses NUL in the activation buyer_external_identifier', async () => {
      const r = await call('POST', '/gift-cards/activations', ['gift-cards.write'], {
        body: JSON.stringify({ number: N, pin: '1234', store: true, buyer_external_identifier: 'b\u0000' }),
      })
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({ detail: [{ loc: ['body', 'buyer_external_identifier'], ...NUL }] })
      expect(reached()).to.deep.equal([])
    })

    it('refuses NUL in a query value', async () => {
      const r = await call('GET', '/buyers?external_identifier=%00', ['buyers.read'])
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({ detail: [{ loc: ['query', 'external_identifier'], ...NUL }] })
      const c = await call('GET', '/roles?cursor=abc%00', ['roles.read'])
      expect(c.status).to.equal(422)
      expect(c.json).to.deep.equal({ detail: [{ loc: ['query', 'cursor'], ...NUL }] })
      expect(reached()).to.deep.equal([])
    })

    for (const [name, escaped] of [
      ['a byte that is never UTF-8', '%FF'],
      ['an encoded surrogate', '%ED%A0%80'],
      ['an overlong NUL', '%C0%80'],
      ['a truncated sequence', 'ab%E2%82'],
      ['a lone continuation byte', '%80'],
    ] as const)
      it(`refuses a query value that is not UTF-8 once percent-decoded: ${name}`, async () => {
        const r = await call('GET', `/buyers?external_identifier=${escaped}`, ['buyers.read'])
        expect(r.status).to.equal(422)
        expect(r.json).to.deep.equal({ detail: [{ loc: ['query', 'external_identifier'], ...UNICODE }] })
        expect(reached()).to.deep.equal([])
      })

    it('reports a query value that is not UTF-8 with the other query faults, and for limit and status too', async () => {
      const both = await call('GET', '/buyers?external_identifier=%FF&limit=0', ['buyers.read'])
      expect(both.status).to.equal(422)
      expect(both.json).to.deep.equal({
        detail: [
          { loc: ['query', 'external_identifier'], ...UNICODE },
          {
            loc: ['query', 'limit'],
            msg: 'Input should be greater than or equal to 1',
            type: 'greater_than_equal',
            input: 0,
            ctx: { ge: 1 },
          },
        ],
      })
      const limit = await call('GET', '/roles?limit=%FF', ['roles.read'])
      expect(limit.json).to.deep.equal({ detail: [{ loc: ['query', 'limit'], ...UNICODE }] })
      const status = await call('GET', `/webhook-subscriptions/${SUBSCRIPTION_ID}/deliveries?status=fail%FFed`, [
        'webhook-subscriptions.read',
      ])
      expect(status.json).to.deep.equal({ detail: [{ loc: ['query', 'status'], ...UNICODE }] })
      expect(reached()).to.deep.equal([])
    })

    it('accepts UTF-8 text in a query, a literal % and a bad value in a parameter it does not read', async () => {
      const r = await call('GET', '/buyers?external_identifier=%F0%9F%98%80&colour=%FF', ['buyers.read'])
      expect(r.status).to.equal(200)
      const pct = await call('GET', '/buyers?external_identifier=100%25+%zz', ['buyers.read'])
      expect(pct.status).to.equal(200)
      expect(reached()).to.deep.equal([
        ['listBuyers', { external_identifier: '😀' }],
        ['listBuyers', { external_identifier: '100% %zz' }],
      ])
    })

    it('refuses a header value with NUL before the app sees it (the HTTP parser answers 400)', async () => {
      const e = await exchange(
        port,
        [
          'GET /roles HTTP/1.1',
          'Host: x',
          `Authorization: Bearer ${token(['roles.read'])}`,
          'x-orka-merchant-account-id: def\u0000ault',
        ].join('\r\n'),
      )
      expect(parseResponse(e.response, e.answeredAfterMs).status).to.equal(400)
      expect(calls).to.deep.equal([])
    })
  })

  describe('a JSON body that is not UTF-8', () => {
    const cases: readonly [string, number[]][] = [
      ['a byte that is never UTF-8', [0xff]],
      ['an encoded surrogate (CESU-8)', [0xed, 0xa0, 0x80]],
      ['an overlong encoding', [0xc0, 0xaf]],
      ['a truncated sequence', [0xe2, 0x82]],
      ['a lone continuation byte', [0x80]],
    ]
    for (const [name, bytes] of cases)
      it(`is a 422 on the body, echoing nothing: ${name}`, async () => {
        const body = Buffer.concat([Buffer.from('{"display_name":"J'), Buffer.from(bytes), Buffer.from('o"}')])
        const r = await call('POST', '/buyers', ['buyers.write'], { body })
        expect(r.status).to.equal(422)
        expect(r.json).to.deep.equal(NOT_UTF8)
        expect(reached()).to.deep.equal([])
      })

    it('still accepts a body with a UTF-8 byte order mark', async () => {
      const r = await call('POST', '/buyers', ['buyers.write'], {
        body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"display_name":"Jö"}')]),
      })
      expect(r.status).to.equal(201)
      expect(reached()).to.deep.equal([['createBuyer', { display_name: 'Jö' }]])
    })
  })

  describe('loc never echoes a property name that could be a card number or PIN', () => {
    it('replaces an all-digit unknown property with a placeholder string', async () => {
      const r = await call('POST', '/gift-cards/activations', ['gift-cards.write'], { body: `{"number":"${N}","${N}":"1234"}` })
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [{ loc: ['body', '<property>'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }],
      })
      expect(r.text).not.to.include('4111').and.not.to.include('1234')
    })

    it('keeps a plain identifier, and integers for array positions only', async () => {
      const r = await call('POST', '/buyers', ['buyers.write'], { body: '{"nickname":"x","billing_details":{"0":1,"tax id":2}}' })
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [
          { loc: ['body', 'nickname'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
          { loc: ['body', 'billing_details', '<property>'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        ],
      })
    })
  })

  describe('a header the API reads may be sent once only', () => {
    const head = (lines: string[], scopes = ['roles.read'], request = 'GET /roles HTTP/1.1') =>
      [request, 'Host: x', `Authorization: Bearer ${token(scopes)}`, ...lines, 'Connection: close'].join('\r\n')

    for (const [name, lines] of [
      ['the same value twice', ['x-orka-merchant-account-id: default', 'x-orka-merchant-account-id: default']],
      ['two values, names in another case', ['X-Orka-Merchant-Account-Id: default', 'x-orka-merchant-account-id: other']],
    ] as const)
      it(`refuses the merchant account header sent twice (${name}) with 422, before authorization`, async () => {
        const e = await exchange(port, head([...lines]))
        const r = parseResponse(e.response, e.answeredAfterMs)
        expect(r.status).to.equal(422)
        expect(JSON.parse(r.body)).to.deep.equal({ detail: [{ loc: ['header', 'x-orka-merchant-account-id'], ...REPEATED }] })
        expect(calls).to.deep.equal([])
      })

    it('accepts it once', async () => {
      const e = await exchange(port, head(['X-Orka-Merchant-Account-Id: other']))
      expect(parseResponse(e.response, e.answeredAfterMs).status).to.equal(200)
      expect(calls[0]).to.deep.equal(['authorize', 'other'])
    })

    it('refuses the configured merchant account header name, whatever it is, sent twice', async () => {
      await stop()
      await start('x-acme-account')
      const e = await exchange(port, head(['X-Acme-Account: default', 'x-acme-account: default']))
      const r = parseResponse(e.response, e.answeredAfterMs)
      expect(r.status).to.equal(422)
      expect(JSON.parse(r.body)).to.deep.equal({ detail: [{ loc: ['header', 'x-acme-account'], ...REPEATED }] })
      // The default name is then just another header.
      const other = await exchange(port, head(['x-orka-merchant-account-id: a', 'x-orka-merchant-account-id: b']))
      expect(parseResponse(other.response, other.answeredAfterMs).status).to.equal(200)
    })

    it('refuses idempotency-key sent twice with 422, and takes a single value with a comma as it is', async () => {
      const body = JSON.stringify({ number: N })
      const activation = (lines: string[]) =>
        exchange(
          port,
          head(
            [...lines, 'Content-Type: application/json', `Content-Length: ${body.length}`],
            ['gift-cards.write'],
            'POST /gift-cards/activations HTTP/1.1',
          ),
          [body],
        )
      const twice = await activation(['idempotency-key: k-1', 'Idempotency-Key: k-1'])
      const r = parseResponse(twice.response, twice.answeredAfterMs)
      expect(r.status).to.equal(422)
      expect(JSON.parse(r.body)).to.deep.equal({ detail: [{ loc: ['header', 'idempotency-key'], ...REPEATED }] })
      expect(reached()).to.deep.equal([])
      const once = await activation(['idempotency-key: k-1, k-2'])
      expect(parseResponse(once.response, once.answeredAfterMs).status).to.equal(201)
      expect(reached()).to.deep.equal([['activateGiftCard', { input: { number: N }, idempotencyKey: 'k-1, k-2' }]])
    })
  })

  describe('a body declared larger than the cap is refused unread, and the connection closed', () => {
    const DECLARED = 50 * MiB
    const post = (path: string, contentLength: string, scopes: string[]) =>
      [
        `POST ${path} HTTP/1.1`,
        'Host: x',
        `Authorization: Bearer ${token(scopes)}`,
        'Content-Type: application/json',
        `Content-Length: ${contentLength}`,
      ].join('\r\n')

    it('answers a 50 MiB declared body, streamed slowly, at once with 422, reading almost none of it', async () => {
      const e = await exchange(port, post('/buyers', `${DECLARED}`, ['buyers.write']), [{ stream: DECLARED, pauseMs: 5 }], 500)
      const r = parseResponse(e.response, e.answeredAfterMs)
      expect(r.status).to.equal(422)
      expect(JSON.parse(r.body)).to.deep.equal(TOO_LARGE)
      expect(r.headers.connection).to.equal('close')
      expect(e.answeredAfterMs, 'answered promptly').to.be.below(1500)
      expect(e.closedByServer, 'the server closed the connection').to.equal(true)
      expect(e.sent).to.be.below(DECLARED)
      const s = await closedServerSocket(e)
      expect(s.bytesRead, `server read ${s.bytesRead} bytes`).to.be.below(1 * MiB)
      expect(reached()).to.deep.equal([])
    })

    it('is not fooled by a Content-Length beyond 32 bits, nor by an optional body', async () => {
      for (const [path, scopes] of [
        ['/buyers', ['buyers.write']],
        [`/webhook-subscriptions/${SUBSCRIPTION_ID}/rotate-secret`, ['webhook-subscriptions.write']],
      ] as const) {
        // 2^32 + 1 and 2^32: a 32-bit truncation would read them as 1 and 0 (no body).
        for (const length of ['4294967297', '4294967296']) {
          const e = await exchange(port, post(path, length, [...scopes]), ['{', { stream: 4 * MiB, pauseMs: 5 }], 500)
          const r = parseResponse(e.response, e.answeredAfterMs)
          expect(r.status, `${path} ${length}`).to.equal(422)
          expect(JSON.parse(r.body)).to.deep.equal(TOO_LARGE)
          expect(e.closedByServer).to.equal(true)
          expect((await closedServerSocket(e)).bytesRead).to.be.below(1 * MiB)
        }
      }
      expect(reached()).to.deep.equal([])
    })

    it('refuses a chunked body that grows over the cap with 422 and closes the connection', async () => {
      const chunk = `200\r\n${'a'.repeat(0x200)}\r\n`
      const head = [
        `POST /buyers HTTP/1.1`,
        'Host: x',
        `Authorization: Bearer ${token(['buyers.write'])}`,
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      ].join('\r\n')
      const e = await exchange(port, head, [chunk, chunk, chunk, 50, chunk])
      const r = parseResponse(e.response, e.answeredAfterMs)
      expect(r.status).to.equal(422)
      expect(JSON.parse(r.body)).to.deep.equal(TOO_LARGE)
      expect(r.headers.connection).to.equal('close')
      expect(e.closedByServer).to.equal(true)
      expect(reached()).to.deep.equal([])
    })
  })

  describe('a malformed or aborted body never becomes an unhandled exception', () => {
    const chunked = () =>
      [
        `POST /buyers HTTP/1.1`,
        'Host: x',
        `Authorization: Bearer ${token(['buyers.write'])}`,
        'Content-Type: application/json',
        'Transfer-Encoding: chunked',
      ].join('\r\n')
    /** A parse fault ends the connection with the HTTP parser's own bare 400; the app must not crash on the torn request. */
    const expectParserRefusal = (e: Exchange) => {
      const r = parseResponse(e.response, e.answeredAfterMs)
      expect(r.status).to.equal(400)
      expect(r.headers.connection).to.equal('close')
      expect(e.closedByServer).to.equal(true)
    }

    it('a bad chunk size sent with the head', async () => {
      expectParserRefusal(await exchange(port, chunked(), ['zz\r\n{}\r\n0\r\n\r\n']))
      await sleep(100)
      expect(unhandled()).to.deep.equal([])
      expect(reached()).to.deep.equal([])
    })

    it('a bad chunk size after a good chunk, while the body is being read', async () => {
      expectParserRefusal(await exchange(port, chunked(), ['2\r\n{"\r\n', 150, 'xyz\r\n']))
      await sleep(100)
      expect(unhandled()).to.deep.equal([])
      expect(reached()).to.deep.equal([])
    })

    it('a client that goes away in the middle of the body', async () => {
      const head = [
        `POST /buyers HTTP/1.1`,
        'Host: x',
        `Authorization: Bearer ${token(['buyers.write'])}`,
        'Content-Type: application/json',
        'Content-Length: 100',
      ].join('\r\n')
      const socket = connect(port, '127.0.0.1')
      socket.on('error', () => undefined)
      socket.write(`${head}\r\n\r\n{"display_name":`)
      await sleep(150)
      socket.destroy()
      await sleep(150)
      expect(unhandled()).to.deep.equal([])
      expect(reached()).to.deep.equal([])
    })
  })

  describe('readJsonBody maps every failure of the body stream to a 422', () => {
    /** Just enough of a Koa context around a stream standing in for the request. */
    const fakeCtx = (req: PassThrough, headers: Record<string, string>) => {
      Object.assign(req, { headers, httpVersionMajor: 1, socket: { destroyed: true } })
      const ctx = {
        req,
        res: {},
        headerSent: false,
        request: { type: 'application/json' },
        get: (n: string) => headers[n] ?? '',
        set: () => undefined,
      }
      return ctx as unknown as Parameters<typeof readJsonBody>[0]
    }
    const read = (req: PassThrough, headers: Record<string, string> = { 'content-length': '100' }) =>
      Promise.race([readJsonBody(fakeCtx(req, headers), 1024), sleep(2000).then(() => 'still waiting')])
    const left = (msg: string) => ({ _tag: 'Left', left: [{ loc: ['body'], msg, type: 'value_error' }] })

    it('a stream that closes without end, error or aborted (raw-body alone would wait forever)', async () => {
      const req = new PassThrough()
      const r = read(req)
      req.write('{"a":')
      await sleep(20)
      req.destroy()
      expect(await r).to.deep.equal(left('Request body was not received completely'))
    })

    it('an error of the stream itself', async () => {
      const req = new PassThrough()
      const r = read(req)
      await sleep(20)
      req.destroy(Object.assign(new Error('Parse Error: Invalid character in chunk size'), { code: 'HPE_INVALID_CHUNK_SIZE' }))
      expect(await r).to.deep.equal(left('Request body could not be read'))
    })

    it('a stream destroyed before it is read', async () => {
      const req = new PassThrough()
      req.destroy()
      await sleep(5)
      expect(await read(req)).to.deep.equal(left('Request body could not be read'))
    })

    it('a stream that ends short of its Content-Length', async () => {
      const req = new PassThrough()
      const r = read(req)
      req.end('{}')
      expect(await r).to.deep.equal(left('Request body length does not match Content-Length'))
    })

    it('an optional body sent chunked with no bytes reads as absent; a required one is missing', async () => {
      const optional = new PassThrough()
      const r = readOptionalJsonBody(fakeCtx(optional, { 'transfer-encoding': 'chunked', 'content-type': 'application/json' }), 1024, {})
      optional.end()
      expect(await r).to.deep.equal({ _tag: 'Right', right: {} })
      const required = new PassThrough()
      const q = read(required, { 'transfer-encoding': 'chunked' })
      required.end()
      expect(await q).to.deep.equal({ _tag: 'Left', left: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] })
    })

    it('a stream that goes on past the cap without a Content-Length', async () => {
      const req = new PassThrough()
      const r = read(req, { 'transfer-encoding': 'chunked' })
      req.write(Buffer.alloc(1025, 0x20))
      expect(await r).to.deep.equal(left('Request body must not exceed 1024 bytes'))
    })
  })

  describe('path ids are UUIDs compared case-insensitively', () => {
    const UPPER = SUBSCRIPTION_ID.toUpperCase()
    const MIXED = 'Ef9496D8-53a5-4AAD-8ca2-00EB68334389'

    it('hands the use cases the lower-case id for every route with a path id', async () => {
      const read = ['webhook-subscriptions.read']
      const write = ['webhook-subscriptions.write']
      expect((await call('GET', `/webhook-subscriptions/${UPPER}`, read)).status).to.equal(404)
      expect((await call('DELETE', `/webhook-subscriptions/${MIXED}`, write)).status).to.equal(204)
      expect((await call('PUT', `/webhook-subscriptions/${UPPER}`, write, { body: '{"active":false}' })).status).to.equal(404)
      expect((await call('POST', `/webhook-subscriptions/${UPPER}/rotate-secret`, write)).status).to.equal(404)
      const deliveries = await call('GET', `/webhook-subscriptions/${UPPER}/deliveries`, read)
      expect(deliveries.json).to.deep.equal(EMPTY_PAGE)
      const redeliver = `/webhook-subscriptions/${UPPER}/deliveries/${DELIVERY_ID.toUpperCase()}/redeliver`
      expect((await call('POST', redeliver, write)).status).to.equal(404)
      const session = `/checkout/sessions/${SUBSCRIPTION_ID.toUpperCase()}`
      expect((await call('GET', session, ['checkout-sessions.read'])).status).to.equal(404)
      expect((await call('PUT', session, ['checkout-sessions.write'], { body: '{}' })).status).to.equal(404)
      expect((await call('DELETE', session, ['checkout-sessions.write'])).status).to.equal(404)
      const fields = '{"payment_method":{"method":"card","number":"4111111111111111","expiration_date":"12/35"}}'
      expect((await call('PUT', `${session}/fields`, ['checkout-sessions.write'], { body: fields })).status).to.equal(404)
      expect(reached()).to.deep.equal([
        ['getWebhookSubscription', SUBSCRIPTION_ID],
        ['deleteWebhookSubscription', SUBSCRIPTION_ID],
        ['updateWebhookSubscription', SUBSCRIPTION_ID],
        ['rotateWebhookSecret', { id: SUBSCRIPTION_ID, input: {} }],
        ['listWebhookDeliveries', { subscriptionId: SUBSCRIPTION_ID, filter: {} }],
        ['redeliverWebhookDelivery', { subscriptionId: SUBSCRIPTION_ID, deliveryId: DELIVERY_ID }],
        ['getCheckoutSession', SUBSCRIPTION_ID],
        ['updateCheckoutSession', { id: SUBSCRIPTION_ID, input: {} }],
        ['deleteCheckoutSession', SUBSCRIPTION_ID],
        ['putCheckoutSessionFields', SUBSCRIPTION_ID],
      ])
    })

    it('still refuses what is not a UUID, echoing it as sent', async () => {
      const r = await call('GET', '/webhook-subscriptions/NOT-A-UUID', ['webhook-subscriptions.read'])
      expect(r.status).to.equal(422)
      expect(r.json).to.deep.equal({
        detail: [{ loc: ['path', 'subscription_id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'NOT-A-UUID' }],
      })
    })
  })
})
