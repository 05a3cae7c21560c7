import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { ApiKeyPair, apiKeyPairSortKey } from '../auth/api-key-pair'
import { ApiKeyPairRepository } from '../auth/api-key-pair.ports'
import { Seek } from '../pagination/page'
import { duplicate } from '../shared/errors'
import { anApiKeyPair, isoAt, MERCHANT_A, MERCHANT_B, uuidFor } from './fixtures'
import { Harness, left, right, sortedBy, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const byId = sortedBy((k: { id: string }) => k.id)
const all: Seek = { direction: 'forward', from: O.none, limit: 100 }
const UNKNOWN_ID = '7a3f0c52-9d4e-4b1a-8c6d-ffffffffffff'

/** Every optional field set: what must round-trip exactly. */
const aFullKey = (o: Partial<ApiKeyPair> = {}): ApiKeyPair =>
  anApiKeyPair({
    display_name: 'Checkout backend',
    active: false,
    merchant_account_id: MERCHANT_A,
    roles: ['read-only', 'webhook-manager'],
    created_at: isoAt(1_000),
    updated_at: isoAt(2_000),
    last_used_at: isoAt(3_000),
    creator: { id: uuidFor(0xc0), name: 'Provisioning key', thumbprint: 'qZ3bXl0mJxkR2Tn0m3M7Yx3P6yVw1hA0b7O3q1yWl9E' },
    ...o,
  })

export const apiKeyPairRepositoryContract = (name: string, setup: () => Promise<Harness<ApiKeyPairRepository>>) =>
  describe(`ApiKeyPairRepository: ${name}`, () => {
    let h: Harness<ApiKeyPairRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    const stored = async (...keys: ApiKeyPair[]) => {
      for (const k of keys) await right(h.port.create(k))
    }
    const found = (id: string) => right(h.port.findById(id))

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
      expect(await right(h.port.revoke(UNKNOWN_ID))).to.equal(false)
    })

    describe('findById', () => {
      it('finds nothing for an unknown id', async () => {
        await stored(anApiKeyPair())
        expect(await found(UNKNOWN_ID)).to.deep.equal(O.none)
      })

      it('finds a stored key, and a revoked one', async () => {
        const key = anApiKeyPair({ merchant_account_id: MERCHANT_A })
        const gone = anApiKeyPair()
        await stored(key, gone)
        await right(h.port.revoke(gone.id))
        expect(await found(key.id)).to.deep.equal(O.some(key))
        expect(await found(gone.id)).to.deep.equal(O.some({ ...gone, revoked: true }))
      })
    })

    describe('create', () => {
      it('stores the key', async () => {
        const key = anApiKeyPair({ merchant_account_id: MERCHANT_A })
        await right(h.port.create(key))
        expect(await found(key.id)).to.deep.equal(O.some(key))
        expect(await right(h.port.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
        expect(await right(h.port.list())).to.deep.equal([key])
      })

      it('refuses an id that is taken, by create or by upsert, naming it, and changes nothing', async () => {
        const first = anApiKeyPair()
        const seeded = anApiKeyPair()
        await right(h.port.create(first))
        await right(h.port.upsert(seeded))
        for (const taken of [first, seeded]) {
          const second = anApiKeyPair({ id: taken.id, display_name: 'Someone else', roles: ['read-only'] })
          expect(await left(h.port.create(second))).to.deep.equal(duplicate('ApiKeyPair', taken.id))
          expect(await found(taken.id)).to.deep.equal(O.some(taken))
          expect(await right(h.port.findByThumbprint(second.thumbprint))).to.deep.equal(O.none)
        }
        expect(byId(await right(h.port.list()))).to.deep.equal(byId([first, seeded]))
      })

      it("refuses a thumbprint that is taken, a revoked key's too, naming its key, and changes nothing", async () => {
        const live = anApiKeyPair()
        const gone = anApiKeyPair()
        await stored(live, gone)
        await right(h.port.revoke(gone.id))
        for (const holder of [live, gone]) {
          const clash = anApiKeyPair({ thumbprint: holder.thumbprint })
          expect(await left(h.port.create(clash))).to.deep.equal(duplicate('ApiKeyPair', holder.id))
          expect(await found(clash.id)).to.deep.equal(O.none)
        }
        expect(await right(h.port.findByThumbprint(live.thumbprint))).to.deep.equal(O.some(live))
        expect(await right(h.port.findByThumbprint(gone.thumbprint))).to.deep.equal(O.some({ ...gone, revoked: true }))
        expect(byId(await right(h.port.list()))).to.deep.equal(byId([live, { ...gone, revoked: true }]))
      })
    })

    describe('records round-trip exactly', () => {
      it('with every optional field, through create and upsert, in every read', async () => {
        const created = aFullKey()
        const upserted = aFullKey({ creator: { id: uuidFor(0xc1), name: 'CLI', thumbprint: null }, created_at: isoAt(500) })
        await right(h.port.create(created))
        await right(h.port.upsert(upserted))
        for (const k of [created, upserted]) {
          expect(await found(k.id)).to.deep.equal(O.some(k))
          expect(await right(h.port.findByThumbprint(k.thumbprint))).to.deep.equal(O.some(k))
        }
        expect(byId(await right(h.port.list()))).to.deep.equal(byId([created, upserted]))
        expect(await right(h.port.listPage(all))).to.deep.equal([created, upserted])
      })

      it('without the optional fields, none added; an upsert of a bare key drops them', async () => {
        const bare = anApiKeyPair()
        const full = aFullKey()
        await stored(bare, full)
        expect(await found(bare.id)).to.deep.equal(O.some(bare))
        const replaced = anApiKeyPair({ id: full.id, thumbprint: full.thumbprint })
        await right(h.port.upsert(replaced))
        expect(await found(full.id)).to.deep.equal(O.some(replaced))
        expect(await right(h.port.listPage(all))).to.deep.equal([replaced, bare].sort((a, b) => (a.id < b.id ? 1 : -1)))
      })

      it('revoking keeps the optional fields', async () => {
        const key = aFullKey()
        await stored(key)
        await right(h.port.revoke(key.id))
        expect(await found(key.id)).to.deep.equal(O.some({ ...key, revoked: true }))
      })
    })

    describe('listPage', () => {
      describe('every account', () => {
        keysetBehaviour({
          order: 'descending',
          ties: true,
          make: (createdAt, id) => anApiKeyPair({ id, created_at: createdAt, merchant_account_id: id < uuidFor(5) ? MERCHANT_A : null }),
          keyOf: apiKeyPairSortKey,
          sortValue: (i) => isoAt(i * 60_000),
          store: async (keys) => {
            for (const k of keys) {
              // A revoked key beside each, at the same instant: never listed.
              const gone = anApiKeyPair({ created_at: k.created_at })
              await stored(k, gone)
              await right(h.port.revoke(gone.id))
            }
          },
          read: (seek) => right(h.port.listPage(seek)),
        })
      })

      describe('one account', () => {
        keysetBehaviour({
          order: 'descending',
          ties: true,
          make: (createdAt, id) => anApiKeyPair({ id, created_at: createdAt, merchant_account_id: MERCHANT_A }),
          keyOf: apiKeyPairSortKey,
          sortValue: (i) => isoAt(i * 60_000),
          store: async (keys) => {
            for (const k of keys) {
              // Beside each, at the same instant: another account's key, an instance-wide one, and a revoked one of this account.
              await stored(k, anApiKeyPair({ created_at: k.created_at, merchant_account_id: MERCHANT_B }))
              await stored(anApiKeyPair({ created_at: k.created_at }))
              await right(h.port.upsert(anApiKeyPair({ created_at: k.created_at, merchant_account_id: MERCHANT_A, revoked: true })))
            }
          },
          read: (seek) => right(h.port.listPage(seek, MERCHANT_A)),
        })
      })

      it('lists nothing when there is no key', async () => {
        expect(await right(h.port.listPage(all))).to.deep.equal([])
        expect(await right(h.port.listPage(all, MERCHANT_A))).to.deep.equal([])
      })

      it('lists keys stored by upsert as well as by create, and no longer one revoked since', async () => {
        const older = anApiKeyPair({ created_at: isoAt(0), merchant_account_id: MERCHANT_A })
        const newer = anApiKeyPair({ created_at: isoAt(1_000) })
        const later = anApiKeyPair({ created_at: isoAt(2_000), merchant_account_id: MERCHANT_A })
        await right(h.port.upsert(older))
        await stored(newer, later)
        expect(await right(h.port.listPage(all))).to.deep.equal([later, newer, older])
        expect(await right(h.port.listPage(all, MERCHANT_A))).to.deep.equal([later, older])
        await right(h.port.revoke(later.id))
        expect(await right(h.port.listPage(all))).to.deep.equal([newer, older])
        expect(await right(h.port.listPage(all, MERCHANT_A))).to.deep.equal([older])
        expect(await right(h.port.listPage(all, MERCHANT_B))).to.deep.equal([])
      })

      it('lists suspended keys (active false): only revoked ones are left out', async () => {
        const suspended = anApiKeyPair({ active: false, created_at: isoAt(0) })
        await stored(suspended)
        expect(await right(h.port.listPage(all))).to.deep.equal([suspended])
      })
    })

    describe('update', () => {
      const at = isoAt(9_000)

      it('changes only the fields named, sets updated_at, and answers the key as changed', async () => {
        const key = aFullKey()
        const other = aFullKey()
        await stored(key, other)
        const renamed = { ...key, display_name: 'Renamed', updated_at: at }
        expect(await right(h.port.update(key.id, { display_name: 'Renamed', updated_at: at }))).to.deep.equal(O.some(renamed))
        expect(await found(key.id)).to.deep.equal(O.some(renamed))
        expect(await right(h.port.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(renamed))
        expect(await found(other.id)).to.deep.equal(O.some(other))
      })

      it('replaces roles, sets active and moves the key to another account, or to none', async () => {
        const key = aFullKey()
        await stored(key)
        const moved = { ...key, active: true, roles: ['administrator'], merchant_account_id: MERCHANT_B, updated_at: at }
        const changes = { active: true, roles: ['administrator'], merchant_account_id: MERCHANT_B, updated_at: at }
        expect(await right(h.port.update(key.id, changes))).to.deep.equal(O.some(moved))
        const later = isoAt(10_000)
        const everywhere = { ...moved, merchant_account_id: null, roles: [], updated_at: later }
        expect(await right(h.port.update(key.id, { merchant_account_id: null, roles: [], updated_at: later }))).to.deep.equal(
          O.some(everywhere),
        )
        expect(await found(key.id)).to.deep.equal(O.some(everywhere))
        expect(await right(h.port.listPage(all, MERCHANT_A))).to.deep.equal([])
      })

      it('adds to a key without optional fields only what it names; an undefined field is left as it is', async () => {
        const bare = anApiKeyPair()
        await stored(bare)
        const changed = { ...bare, active: false, updated_at: at }
        expect(await right(h.port.update(bare.id, { active: false, display_name: undefined, updated_at: at }))).to.deep.equal(
          O.some(changed),
        )
        expect(await found(bare.id)).to.deep.equal(O.some(changed))
      })

      it('answers none for an unknown key, and stores nothing', async () => {
        const key = anApiKeyPair()
        await stored(key)
        expect(await right(h.port.update(UNKNOWN_ID, { display_name: 'Ghost', updated_at: at }))).to.deep.equal(O.none)
        expect(await found(UNKNOWN_ID)).to.deep.equal(O.none)
        expect(await right(h.port.list())).to.deep.equal([key])
      })

      it('answers none for a revoked key, which stays as it was, revoked', async () => {
        const key = aFullKey({ active: true })
        await stored(key)
        await right(h.port.revoke(key.id))
        const changes = { display_name: 'Back', active: true, roles: ['administrator'], merchant_account_id: null, updated_at: at }
        expect(await right(h.port.update(key.id, changes))).to.deep.equal(O.none)
        expect(await found(key.id)).to.deep.equal(O.some({ ...key, revoked: true }))
        expect(await right(h.port.listPage(all))).to.deep.equal([])
      })
    })

    describe('markUsed', () => {
      it('sets last_used_at, and changes nothing else', async () => {
        const bare = anApiKeyPair()
        const full = aFullKey()
        await stored(bare, full)
        await right(h.port.markUsed([{ id: bare.id, at: isoAt(5_000) }]))
        await right(h.port.markUsed([{ id: full.id, at: isoAt(5_000) }]))
        expect(await found(bare.id)).to.deep.equal(O.some({ ...bare, last_used_at: isoAt(5_000) }))
        expect(await found(full.id)).to.deep.equal(O.some({ ...full, last_used_at: isoAt(5_000) }))
      })

      it('never moves last_used_at back', async () => {
        const key = anApiKeyPair()
        await stored(key)
        await right(h.port.markUsed([{ id: key.id, at: isoAt(5_000) }]))
        await right(h.port.markUsed([{ id: key.id, at: isoAt(4_999) }]))
        expect(await found(key.id)).to.deep.equal(O.some({ ...key, last_used_at: isoAt(5_000) }))
        await right(h.port.markUsed([{ id: key.id, at: isoAt(5_001) }]))
        expect(await found(key.id)).to.deep.equal(O.some({ ...key, last_used_at: isoAt(5_001) }))
      })

      it('marks several keys in one batch, the latest use of a key named twice, and skips unknown ids', async () => {
        const [a, b, c] = [anApiKeyPair(), anApiKeyPair({ last_used_at: isoAt(8_000) }), anApiKeyPair()]
        await stored(a, b, c)
        await right(
          h.port.markUsed([
            { id: a.id, at: isoAt(7_000) },
            { id: UNKNOWN_ID, at: isoAt(7_000) },
            { id: b.id, at: isoAt(7_000) },
            { id: a.id, at: isoAt(6_000) },
            { id: c.id, at: isoAt(1_000) },
            { id: c.id, at: isoAt(2_000) },
          ]),
        )
        expect(byId(await right(h.port.list()))).to.deep.equal(
          byId([{ ...a, last_used_at: isoAt(7_000) }, b, { ...c, last_used_at: isoAt(2_000) }]),
        )
        expect(await found(UNKNOWN_ID)).to.deep.equal(O.none)
      })

      it('takes an empty batch, changing nothing', async () => {
        const key = aFullKey()
        await stored(key)
        await right(h.port.markUsed([]))
        expect(await right(h.port.list())).to.deep.equal([key])
      })
    })
  })
