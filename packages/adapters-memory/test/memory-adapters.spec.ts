import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { IdempotencyRecord } from '@orka/domain'
import {
  aBuyer,
  anApiKeyPair,
  anIdempotencyRecord,
  aRole,
  aVaultedCard,
  aWebhookRecord,
  dateAt,
  isoAt,
  MERCHANT_A,
  right,
} from '@orka/domain/testing'
import {
  MemoryApiKeyPairRepository,
  MemoryBuyerRepository,
  MemoryGiftCardVault,
  MemoryIdempotencyStore,
  MemoryRateLimitStore,
  MemoryRoleRepository,
  MemoryWebhookSubscriptionRepository,
} from '../src'
import { keep } from '../src/memory-support'

/** Behaviour only a memory adapter can get wrong: shared references and unbounded growth. */
describe('memory adapters keep their own frozen copies', () => {
  it('a stored buyer is unaffected by mutating the input; a result cannot be mutated', async () => {
    const repo = new MemoryBuyerRepository()
    const buyer = aBuyer()
    const original = structuredClone(buyer)
    await right(repo.create(buyer))
    ;(buyer.billing_details!.address as { city: string }).city = 'Paris'
    const found = await right(repo.findById(MERCHANT_A, buyer.id))
    expect(() => {
      ;((found as O.Some<typeof buyer>).value as { display_name: string }).display_name = 'Mallory'
    }).to.throw(TypeError)
    const listed = await right(repo.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))
    expect(() => {
      ;(listed[0]!.billing_details!.address as { city: string }).city = 'hijacked'
    }).to.throw(TypeError)
    expect(await right(repo.findById(MERCHANT_A, buyer.id))).to.deep.equal(O.some(original))
  })

  it("copies in one pass what records are made of: a client's `__proto__` key stays data, a Date stays a Date", () => {
    const input = JSON.parse('{"metadata":{"__proto__":{"polluted":true}},"list":[{"n":1}]}') as { metadata: object; list: object[] }
    const kept = keep({ ...input, at: new Date(0) })
    expect(JSON.stringify(kept)).to.equal('{"metadata":{"__proto__":{"polluted":true}},"list":[{"n":1}],"at":"1970-01-01T00:00:00.000Z"}')
    expect(Object.getPrototypeOf(kept.metadata)).to.equal(Object.prototype)
    expect(kept.at).to.be.instanceOf(Date)
    expect([Object.isFrozen(kept), Object.isFrozen(kept.list), Object.isFrozen(kept.list[0])]).to.deep.equal([true, true, true])
    expect(kept.list).not.to.equal(input.list)
  })

  it('a vaulted card is unaffected by mutating the input; a result cannot be mutated', async () => {
    const vault = new MemoryGiftCardVault()
    const card = aVaultedCard()
    const original = structuredClone(card)
    await right(vault.insert(card))
    ;(card.card as { last4: string }).last4 = '9999'
    const found = await right(vault.findByFingerprint(MERCHANT_A, card.fingerprint))
    expect(() => {
      ;((found as O.Some<typeof card>).value as { sealed_number: string }).sealed_number = 'x'
    }).to.throw(TypeError)
    expect(await right(vault.findByFingerprint(MERCHANT_A, card.fingerprint))).to.deep.equal(O.some(original))
  })

  it('roles, keys, webhooks and idempotency records are frozen copies too', async () => {
    const roles = new MemoryRoleRepository()
    const role = aRole({ slug: 'auditor' })
    await right(roles.upsert(role))
    const [stored] = await right(roles.findBySlugs(['auditor']))
    expect(() => stored!.permissions.allow.push('*.write')).to.throw(TypeError)
    expect(await right(roles.findBySlugs(['auditor']))).to.deep.equal([role])

    const keys = new MemoryApiKeyPairRepository()
    const key = anApiKeyPair({ roles: ['read-only'] })
    await right(keys.upsert(key))
    const [listedKey] = await right(keys.list())
    expect(() => listedKey!.roles.push('administrator')).to.throw(TypeError)
    expect(await right(keys.list())).to.deep.equal([key])

    const webhooks = new MemoryWebhookSubscriptionRepository()
    const sub = aWebhookRecord()
    await right(webhooks.create(sub))
    const scope = { merchantAccountId: MERCHANT_A, includeInstanceWide: false }
    const found = await right(webhooks.findById(scope, sub.id))
    expect(() => {
      ;(found as O.Some<typeof sub>).value.authentication!.username = 'mallory'
    }).to.throw(TypeError)
    expect(await right(webhooks.findById(scope, sub.id))).to.deep.equal(O.some(sub))

    const store = new MemoryIdempotencyStore()
    const record = anIdempotencyRecord()
    await right(store.claim(record, dateAt(0)))
    const held = await right(store.claim(anIdempotencyRecord({ key: record.key }), dateAt(1)))
    expect(() => {
      if (!held.claimed) (held.existing as { fingerprint: string }).fingerprint = 'changed'
    }).to.throw(TypeError)
    expect(await right(store.claim(anIdempotencyRecord({ key: record.key }), dateAt(2)))).to.deep.equal({
      claimed: false,
      existing: record,
    })
  })
})

