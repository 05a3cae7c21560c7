import { request } from 'node:http'
import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { ProviderWebhookCommand, unauthenticated, unavailable, invalidRequest, problem } from '@orka/domain'
import { createHttpApp, HttpDeps, PROVIDER_WEBHOOK_MAX_BYTES } from '../src'
import { CaptureLog, clockAtT0, FakeKeys, fakeMac, keyPair, listen, newP521Key, useCasesWith } from './support'

const SERVICE = '0b0b0b0b-0000-4000-8000-000000000001'
const PATH = `/provider-webhooks/default/${SERVICE}`

/** A request as node:http sends it, headers as given (a header twice stays twice); the answer whole. */
const send = (url: string, o: { headers?: [string, string][]; body?: Buffer | string; chunks?: Buffer[] } = {}) =>
  new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
    const body = o.body === undefined ? undefined : Buffer.from(o.body)
    const headers = [...(o.headers ?? []), ...(body === undefined ? [] : ([['content-length', String(body.length)]] as [string, string][]))]
    const byName: Record<string, string[]> = {}
    for (const [k, v] of headers) (byName[k] ??= []).push(v)
    const req = request(url, { method: 'POST', headers: byName }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    for (const c of o.chunks ?? []) req.write(c)
    req.end(body)
  })

describe('provider webhooks route', () => {
  const received: ProviderWebhookCommand[] = []
  let server: Awaited<ReturnType<typeof listen>>
  const log = new CaptureLog()

  before(async () => {
    const deps: HttpDeps = {
      keys: new FakeKeys(keyPair(newP521Key())),
      clock: clockAtT0(),
      mac: fakeMac,
      log,
      config: {
        merchantAccountHeader: 'x-orka-merchant-account-id',
        defaultMerchantAccountId: 'default',
        maxBodyBytes: 1024,
        tokenCacheSize: 10,
      },
      useCases: useCasesWith(
        (name) => () => {
          throw new Error(`${name} is not used here`)
        },
        {
          receiveProviderWebhook: (cmd) => {
            received.push(cmd)
            if (cmd.webhook.body === 'storage down') return TE.left(unavailable(new Error('down')))
            if (cmd.webhook.body === 'not json')
              return TE.left(invalidRequest(problem('input', [], 'The body is not a notification this payment service sends')))
            return cmd.webhook.headers['x-signature'] === 'good'
              ? TE.right({ contentType: 'text/plain', body: '[accepted]' })
              : TE.left(unauthenticated('bad signature'))
          },
        },
      ),
    }
    server = await listen(createHttpApp(deps))
  })
  after(() => server.close())
  beforeEach(() => (received.length = 0))

  it('hands the exact body, the headers (one sent twice as both) and the path to the use case, and answers what it says', async () => {
    const body = '{"live":"false","notificationItems":[{"amount":1}]}\n'
    const answer = await send(`${server.url}${PATH}`, {
      headers: [
        ['X-Signature', 'good'],
        ['content-type', 'application/json'],
        ['x-twice', 'a'],
        ['x-twice', 'b'],
      ],
      body,
    })
    expect(answer).to.deep.equal({ status: 200, type: 'text/plain; charset=utf-8', body: '[accepted]' })
    expect(received).to.have.length(1)
    expect(received[0]).to.deep.include({ merchantAccountId: 'default', paymentServiceId: SERVICE })
    expect(received[0]?.webhook.body).to.equal(body)
    expect(received[0]?.webhook.headers).to.deep.include({ 'x-signature': 'good', 'x-twice': ['a', 'b'] })
  })

  it('answers a request without the signature 401 in the error format, saying nothing of why', async () => {
    expect(await send(`${server.url}${PATH}`, { body: '{}' })).to.deep.equal({
      status: 401,
      type: 'application/json; charset=utf-8',
      body: JSON.stringify({ type: 'error', code: 'unauthorized', status: 401, message: 'No valid API authentication found', details: [] }),
    })
  })

  it('refuses, before the use case, a body over the bound, invalid UTF-8 and a compressed body', async () => {
    const tooBig = await send(`${server.url}${PATH}`, { body: Buffer.alloc(PROVIDER_WEBHOOK_MAX_BYTES + 1, 0x20) })
    expect(tooBig.status).to.equal(422)
    expect(JSON.parse(tooBig.body)).to.deep.equal({
      detail: [{ loc: ['body'], msg: `Request body must not exceed ${PROVIDER_WEBHOOK_MAX_BYTES} bytes`, type: 'value_error' }],
    })
    const notUtf8 = await send(`${server.url}${PATH}`, { body: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]) })
    expect(notUtf8.status).to.equal(422)
    expect(JSON.parse(notUtf8.body)).to.deep.equal({
      detail: [{ loc: ['body'], msg: 'Request body must be valid UTF-8', type: 'json_invalid' }],
    })
    const gzip = await send(`${server.url}${PATH}`, { headers: [['content-encoding', 'gzip']], body: 'x' })
    expect(gzip.status).to.equal(422)
    expect(received).to.deep.equal([])
  })

  it('passes NUL bytes and lone surrogates through as text for the signature check to refuse', async () => {
    const answer = await send(`${server.url}${PATH}`, { headers: [['x-signature', 'forged']], body: '{"a":"\u0000\\ud800"}' })
    expect(answer.status).to.equal(401)
    expect(received[0]?.webhook.body).to.equal('{"a":"\u0000\\ud800"}')
  })

  it('answers a malformed notification 400, and a storage failure 500 so that the provider sends it again', async () => {
    const bad = await send(`${server.url}${PATH}`, { body: 'not json' })
    expect(bad.status).to.equal(400)
    expect(JSON.parse(bad.body)).to.deep.include({ code: 'bad_request', status: 400 })
    const down = await send(`${server.url}${PATH}`, { body: 'storage down' })
    expect(down.status).to.equal(500)
  })

  it('knows no other method or path under it', async () => {
    const other = await send(`${server.url}/provider-webhooks/default`, { body: '{}' })
    expect(other.status).to.equal(404)
    expect(received).to.deep.equal([])
  })
})
