import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ApiKeyPair,
  ApiKeyPairChanges,
  apiKeyPairSortKey,
  duplicate,
  KeyUse,
  GiftCardServiceRecord,
  MerchantAccount,
  merchantAccountSortKey,
  PaymentServiceRecord,
  Role,
  Seek,
  seekIn,
  unavailable,
} from '@orka/domain'
import {
  aMerchantAccount,
  anApiKeyPair,
  aGiftCardServiceRecord,
  aPaymentServiceRecord,
  aRole,
  isoAt,
  left,
  ManualClock,
  MERCHANT_A,
  right,
} from '@orka/domain/testing'
import { cachedLookups } from '../src/cached-lookups'

/** The lookups over maps, counting key and service reads. */
const storage = () => {
  const keys = new Map<string, ApiKeyPair>()
  const roles = new Map<string, Role>()
  const accounts = new Map<string, MerchantAccount>()
  const primary = new Map<string, GiftCardServiceRecord>()
  const cardServices = new Map<string, PaymentServiceRecord>()
  const s = {
    reads: 0,
    serviceReads: 0,
    cardServiceReads: 0,
    keys: {
      findByThumbprint: (kid: string) => () => {
        s.reads++
        return Promise.resolve(E.right(O.fromNullable([...keys.values()].find((k) => k.thumbprint === kid))))
      },
      findById: (id: string) => () => {
        s.reads++
        return Promise.resolve(E.right(O.fromNullable(keys.get(id))))
      },
      upsert: (k: ApiKeyPair) => TE.right(void keys.set(k.id, k)),
      create: (k: ApiKeyPair) => {
        const holder = [...keys.values()].find((x) => x.id === k.id || x.thumbprint === k.thumbprint)
        return holder !== undefined ? TE.left(duplicate('ApiKeyPair', holder.id)) : TE.right(void keys.set(k.id, k))
      },
      list: () => TE.right([...keys.values()]),
      listPage: (seek: Seek, merchantAccountId?: string) =>
        TE.right(
          seekIn(
            [...keys.values()].filter(
              (k) => !k.revoked && (merchantAccountId === undefined || k.merchant_account_id === merchantAccountId),
            ),
            apiKeyPairSortKey,
            'descending',
            seek,
          ),
        ),
      update: (id: string, changes: ApiKeyPairChanges) => {
        const k = keys.get(id)
        if (k === undefined || k.revoked) return TE.right(O.none)
        const changed: ApiKeyPair = { ...k, ...changes, roles: [...(changes.roles ?? k.roles)] }
        keys.set(id, changed)
        return TE.right(O.some(changed))
      },
      revoke: (id: string) => {
        const k = keys.get(id)
        if (k !== undefined) keys.set(id, { ...k, revoked: true })
        return TE.right(k !== undefined)
      },
      markUsed: (uses: readonly KeyUse[]) => {
        for (const { id, at } of uses) {
          const k = keys.get(id)
          if (k !== undefined && (k.last_used_at ?? '') < at) keys.set(id, { ...k, last_used_at: at })
        }
        return TE.right(undefined)
      },
    },
    roles: {
      list: () => TE.right([...roles.values()]),
      findBySlugs: (slugs: readonly string[]) => TE.right(slugs.flatMap((x) => roles.get(x) ?? [])),
      upsert: (r: Role) => TE.right(void roles.set(r.slug, r)),
    },
    merchantAccounts: {
      find: (id: string) => TE.right(O.fromNullable(accounts.get(id))),
      upsert: (a: MerchantAccount) => TE.right(void accounts.set(a.id, a)),
      create: (a: MerchantAccount) =>
        accounts.has(a.id) ? TE.left(duplicate('MerchantAccount', a.id)) : TE.right(void accounts.set(a.id, a)),
      list: (seek: Seek) => TE.right(seekIn(accounts.values(), merchantAccountSortKey, 'descending', seek)),
    },
    giftCardServices: {
      findPrimary: (id: string) => () => {
        s.serviceReads++
        return Promise.resolve(E.right(O.fromNullable(primary.get(id))))
      },
      upsert: (r: GiftCardServiceRecord) => TE.right(void primary.set(r.merchant_account_id, r)),
    },
    cardServices: {
      listForAccount: (id: string) => () => {
        s.cardServiceReads++
        return Promise.resolve(E.right([...cardServices.values()].filter((x) => x.merchant_account_id === id)))
      },
      findById: (account: string, id: string) => () => {
        s.cardServiceReads++
        const found = cardServices.get(id)
        return Promise.resolve(E.right(O.fromNullable(found?.merchant_account_id === account ? found : undefined)))
      },
      listAll: () => TE.right([...cardServices.values()]),
      write: (r: PaymentServiceRecord) => TE.right(cardServices.set(r.id, r).has(r.id)),
    },
  }
  return s
}

