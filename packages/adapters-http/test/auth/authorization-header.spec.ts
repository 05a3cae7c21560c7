import { request } from 'node:http'
import { expect } from 'chai'
import { createHttpApp } from '../../src'
import { FakeKeys, keyPair, listen, mint, newP521Key, T0, TestKey } from '../support'
import { rawRequest, RawResponse, recordingDeps, UNAUTHORIZED_BODY } from './app-fixture'

describe('more than one Authorization header', () => {
  let key: TestKey
  before(() => {
    key = newP521Key()
  })

  let calls: string[]
  let server: { url: string; close(): Promise<void> }
  let port: number
  beforeEach(async () => {
    const r = recordingDeps(new FakeKeys(keyPair(key)))
    calls = r.calls
    server = await listen(createHttpApp(r.deps))
    port = Number(new URL(server.url).port)
  })
  afterEach(() => server.close())

  const good = () => `Bearer ${mint(key, { scopes: ['roles.read'], exp: T0 + 60 })}`
  const roles = (...authorization: string[]) => rawRequest(port, ['GET /roles HTTP/1.1', 'Host: localhost', ...authorization].join('\r\n'))

  const expect401 = (r: RawResponse) => {
    expect(r.status).to.equal(401)
    expect(r.body).to.equal(UNAUTHORIZED_BODY)
    expect(r.headers['www-authenticate']).to.equal('Bearer')
    expect(r.headers.connection).to.equal('close')
    expect(calls, 'the domain was reached').to.deep.equal([])
  }

  it('serves one valid Authorization header (control)', async () => {
    const r = await roles(`Authorization: ${good()}`)
    expect(r.status).to.equal(200)
  })

  it('refuses two copies of one valid token', async () => {
    const t = good()
    expect401(await roles(`Authorization: ${t}`, `Authorization: ${t}`))
  })

  it('refuses a valid token followed by another value (Node would keep the first)', async () => {
    expect401(await roles(`Authorization: ${good()}`, 'Authorization: Bearer x.y.z'))
  })

  it('refuses another value followed by a valid token', async () => {
    expect401(await roles('Authorization: Basic YTpi', `Authorization: ${good()}`))
  })

  it('counts header names case-insensitively', async () => {
    expect401(await roles(`authorization: ${good()}`, `AUTHORIZATION: ${good()}`))
    expect401(await roles(`Authorization: ${good()}`, `aUtHoRiZaTiOn: ${good()}`))
  })

  it('refuses an empty second header next to a valid one', async () => {
    expect401(await roles(`Authorization: ${good()}`, 'Authorization:'))
  })

  it('refuses duplicates sent by the Node client from an array value', async () => {
    const t = good()
    const r = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/roles' }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') })
        })
      })
      req.setHeader('Authorization', [t, t])
      req.on('error', reject)
      req.end()
    })
    expect(r.status).to.equal(401)
    expect(r.body).to.equal(UNAUTHORIZED_BODY)
    expect(calls).to.deep.equal([])
  })
})
