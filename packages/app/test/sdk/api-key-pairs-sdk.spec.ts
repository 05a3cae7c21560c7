import { expect } from 'chai'
import { getToken } from '@gr4vy/sdk'
import { errorBody } from '../support/harness'
import { missingKeys } from './sdk-2-4-schemas'
import { onBothStores } from './transactions-support'

type Json = Record<string, unknown>
/** The vendor suite's nonexistent id. */
const MISSING_ID = '00000000-0000-0000-0000-000000000000'

/**
 * The original API SDK's own end-to-end cases for API key pairs (its
 * `tests/backoffice/api-key-pairs.test.ts`, 2.4.10), on both stores. The SDK the package registry
 * serves (1.10.18) has no `apiKeyPairs`, so each call is the request 2.4.10 sends (its
 * `APIKeyPairCreate$outboundSchema` adds `active: true`; an update sends only what it is given),
 * signed with the installed SDK's own `getToken`, and each answer is checked against the keys
 * 2.4.10's `APIKeyPair` and `CollectionAPIKeyPair` require. Where the vendor's cases accept any
 * 4xx ("reached"), these assert the exact answer.
 */
onBothStores('API key pairs as the original SDK calls them', (world) => {
  /** An administrator's call naming no account, as the vendor's suite makes it (`setupMerchant()`'s un-scoped client). */
  const call = async (method: string, path: string, body?: Json) =>
    world().h.request<Json>(method, path, { auth: await getToken({ privateKey: world().h.pems.admin }), body })
  const noMissingKeys = (schema: 'APIKeyPair' | 'CollectionAPIKeyPair', body: unknown) =>
    expect(missingKeys(schema, body)).to.deep.equal([])

  it('listing API key pairs returns a page', async () => {
    const page = await call('GET', '/api-key-pairs')
    expect(page.status).to.equal(200)
    noMissingKeys('CollectionAPIKeyPair', page.body)
    expect(page.body).to.deep.include({ limit: 20, next_cursor: null, previous_cursor: null })
    expect((page.body.items as Json[]).length).to.be.greaterThan(0)
  })

  it('create with a nonexistent role reaches the server and is refused at the role (400), storing nothing', async () => {
    const before = await call('GET', '/api-key-pairs?limit=100')
    const r = await call('POST', '/api-key-pairs', { display_name: 'E2E API key pair', active: true, role_ids: [MISSING_ID] })
    expect([r.status, r.body]).to.deep.equal([
      400,
      {
        ...errorBody(400, [{ location: 'body', pointer: '/role_ids/0', message: 'no role has this id', type: 'invalid' }]),
        message: 'Request failed validation',
      },
    ])
    expect((await call('GET', '/api-key-pairs?limit=100')).body).to.deep.equal(before.body)
  })

  for (const [what, method, body] of [
    ['fetching', 'GET', undefined],
    ['updating', 'PUT', { display_name: 'Renamed' }],
    ['deleting', 'DELETE', undefined],
  ] as const)
    it(`${what} a missing API key pair is a 404`, async () => {
      const r = await call(method, `/api-key-pairs/${MISSING_ID}`, body)
      expect([r.status, r.body]).to.deep.equal([404, errorBody(404)])
    })

  it('the happy path the vendor could not run: create with a real role, get, list, update, delete', async () => {
    const roles = await call('GET', '/roles')
    const readOnly = (roles.body.items as Json[]).find((r) => r.slug === 'read-only')
    const made = await call('POST', '/api-key-pairs', { display_name: 'E2E API key pair', active: true, role_ids: [readOnly?.id] })
    expect(made.status, made.text).to.equal(201)
    noMissingKeys('APIKeyPair', made.body)
    const { private_key: privateKey, ...kept } = made.body
    expect(privateKey).to.be.a('string')
    const path = `/api-key-pairs/${String(made.body.id)}`
    const got = await call('GET', path)
    expect([got.status, got.body]).to.deep.equal([200, kept])
    const listed = await call('GET', '/api-key-pairs')
    expect((listed.body.items as Json[]).find((k) => k.id === made.body.id)).to.deep.equal(kept)
    const renamed = await call('PUT', path, { display_name: 'Renamed' })
    noMissingKeys('APIKeyPair', renamed.body)
    expect(renamed.body).to.deep.equal({ ...kept, display_name: 'Renamed', updated_at: renamed.body.updated_at })
    expect((await call('DELETE', path)).status).to.equal(204)
    expect((await call('GET', path)).status).to.equal(404)
  })
})
