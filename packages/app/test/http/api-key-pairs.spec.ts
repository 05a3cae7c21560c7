import { generateKeyPairSync } from 'node:crypto'
import { expect } from 'chai'
import { jwkThumbprint } from '@orka/adapters-http'
import { publicKeyOf } from '../../src/dev-key'
import { mintToken } from '../../src/mint-token'
import { get, KeyUsageFlusher } from '../../src/container'
import { errorBody, Harness, Page, startHarness } from '../support/harness'

interface Role {
  id: string
  slug: string
}
type Key = Record<string, unknown> & { id: string; thumbprint: string; private_key?: string; active: boolean }

const p521 = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-521' })
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  }
}

const refused = (pointer: string, message: string) => ({
  ...errorBody(400, [{ location: 'body', pointer, message, type: 'invalid' }]),
  message: 'Request failed validation',
})

describe('API key pairs', () => {
  let h: Harness
  let roles: Record<string, Role & Record<string, unknown>>
  let admin: Key
  const id = (slug: string) => roles[slug]?.id ?? ''
  const tokenOf = (pem: string, scopes = ['*.read', '*.write']) => mintToken(pem, { scopes, expiresInS: 3600, now: h.clock.now() })
  const create = (body: Record<string, unknown>, auth?: string) => h.request<Key>('POST', '/api-key-pairs', { body, auth })
  const listed = async (o: { auth?: string; merchantAccount?: string } = {}) =>
    (await h.request<Page<Key>>('GET', '/api-key-pairs?limit=100', o)).body.items

  before(async () => {
    h = await startHarness()
    const r = await h.request<Page<Role & Record<string, unknown>>>('GET', '/roles')
    roles = Object.fromEntries(r.body.items.map((x) => [x.slug, x]))
    const thumbprint = jwkThumbprint(publicKeyOf(h.pems.admin))
    admin = (await listed()).find((k) => k.thumbprint === thumbprint)!
  })
  after(() => h.close())

  it('makes a key pair and answers its private key once: the key signs tokens at once, and is never shown again', async () => {
    const at = h.clock.now().toISOString()
    const r = await create({ display_name: 'Back office', role_ids: [id('read-only')] })
    expect(r.status, r.text).to.equal(201)
    const { id: keyId, thumbprint, private_key: privateKey } = r.body
    expect(privateKey).to.match(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+\n-----END PRIVATE KEY-----\n$/)
    expect(thumbprint).to.equal(jwkThumbprint(publicKeyOf(privateKey ?? '')))
    const whole = {
      type: 'api-key-pair',
      id: keyId,
      thumbprint,
      display_name: 'Back office',
      algorithm: 'ECDSA',
      active: true,
      created_at: at,
      updated_at: at,
      last_used_at: null,
      creator: { id: admin.id, name: admin.display_name, email_address: null, thumbprint: admin.thumbprint },
      merchant_accounts: [],
      roles: [roles['read-only']],
    }
    expect(r.body).to.deep.equal({ ...whole, private_key: privateKey })
    const read = await h.request('GET', '/roles', { auth: tokenOf(privateKey ?? '') })
    expect(read.status).to.equal(200)
    expect((await h.request('GET', `/api-key-pairs/${keyId}`)).body).to.deep.equal(whole)
    expect((await listed()).find((k) => k.id === keyId)).to.deep.equal(whole)
    // Its read-only role grants no write, whatever its token asks for.
    expect((await h.request('POST', '/buyers', { auth: tokenOf(privateKey ?? ''), body: {} })).status).to.equal(403)
    const secret = (privateKey ?? '').split('\n')[1] ?? ''
    expect(h.logs.join('\n')).to.not.include(secret)
  })

  it('registers a public key the caller brings, answers no private key, and refuses one registered already (409 naming its thumbprint)', async () => {
    const pair = p521()
    const r = await create({ display_name: 'Own key', role_ids: [id('administrator')], public_key: pair.publicKeyPem, algorithm: 'ECDSA' })
    expect(r.status, r.text).to.equal(201)
    expect(r.body).to.not.have.property('private_key')
    expect(r.body.thumbprint).to.equal(jwkThumbprint(pair.publicKeyPem))
    expect((await h.request('GET', '/buyers', { auth: tokenOf(pair.privateKeyPem) })).status).to.equal(200)
    const again = await create({ display_name: 'Twice', role_ids: [id('read-only')], public_key: pair.publicKeyPem })
    expect([again.status, again.body]).to.deep.equal([409, errorBody(409, [], { resource_id: r.body.thumbprint })])
    // Deleted, it stays taken: a key revoked for a leak cannot be brought back.
    expect((await h.request('DELETE', `/api-key-pairs/${r.body.id}`)).status).to.equal(204)
    const revived = await create({ display_name: 'Revived', role_ids: [id('read-only')], public_key: pair.publicKeyPem })
    expect([revived.status, revived.body]).to.deep.equal([409, errorBody(409, [], { resource_id: r.body.thumbprint })])
  })

  it('refuses what is not a P-521 public key, a private key above all, without echoing it; and RSA', async () => {
    const before = await listed()
    const mine = p521()
    const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString()
    for (const public_key of [
      mine.privateKeyPem,
      p256,
      'not a key',
      `${mine.publicKeyPem}\u0000`,
      mine.publicKeyPem.replace('MIG', 'MIH'),
    ]) {
      const r = await create({ display_name: 'Bad', role_ids: [id('read-only')], public_key })
      expect([r.status, r.body]).to.deep.equal([400, refused('/public_key', 'must be a PEM-encoded ECDSA P-521 public key')])
      expect(r.text).to.not.include('BEGIN')
    }
    const rsa = await h.request<{ detail: { loc: unknown }[] }>('POST', '/api-key-pairs', {
      body: { display_name: 'RSA', role_ids: [id('read-only')], algorithm: 'RSA' },
    })
    expect([rsa.status, rsa.body.detail.map((d) => d.loc)]).to.deep.equal([422, [['body', 'algorithm']]])
    expect(h.logs.join('\n')).to.not.include(mine.privateKeyPem.split('\n')[1] ?? '')
    expect(await listed()).to.deep.equal(before)
  })

  it('suspends and resumes a key: its tokens are refused at once on this instance, a cached token included, then accepted again', async () => {
    const made = await create({ display_name: 'Switch', role_ids: [id('read-only')] })
    const token = tokenOf(made.body.private_key ?? '')
    expect((await h.request('GET', '/buyers', { auth: token })).status).to.equal(200)
    h.clock.advance(1000)
    const off = await h.request<Key>('PUT', `/api-key-pairs/${made.body.id}`, { body: { active: false, display_name: 'Switched off' } })
    expect([off.status, off.body.active, off.body.display_name, off.body.updated_at]).to.deep.equal([
      200,
      false,
      'Switched off',
      h.clock.now().toISOString(),
    ])
    const refusedNow = await h.request('GET', '/buyers', { auth: token })
    expect([refusedNow.status, refusedNow.body]).to.deep.equal([401, errorBody(401)])
    const on = await h.request<Key>('PUT', `/api-key-pairs/${made.body.id}`, { body: { active: true, display_name: null } })
    expect([on.status, on.body.active, on.body.display_name]).to.deep.equal([200, true, 'Switched off'])
    expect((await h.request('GET', '/buyers', { auth: token })).status).to.equal(200)
  })

  it('deletes a key for good: its tokens are refused, it is no longer found or listed, and a second delete is a 404', async () => {
    const made = await create({ display_name: 'Doomed', role_ids: [id('read-only')] })
    const token = tokenOf(made.body.private_key ?? '')
    expect((await h.request('GET', '/buyers', { auth: token })).status).to.equal(200)
    const gone = await h.request('DELETE', `/api-key-pairs/${made.body.id}`)
    expect([gone.status, gone.text]).to.deep.equal([204, ''])
    expect((await h.request('GET', '/buyers', { auth: token })).status).to.equal(401)
    for (const [method, body] of [['GET'], ['PUT', { active: true }], ['DELETE']] as const) {
      const r = await h.request(method, `/api-key-pairs/${made.body.id}`, { body })
      expect([r.status, r.body], method).to.deep.equal([404, errorBody(404)])
    }
    expect((await listed()).map((k) => k.id)).to.not.include(made.body.id)
    // Its token stays refused: an update cannot bring a deleted key back.
    expect((await h.request('GET', '/buyers', { auth: token })).status).to.equal(401)
  })

  it('writes last_used_at off the request path, once the usage batch is flushed', async () => {
    const made = await create({ display_name: 'Used', role_ids: [id('read-only')] })
    const usedAt = h.clock.now().toISOString()
    await h.request('GET', '/buyers', { auth: tokenOf(made.body.private_key ?? '') })
    h.clock.advance(5000)
    expect((await h.request<Key>('GET', `/api-key-pairs/${made.body.id}`)).body.last_used_at).to.equal(null)
    await get(h.container, KeyUsageFlusher).tick()
    expect((await h.request<Key>('GET', `/api-key-pairs/${made.body.id}`)).body.last_used_at).to.equal(usedAt)
  })

  describe('no caller makes a key with more reach than its own', () => {
    const narrow = (scopes: string[]) => h.token('admin', { scopes })

    it('a token narrower than its key gives only what it asks for: not administrator, not read-only', async () => {
      const keysOnly = narrow(['api-key-pairs.read', 'api-key-pairs.write'])
      for (const roleIds of [[id('administrator')], [id('read-only')], [id('gift-card-operator')]]) {
        const r = await create({ display_name: 'Escalate', role_ids: roleIds }, keysOnly)
        expect([r.status, r.body], JSON.stringify(roleIds)).to.deep.equal([403, errorBody(403)])
      }
      const giftCards = narrow(['api-key-pairs.write', 'gift-cards.read', 'gift-cards.write', 'buyers.read'])
      const ok = await create({ display_name: 'Gift cards', role_ids: [id('gift-card-operator')] }, giftCards)
      expect([ok.status, ok.body.roles]).to.deep.equal([201, [roles['gift-card-operator']]])
    })

    it('a key bound to an account makes keys for that account only, never for every account or another', async () => {
      const acme = { auth: 'acmeAdmin', merchantAccount: 'acme' } as const
      const before = await listed()
      for (const merchant_account_ids of [[], ['default'], ['nope']]) {
        const r = await h.request('POST', '/api-key-pairs', {
          ...acme,
          body: { display_name: 'Escalate', role_ids: [id('read-only')], merchant_account_ids },
        })
        expect([r.status, r.body], JSON.stringify(merchant_account_ids)).to.deep.equal([403, errorBody(403)])
      }
      expect(await listed()).to.deep.equal(before)
      const own = await h.request<Key>('POST', '/api-key-pairs', {
        ...acme,
        body: { display_name: 'Acme reader', role_ids: [id('read-only')], merchant_account_ids: ['acme'] },
      })
      expect(own.status, own.text).to.equal(201)
      const acmeSummary = (own.body.merchant_accounts as { id: string; type: string }[]).map((a) => [a.type, a.id])
      expect(acmeSummary).to.deep.equal([['merchant-account', 'acme']])
      // Nor can it widen that key, or its own, afterwards.
      for (const merchant_account_ids of [[], ['default']]) {
        const r = await h.request('PUT', `/api-key-pairs/${own.body.id}`, { ...acme, body: { merchant_account_ids } })
        expect([r.status, r.body]).to.deep.equal([403, errorBody(403)])
      }
      const token = tokenOf(own.body.private_key ?? '')
      const elsewhere = await h.request('GET', '/buyers', { auth: token, merchantAccount: 'default' })
      expect(elsewhere.status).to.equal(403)
      expect((await h.request('GET', '/buyers', { auth: token, merchantAccount: 'acme' })).status).to.equal(200)
    })

    it('a key bound to an account sees its account’s keys only: an instance-wide key is not found for it, to read, change or delete', async () => {
      const acme = { auth: 'acmeAdmin', merchantAccount: 'acme' } as const
      const seen = await listed(acme)
      expect(seen.length).to.be.greaterThan(0)
      expect(seen.every((k) => (k.merchant_accounts as { id: string }[]).map((a) => a.id).join() === 'acme')).to.equal(true)
      for (const [method, body] of [['GET'], ['PUT', { active: false }], ['DELETE']] as const) {
        const r = await h.request(method, `/api-key-pairs/${admin.id}`, { ...acme, body })
        expect([r.status, r.body], method).to.deep.equal([404, errorBody(404)])
      }
      expect((await h.request('GET', '/buyers')).status).to.equal(200)
    })

    it('a narrow token cannot suspend, delete or rewrite a broader key', async () => {
      const broad = await create({ display_name: 'Broad', role_ids: [id('administrator')] })
      const keysOnly = narrow(['api-key-pairs.read', 'api-key-pairs.write'])
      for (const [method, body] of [['PUT', { active: false }], ['PUT', { display_name: 'Mine now' }], ['DELETE']] as const) {
        const r = await h.request(method, `/api-key-pairs/${broad.body.id}`, { auth: keysOnly, body })
        expect([r.status, r.body], method).to.deep.equal([403, errorBody(403)])
      }
      const narrowKey = await create({ display_name: 'Readers', role_ids: [id('read-only')] })
      const upgrade = await h.request('PUT', `/api-key-pairs/${narrowKey.body.id}`, {
        auth: narrow(['api-key-pairs.write', '*.read']),
        body: { role_ids: [id('administrator')] },
      })
      expect([upgrade.status, upgrade.body]).to.deep.equal([403, errorBody(403)])
      expect((await h.request<Key>('GET', `/api-key-pairs/${broad.body.id}`)).body).to.deep.include({
        display_name: 'Broad',
        active: true,
      })
      expect((await h.request<Key>('GET', `/api-key-pairs/${narrowKey.body.id}`)).body.roles).to.deep.equal([roles['read-only']])
    })

    it('refuses roles that are unknown, missing, or an add-on on its own, and more than one account: 400, nothing stored', async () => {
      const before = await listed()
      for (const [body, pointer, message] of [
        [{ role_ids: ['7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'] }, '/role_ids/0', 'no role has this id'],
        [{ role_ids: [] }, '/role_ids', 'give the key at least one role'],
        [
          { role_ids: [id('webhook-manager')] },
          '/role_ids',
          "role 'webhook-manager' cannot stand alone: give the key one of read-only too",
        ],
        [{ role_ids: [id('read-only')], merchant_account_ids: ['nope'] }, '/merchant_account_ids/0', 'no merchant account has this id'],
        [
          { role_ids: [id('read-only')], merchant_account_ids: ['acme', 'default'] },
          '/merchant_account_ids',
          'a key reaches one merchant account, or every one (an empty list): give at most one id',
        ],
      ] as const) {
        const r = await create({ display_name: 'Refused', ...body })
        expect([r.status, r.body], JSON.stringify(body)).to.deep.equal([400, refused(pointer, message)])
      }
      const addOn = await create({ display_name: 'Webhooks', role_ids: [id('read-only'), id('webhook-manager')] })
      expect([addOn.status, addOn.body.roles]).to.deep.equal([201, [roles['read-only'], roles['webhook-manager']]])
      expect((await listed()).length).to.equal(before.length + 1)
    })
  })

  it('needs api-key-pairs.read to read and .write to change; embed and read-only tokens cannot make keys', async () => {
    const readOnly = await create({ display_name: 'x', role_ids: [id('read-only')] }, h.token('readOnly'))
    expect([readOnly.status, readOnly.body]).to.deep.equal([403, errorBody(403)])
    expect((await h.request('GET', '/api-key-pairs', { auth: 'readOnly' })).status).to.equal(200)
    const embed = await h.request('GET', '/api-key-pairs', { auth: h.token('admin', { scopes: [], embed: true }) })
    expect(embed.status).to.equal(403)
    expect((await h.request('GET', '/api-key-pairs', { auth: null })).status).to.equal(401)
  })

  it('audits a bound key’s creation, update and revocation under its account', async () => {
    const acme = { auth: 'acmeAdmin', merchantAccount: 'acme' } as const
    const made = await h.request<Key>('POST', '/api-key-pairs', {
      ...acme,
      body: { display_name: 'Audited key', role_ids: [id('read-only')], merchant_account_ids: ['acme'] },
    })
    h.clock.advance(1000)
    await h.request('PUT', `/api-key-pairs/${made.body.id}`, { ...acme, body: { display_name: 'Audited key 2' } })
    h.clock.advance(1000)
    await h.request('DELETE', `/api-key-pairs/${made.body.id}`, acme)
    const log = await h.request<{ items: { action: string; resource: { id: string } }[] }>(
      'GET',
      '/audit-logs?resource_type=api-key-pair&limit=100',
      acme,
    )
    expect(log.body.items.filter((e) => e.resource.id === made.body.id).map((e) => [e.action, e.resource])).to.deep.equal([
      ['revoked', { type: 'api-key-pair', id: made.body.id, name: 'Audited key 2' }],
      ['updated', { type: 'api-key-pair', id: made.body.id, name: 'Audited key 2' }],
      ['created', { type: 'api-key-pair', id: made.body.id, name: 'Audited key' }],
    ])
    expect(JSON.stringify(log.body)).to.not.include('PRIVATE')
  })
})