describe('cachedLookups', () => {
  const setup = () => {
    const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'))
    const inner = storage()
    const cached = cachedLookups(inner, { clock, ttlMs: 5000, max: 2 })
    return { clock, inner, cached, reads: () => inner.reads }
  }

  it('answers a key lookup from memory for ttlMs, then asks storage again', async () => {
    const s = setup()
    const key = anApiKeyPair()
    await right(s.inner.keys.upsert(key))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    // Revoked behind its back (another instance): still the cached answer within the bound.
    await right(s.inner.keys.revoke(key.id))
    s.clock.advance(4999)
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    expect(s.reads()).to.equal(1)
    s.clock.advance(1)
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some({ ...key, revoked: true }))
    expect(s.reads()).to.equal(2)
  })

  it('forgets at once what is written through it, and keeps an unknown kid as unknown', async () => {
    const s = setup()
    const key = anApiKeyPair()
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.none)
    await right(s.cached.keys.upsert(key))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    await right(s.cached.keys.revoke(key.id))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some({ ...key, revoked: true }))
    const role = aRole({ slug: 'auditor' })
    expect(await right(s.cached.roles.findBySlugs(['auditor']))).to.deep.equal([])
    await right(s.cached.roles.upsert(role))
    expect(await right(s.cached.roles.findBySlugs(['auditor']))).to.deep.equal([role])
    const account = { id: MERCHANT_A, display_name: 'A', locked: false }
    await right(s.cached.merchantAccounts.upsert(account))
    expect(await right(s.cached.merchantAccounts.find(MERCHANT_A))).to.deep.equal(O.some(account))
    await right(s.cached.merchantAccounts.upsert({ ...account, locked: true }))
    expect(await right(s.cached.merchantAccounts.find(MERCHANT_A))).to.deep.equal(O.some({ ...account, locked: true }))
  })

  it('forgets at once a key updated or revoked through it: a key deactivated here is refused at once', async () => {
    const s = setup()
    const key = anApiKeyPair()
    await right(s.inner.keys.upsert(key))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    const suspended = { ...key, active: false, updated_at: isoAt(1_000) }
    expect(await right(s.cached.keys.update(key.id, { active: false, updated_at: isoAt(1_000) }))).to.deep.equal(O.some(suspended))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(suspended))
    expect(s.reads()).to.equal(2)
    await right(s.cached.keys.revoke(key.id))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some({ ...suspended, revoked: true }))
    expect(s.reads()).to.equal(3)
    // An update that changes nothing (the key is revoked) leaves the cache as it was.
    expect(await right(s.cached.keys.update(key.id, { active: true, updated_at: isoAt(2_000) }))).to.deep.equal(O.none)
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some({ ...suspended, revoked: true }))
  })

  it('keeps its answers when keys are marked used, which it passes on to storage', async () => {
    const s = setup()
    const key = anApiKeyPair()
    await right(s.inner.keys.upsert(key))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    await right(s.cached.keys.markUsed([{ id: key.id, at: isoAt(1_000) }]))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    expect(s.reads()).to.equal(1)
    expect(await right(s.inner.keys.findById(key.id))).to.deep.equal(O.some({ ...key, last_used_at: isoAt(1_000) }))
  })

  it('forgets a cached "none" for a key created through it, or found taken there, and reads by id and lists from storage', async () => {
    const s = setup()
    const key = anApiKeyPair({ merchant_account_id: MERCHANT_A, created_at: isoAt(1_000) })
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.none)
    await right(s.cached.keys.create(key))
    expect(await right(s.cached.keys.findByThumbprint(key.thumbprint))).to.deep.equal(O.some(key))
    const elsewhere = anApiKeyPair({ created_at: isoAt(0) })
    expect(await right(s.cached.keys.findByThumbprint(elsewhere.thumbprint))).to.deep.equal(O.none)
    await right(s.inner.keys.create(elsewhere))
    expect(await left(s.cached.keys.create(elsewhere))).to.deep.equal(duplicate('ApiKeyPair', elsewhere.id))
    expect(await right(s.cached.keys.findByThumbprint(elsewhere.thumbprint))).to.deep.equal(O.some(elsewhere))
    const readsBefore = s.reads()
    expect(await right(s.cached.keys.findById(key.id))).to.deep.equal(O.some(key))
    expect(await right(s.cached.keys.findById(key.id))).to.deep.equal(O.some(key))
    expect(s.reads()).to.equal(readsBefore + 2)
    const all: Seek = { direction: 'forward', from: O.none, limit: 10 }
    expect(await right(s.cached.keys.listPage(all))).to.deep.equal([key, elsewhere])
    expect(await right(s.cached.keys.listPage(all, MERCHANT_A))).to.deep.equal([key])
    expect(await right(s.cached.keys.list())).to.deep.equal([key, elsewhere])
  })

  it('forgets a cached "none" for an account created through it, or found taken there, and passes list through', async () => {
    const s = setup()
    const account = aMerchantAccount({ created_at: isoAt(0) })
    expect(await right(s.cached.merchantAccounts.find(account.id))).to.deep.equal(O.none)
    await right(s.cached.merchantAccounts.create(account))
    expect(await right(s.cached.merchantAccounts.find(account.id))).to.deep.equal(O.some(account))
    const elsewhere = aMerchantAccount()
    expect(await right(s.cached.merchantAccounts.find(elsewhere.id))).to.deep.equal(O.none)
    await right(s.inner.merchantAccounts.create(elsewhere))
    expect(await left(s.cached.merchantAccounts.create(elsewhere))).to.deep.equal(duplicate('MerchantAccount', elsewhere.id))
    expect(await right(s.cached.merchantAccounts.find(elsewhere.id))).to.deep.equal(O.some(elsewhere))
    const all: Seek = { direction: 'forward', from: O.none, limit: 10 }
    expect(await right(s.cached.merchantAccounts.list(all))).to.deep.equal([account, elsewhere])
  })

  it('answers the primary gift card service of an account from memory for ttlMs, and forgets it at a write through it', async () => {
    const s = setup()
    const first = aGiftCardServiceRecord()
    await right(s.inner.giftCardServices.upsert(first))
    expect(await right(s.cached.giftCardServices.findPrimary(MERCHANT_A))).to.deep.equal(O.some(first))
    // Replaced behind its back (the CLI, another instance): the cached answer within the bound.
    const second = aGiftCardServiceRecord()
    await right(s.inner.giftCardServices.upsert(second))
    s.clock.advance(4999)
    expect(await right(s.cached.giftCardServices.findPrimary(MERCHANT_A))).to.deep.equal(O.some(first))
    expect(s.inner.serviceReads).to.equal(1)
    s.clock.advance(1)
    expect(await right(s.cached.giftCardServices.findPrimary(MERCHANT_A))).to.deep.equal(O.some(second))
    await right(s.cached.giftCardServices.upsert(first))
    expect(await right(s.cached.giftCardServices.findPrimary(MERCHANT_A))).to.deep.equal(O.some(first))
    expect(s.inner.serviceReads).to.equal(3)
  })

  it("answers an account's card services, listed or by id, from memory for ttlMs, and forgets them at a write through it", async () => {
    const s = setup()
    const service = aPaymentServiceRecord()
    await right(s.inner.cardServices.write(service))
    expect(await right(s.cached.cardServices.listForAccount(MERCHANT_A))).to.deep.equal([service])
    expect(await right(s.cached.cardServices.findById(MERCHANT_A, service.id))).to.deep.equal(O.some(service))
    // Taken down behind its back (the CLI, another instance): the cached answers within the bound.
    const down = { ...service, active: false, revision: 1 }
    await right(s.inner.cardServices.write(down))
    s.clock.advance(4999)
    expect(await right(s.cached.cardServices.listForAccount(MERCHANT_A))).to.deep.equal([service])
    expect(await right(s.cached.cardServices.findById(MERCHANT_A, service.id))).to.deep.equal(O.some(service))
    expect(s.inner.cardServiceReads).to.equal(2)
    s.clock.advance(1)
    expect(await right(s.cached.cardServices.listForAccount(MERCHANT_A))).to.deep.equal([down])
    const up = { ...service, revision: 2 }
    await right(s.cached.cardServices.write(up))
    expect(await right(s.cached.cardServices.listForAccount(MERCHANT_A))).to.deep.equal([up])
    expect(await right(s.cached.cardServices.findById(MERCHANT_A, service.id))).to.deep.equal(O.some(up))
    expect(s.inner.cardServiceReads).to.equal(5)
  })

  it('shares one read between the callers that miss one key at once', async () => {
    const s = setup()
    const key = anApiKeyPair()
    await right(s.inner.keys.upsert(key))
    const answers = await Promise.all(Array.from({ length: 32 }, () => right(s.cached.keys.findByThumbprint(key.thumbprint))))
    expect(answers).to.deep.equal(answers.map(() => O.some(key)))
    expect(s.reads()).to.equal(1)
  })

  it('does not keep or share the answer of a read that started before a write through it', async () => {
    const s = setup()
    const service = aPaymentServiceRecord()
    await right(s.inner.cardServices.write(service))
    const before = s.cached.cardServices.listForAccount(MERCHANT_A)()
    const down = { ...service, active: false, revision: 1 }
    await right(s.cached.cardServices.write(down))
    // It answers its caller what it read, and nobody after the write.
    expect(await before).to.deep.equal(E.right([service]))
    expect(await right(s.cached.cardServices.listForAccount(MERCHANT_A))).to.deep.equal([down])
    expect(s.inner.cardServiceReads).to.equal(2)
  })

  it('never keeps a storage failure, and keeps at most `max` answers', async () => {
    const s = setup()
    let fail = true
    const flaky = cachedLookups(
      {
        ...s.inner,
        merchantAccounts: {
          ...s.inner.merchantAccounts,
          find: (id: string) => (fail || id === '' ? TE.left(unavailable(new Error('down'))) : TE.right(O.none)),
        },
      },
      { clock: s.clock, ttlMs: 5000 },
    )
    expect(E.isLeft(await flaky.merchantAccounts.find('x')())).to.equal(true)
    fail = false
    expect(await flaky.merchantAccounts.find('x')()).to.deep.equal(E.right(O.none))
    const keys = [anApiKeyPair(), anApiKeyPair(), anApiKeyPair()]
    for (const k of keys) await right(s.inner.keys.upsert(k))
    for (const k of keys) await right(s.cached.keys.findByThumbprint(k.thumbprint))
    expect(s.reads()).to.equal(3)
    // The first was dropped to keep two: asked again; the last is still held.
    await right(s.cached.keys.findByThumbprint(keys[0]!.thumbprint))
    await right(s.cached.keys.findByThumbprint(keys[2]!.thumbprint))
    expect(s.reads()).to.equal(4)
  })
})