describe('memory stores stay bounded', () => {
  it('the rate-limit store drops keys whose admissions have all left the window', async () => {
    const store = new MemoryRateLimitStore({ sweepEvery: 10 })
    for (let i = 0; i < 9; i++) await right(store.admit(`embed:jti-${i}`, 50, 60_000, dateAt(0)))
    expect(store.size).to.equal(9)
    // The tenth admission, a window later, sweeps the nine idle keys.
    await right(store.admit('embed:jti-late', 50, 60_000, dateAt(60_000)))
    expect(store.size).to.equal(1)
  })

  it('the rate-limit store also sweeps on time: a burst of one-off keys is let go after its window', async () => {
    const store = new MemoryRateLimitStore({ sweepEvery: 1_000_000, sweepEveryMs: 10_000 })
    for (let i = 0; i < 500; i++) await right(store.admit(`embed:jti-${i}`, 50, 60_000, dateAt(i)))
    await right(store.admit('embed:jti-later', 50, 60_000, dateAt(30_000)))
    expect(store.size).to.equal(501)
    await right(store.admit('embed:jti-latest', 50, 60_000, dateAt(61_000)))
    expect(store.size).to.equal(2)
  })

  it('the rate-limit store drops a key as soon as it is seen empty', async () => {
    const store = new MemoryRateLimitStore()
    await right(store.admit('k', 0, 60_000, dateAt(0)))
    expect(store.size).to.equal(0)
  })

  it('the idempotency store sweeps expired records', async () => {
    const store = new MemoryIdempotencyStore({ sweepEvery: 5 })
    for (let i = 0; i < 4; i++) await right(store.claim(anIdempotencyRecord({ expires_at: dateAt(30_000).toISOString() }), dateAt(0)))
    expect(store.size).to.equal(4)
    await right(store.claim(anIdempotencyRecord({ expires_at: dateAt(90_000).toISOString() }), dateAt(30_000)))
    expect(store.size).to.equal(1)
  })
})

/** Where a database may let several racing takeovers through (the contract allows it), memory lets one. */
describe('MemoryIdempotencyStore takeovers', () => {
  it('lets exactly one of 20 concurrent retries take an expired key over', async () => {
    const store = new MemoryIdempotencyStore()
    const key = 'gift-card-activation\u0000k'
    const LEASE_MS = 30_000
    const rec = (n: number, at: number): IdempotencyRecord =>
      anIdempotencyRecord({
        key,
        fingerprint: 'fp',
        created_at: isoAt(at),
        expires_at: isoAt(at + LEASE_MS),
        lease: `lease-${n}`,
        attempt: 1,
        reserved_id: `id-${n}`,
      })
    await right(store.claim(rec(0, 0), dateAt(0)))
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => right(store.claim(rec(i + 1, LEASE_MS), dateAt(LEASE_MS)))))
    const winners = results.flatMap((r) => (r.claimed ? [r.record] : []))
    expect(winners).to.have.length(1)
    expect(winners[0]).to.deep.include({ attempt: 2, earlier_ids: ['id-0'] })
  })
})
