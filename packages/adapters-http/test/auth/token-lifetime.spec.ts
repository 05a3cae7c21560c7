import { expect } from 'chai'
import { createHttpApp } from '../../src'
import { FakeKeys, keyPair, listen, mint, newP521Key, T0, TestKey } from '../support'
import { recordingDeps, UNAUTHORIZED_BODY } from './app-fixture'

describe('token lifetime through the app (config.maxTokenLifetimeS)', () => {
  let key: TestKey
  before(() => {
    key = newP521Key()
  })

  let server: { url: string; close(): Promise<void> } | undefined
  afterEach(async () => {
    await server?.close()
    server = undefined
  })

  const start = async (maxTokenLifetimeS?: number) => {
    const r = recordingDeps(new FakeKeys(keyPair(key)), maxTokenLifetimeS === undefined ? {} : { maxTokenLifetimeS })
    server = await listen(createHttpApp(r.deps))
  }
  /** jsonwebtoken drops a given `iat` under `noTimestamp` (and adds the real time without it). */
  const roles = async (claims: Record<string, unknown>) => {
    const token = mint(key, { scopes: ['roles.read'], ...claims }, { noTimestamp: !('iat' in claims) })
    const res = await fetch(`${server!.url}/roles`, { headers: { authorization: `Bearer ${token}` } })
    return { status: res.status, text: await res.text() }
  }

  it('defaults to one day', async () => {
    await start()
    expect((await roles({ exp: T0 + 86400 })).status).to.equal(200)
    const r = await roles({ exp: T0 + 86401 })
    expect(r.status).to.equal(401)
    expect(r.text).to.equal(UNAUTHORIZED_BODY)
    expect((await roles({ iat: T0 - 100, exp: T0 - 100 + 86400 })).status).to.equal(200)
    expect((await roles({ iat: T0 - 100, exp: T0 - 100 + 86401 })).status).to.equal(401)
  })

  it('takes the configured maximum', async () => {
    await start(300)
    expect((await roles({ exp: T0 + 300 })).status).to.equal(200)
    expect((await roles({ exp: T0 + 301 })).status).to.equal(401)
    expect((await roles({ iat: T0 - 10, exp: T0 + 290 })).status).to.equal(200)
    expect((await roles({ iat: T0 - 10, exp: T0 + 291 })).status).to.equal(401)
  })

  it('refuses an iat beyond the 30 s leeway', async () => {
    await start()
    expect((await roles({ iat: T0 + 30, exp: T0 + 60 })).status).to.equal(200)
    expect((await roles({ iat: T0 + 31, exp: T0 + 60 })).status).to.equal(401)
  })
})
