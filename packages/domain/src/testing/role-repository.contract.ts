import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { roleSortKey } from '../roles/role'
import { RoleRepository } from '../roles/roles.ports'
import { aRole, nextUuid } from './fixtures'
import { Harness, right, sortedBy, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const bySlug = sortedBy((r: { slug: string }) => r.slug)

export const roleRepositoryContract = (name: string, setup: () => Promise<Harness<RoleRepository>>) =>
  describe(`RoleRepository: ${name}`, () => {
    let h: Harness<RoleRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    keysetBehaviour({
      order: 'ascending',
      ties: false,
      make: (slug, id) => aRole({ slug, id, name: `Role ${slug}` }),
      keyOf: roleSortKey,
      sortValue: (i) => `role-${String(i).padStart(2, '0')}`,
      store: async (roles) => {
        for (const r of roles) await right(h.port.upsert(r))
      },
      read: (seek) => right(h.port.list(seek)),
    })

    it('lists nothing when empty', async () => {
      expect(await right(h.port.list({ direction: 'forward', from: O.none, limit: 10 }))).to.deep.equal([])
      expect(await right(h.port.list({ direction: 'backward', from: O.none, limit: 10 }))).to.deep.equal([])
    })

    it('finds roles by slug, skipping unknown slugs', async () => {
      const admin = aRole({ slug: 'administrator', permissions: { allow: ['*.read', '*.write'] } })
      const reader = aRole({ slug: 'read-only', permissions: { allow: ['*.read'] } })
      await right(h.port.upsert(admin))
      await right(h.port.upsert(reader))
      await right(h.port.upsert(aRole({ slug: 'webhook-manager' })))
      expect(bySlug(await right(h.port.findBySlugs(['read-only', 'no-such-role', 'administrator'])))).to.deep.equal([admin, reader])
      expect(await right(h.port.findBySlugs(['no-such-role']))).to.deep.equal([])
      expect(await right(h.port.findBySlugs([]))).to.deep.equal([])
    })

    it('replaces the role with the same slug on upsert, keeping its stored id', async () => {
      const original = aRole({ slug: 'gift-card-operator', name: 'Gift card operator' })
      await right(h.port.upsert(original))
      const revised = aRole({ slug: 'gift-card-operator', id: nextUuid(), name: 'Gift card operator (v2)', applies_to: ['read-only'] })
      await right(h.port.upsert(revised))
      const expected = { ...revised, id: original.id }
      expect(await right(h.port.findBySlugs(['gift-card-operator']))).to.deep.equal([expected])
      expect(await right(h.port.list({ direction: 'forward', from: O.none, limit: 10 }))).to.deep.equal([expected])
    })
  })
