import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { ApiKeyPair, Seek } from '@orka/domain'
import { anApiKeyPair, isoAt, left, MERCHANT_A, right, uuidFor } from '@orka/domain/testing'
import { clientOf, dbOf } from '../src/mongo-database'
import { COLLECTIONS } from '../src/mongo-schema'
import { MongoApiKeyPairRepository } from '../src'
import { freshStore, FreshStore } from './support'

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }

describe('MongoDB API key pair documents', () => {
  let f: FreshStore | undefined // unset when `freshStore` failed
  let repo: MongoApiKeyPairRepository
  const commands: string[] = []
  const raw = () => dbOf(f!.store).collection<{ _id: string; [k: string]: unknown }>(COLLECTIONS.apiKeyPairs)

  beforeEach(async () => {
    f = await freshStore({ monitorCommands: true })
    repo = new MongoApiKeyPairRepository(f.store)
    commands.length = 0
    clientOf(f.store).on('commandStarted', (e) => commands.push(e.commandName))
  })
  afterEach(async () => f?.teardown())

  it('keeps a key under its id as _id, its optional fields only when it has them', async () => {
    const bare = anApiKeyPair()
    const full = anApiKeyPair({
      display_name: 'Checkout backend',
      active: true,
      updated_at: isoAt(1),
      last_used_at: isoAt(2),
      creator: { id: uuidFor(1), name: 'Provisioning key', thumbprint: null },
    })
    await right(repo.create(bare))
    await right(repo.create(full))
    const { id, ...bareFields } = bare
    expect(await raw().findOne({ _id: id })).to.deep.equal({ _id: id, ...bareFields })
    const { id: fullId, ...fullFields } = full
    expect(await raw().findOne({ _id: fullId })).to.deep.equal({ _id: fullId, ...fullFields })
  })

  it('reads a key stored before keys were made by API (none of the new fields) in every read, and changes it', async () => {
    // Written by an earlier version: no display_name, active, updated_at, last_used_at nor creator.
    const legacy: ApiKeyPair = anApiKeyPair({ merchant_account_id: MERCHANT_A, created_at: isoAt(0) })
    const { id, ...fields } = legacy
    await raw().insertOne({ _id: id, ...fields })
    expect(await right(repo.findById(id))).to.deep.equal(O.some(legacy))
    expect(await right(repo.findByThumbprint(legacy.thumbprint))).to.deep.equal(O.some(legacy))
    expect(await right(repo.list())).to.deep.equal([legacy])
    expect(await right(repo.listPage(all, MERCHANT_A))).to.deep.equal([legacy])
    await right(repo.markUsed([{ id, at: isoAt(5) }]))
    const renamed = { ...legacy, display_name: 'Legacy', updated_at: isoAt(6), last_used_at: isoAt(5) }
    expect(await right(repo.update(id, { display_name: 'Legacy', updated_at: isoAt(6) }))).to.deep.equal(O.some(renamed))
    expect(await right(repo.findById(id))).to.deep.equal(O.some(renamed))
  })

  it('marks a batch of uses in one command, and an empty batch in none', async () => {
    const keys = [anApiKeyPair(), anApiKeyPair(), anApiKeyPair()]
    for (const k of keys) await right(repo.create(k))
    commands.length = 0
    await right(repo.markUsed([]))
    expect(commands).to.deep.equal([])
    await right(repo.markUsed([...keys.map((k) => ({ id: k.id, at: isoAt(9) })), { id: uuidFor(0xfff), at: isoAt(9) }]))
    expect(commands).to.deep.equal(['update'])
    expect(await right(repo.list())).to.deep.equal(
      keys.map((k) => ({ ...k, last_used_at: isoAt(9) })).sort((a, b) => (a.id < b.id ? -1 : 1)),
    )
  })

  it('reads no key it cannot decode: Unavailable naming the collection and _id, by id, listed, or updated', async () => {
    const key = anApiKeyPair()
    await right(repo.create(key))
    await raw().updateOne({ _id: key.id }, { $set: { active: 'yes' } })
    for (const read of [repo.findById(key.id), repo.listPage(all), repo.update(key.id, { updated_at: isoAt(1) })]) {
      const e = await left(read)
      expect(e._tag).to.equal('Unavailable')
      expect((e.cause as Error).message)
        .to.include(COLLECTIONS.apiKeyPairs)
        .and.to.include(JSON.stringify(key.id))
    }
  })
})
