import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { ApiKeyPairRepository } from '../auth/api-key-pair.ports'
import { anApiKeyPair, MERCHANT_A } from './fixtures'
import { Harness, right, sortedBy, teardownHarness } from './harness'

const byId = sortedBy((k: { id: string }) => k.id)

export const apiKeyPairRepositoryContract = (name: string, setup: () => Promise<Harness<ApiKeyPairRepository>>) =>
  describe(`ApiKeyPairRepository: ${name}`, () => {
    let h: Harness<ApiKeyPairRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('finds nothing for an unknown thumbprint', async () => {
      expect(await right(h.port.findByThumbprint('xDtMgRupxC5qA6BN7yB6I08mEV6ST1Ec0LXMfCZbj_Y'))).to.deep.equal(O.none)
    })

    it('finds a stored key by its thumbprint', async () => {
      const key = anApiKeyPair({ merchant_account_id: MERCHANT_A, roles: ['gift-card-operator'] })
      await right(h.port.upsert(key))
      expect(await right(h.port.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    })

    it('replaces the key with the same id on upsert', async () => {
      const key = anApiKeyPair({ roles: ['read-only'] })
      await right(h.port.upsert(key))
      const changed = { ...key, roles: ['read-only', 'webhook-manager'] }
      await right(h.port.upsert(changed))
      expect(await right(h.port.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(changed))
      expect(await right(h.port.list())).to.deep.equal([changed])
    })

    it('refuses a second key with a thumbprint already in use', async () => {
      const key = anApiKeyPair()
      await right(h.port.upsert(key))
      const clash = anApiKeyPair({ thumbprint: key.thumbprint })
      expect((await h.port.upsert(clash)())._tag).to.equal('Left')
      expect(await right(h.port.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
      expect(await right(h.port.list())).to.deep.equal([key])
    })

    it('lists every key', async () => {
      expect(await right(h.port.list())).to.deep.equal([])
      const keys = [anApiKeyPair(), anApiKeyPair({ merchant_account_id: MERCHANT_A }), anApiKeyPair({ revoked: true })]
      for (const k of keys) await right(h.port.upsert(k))
      expect(byId(await right(h.port.list()))).to.deep.equal(byId(keys))
    })

    it('revokes a key, which is still found, marked revoked', async () => {
      const key = anApiKeyPair()
      const other = anApiKeyPair()
      await right(h.port.upsert(key))
      await right(h.port.upsert(other))
      expect(await right(h.port.revoke(key.id))).to.equal(true)
      expect(await right(h.port.findByThumbprint(key.thumbprint))).to.deep.equal(O.some({ ...key, revoked: true }))
      expect(await right(h.port.findByThumbprint(other.thumbprint))).to.deep.equal(O.some(other))
    })

    it('reports false when revoking an unknown key', async () => {
      await right(h.port.upsert(anApiKeyPair()))
      expect(await right(h.port.revoke('7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'))).to.equal(false)
    })
  })
