import { expect } from 'chai'
import { MongoClient } from 'mongodb'
import { COLLECTIONS } from '@orka/adapters-mongo'
import { luhnValid } from '@orka/domain'
import { makeFixture } from '../support/harness'
import { eventually } from '../support/receiver'
import { caller, crashTestSetup, freshDatabase, mongoUri, startOrkaProcess } from './support'

interface StoredEntry {
  readonly _id: string
  readonly committed: boolean
  readonly action: string
  readonly resource: { readonly type: string; readonly id: string }
}

/** A Luhn-valid 16-digit number per payment. */
const numberOf = (i: number) => {
  const body = `45${String(i).padStart(4, '0')}1190330${String(i % 7)}7`
  for (let d = 0; d < 10; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`
  throw new Error('no check digit')
}

/**
 * The audit log's guarantee through a `kill -9`: changes are under way when the process dies;
 * once another instance's relay has settled what it left pending, every buyer stored has exactly
 * one `created` entry, every entry names a buyer that was stored, and every `201` a client got
 * is among them. The same for payments, whose entries are written with their transactions'
 * versions and folded into the log in batches: one a killed process never folded is folded by
 * the relay. The relay waits out its grace (60 s) before it settles or folds an entry.
 */
describe('audit log entries through a kill -9 (MongoDB)', function () {
  this.timeout(240_000)
  const db = freshDatabase()
  after(() => db.drop())

  it('is neither lost for a change that was stored nor kept for one that was not', async () => {
    const fixture = makeFixture()
    const { env, headers } = crashTestSetup(db.env, fixture)
    const call = caller({ ...headers, 'x-orka-merchant-account-id': 'acme' })
    const first = await startOrkaProcess(env)
    const pay = caller({ ...headers, 'x-orka-merchant-account-id': 'default' })
    const acknowledged: string[] = []
    const paid: string[] = []
    const statuses: string[] = []
    let killed = false
    const kill = () => {
      // Killed while the other requests are in flight: somewhere between their entries and their writes, or before a fold.
      // Payments take more round trips than buyers: on a slow machine twenty buyers can be answered before any payment is.
      if (!killed && acknowledged.length + paid.length >= 20 && paid.length >= 5) {
        killed = true
        first.child.kill('SIGKILL')
      }
    }
    const buyers = Array.from({ length: 120 }, async (_, i) => {
      const r = await call(first.url, 'POST', '/buyers', { external_identifier: `crash-${String(i)}` }).catch(() => undefined)
      if (r?.status === 201) acknowledged.push((JSON.parse(r.text) as { id: string }).id)
      kill()
    })
    const payments = Array.from({ length: 80 }, async (_, i) => {
      const card = { method: 'card', number: numberOf(i), expiration_date: '12/35', security_code: '123' }
      const r = await pay(first.url, 'POST', '/transactions', { amount: 1000 + i, currency: 'USD', payment_method: card }).catch(
        () => undefined,
      )
      if (r?.status === 201) paid.push((JSON.parse(r.text) as { id: string }).id)
      else if (r !== undefined) statuses.push(`${r.status} ${r.text.slice(0, 200)}`)
      kill()
    })
    await Promise.all([...buyers, ...payments])
    expect(killed, 'the process was killed mid-run').to.equal(true)

    const second = await startOrkaProcess(env)
    const client = new MongoClient(mongoUri())
    try {
      await client.connect()
      const database = client.db(db.env.MONGODB_DATABASE)
      const entries = database.collection<StoredEntry>(COLLECTIONS.auditLog)
      const versions = database.collection<{ transaction_id: string; unfolded?: true }>(COLLECTIONS.transactionVersions)
      // The relay runs every 5 s on entries older than 60 s: all settled within 90 s of the kill.
      await eventually(
        async () => ((await entries.countDocuments({ committed: false })) === 0 ? true : undefined),
        'no pending entry',
        100_000,
      )
      // The burst's buyers (the seed file's have no entry: provisioning is not a change through the API).
      const burst = { merchant_account_id: 'acme', external_identifier: { $regex: '^crash-' } }
      const stored = (await database.collection<{ _id: string }>(COLLECTIONS.buyers).find(burst).toArray()).map((b) => b._id)
      const created = (await entries.find({ committed: true, action: 'created', 'resource.type': 'buyer' }).toArray()).map(
        (e) => e.resource.id,
      )
      expect([...created].sort(), 'one entry per stored buyer, none for a buyer never stored').to.deep.equal([...stored].sort())
      expect(stored).to.include.members(acknowledged)

      // Every transaction stored has one `created` entry, folded by the relay when its process could not.
      await eventually(
        async () => ((await versions.countDocuments({ unfolded: true })) === 0 ? true : undefined),
        'every version folded',
        100_000,
      )
      const transactions = await versions.distinct('transaction_id', { merchant_account_id: 'default', version: 0 })
      const paidEntries = await entries
        .find({ committed: true, action: 'created', 'resource.type': 'transaction' })
        .map((e) => e.resource.id)
        .toArray()
      expect(
        paidEntries.length,
        `payments stored before the kill (${paid.length} paid; ${statuses.slice(0, 3).join('; ')})`,
      ).to.be.greaterThan(0)
      expect([...paidEntries].sort(), 'one entry per stored transaction, none for one never stored').to.deep.equal([...transactions].sort())
      expect(transactions).to.include.members(paid)

      // The API lists the same: what the relay committed is visible.
      const listed = await caller({ ...headers, 'x-orka-merchant-account-id': 'acme' })(
        second.url,
        'GET',
        '/audit-logs?limit=100&resource_type=buyer',
      )
      expect(listed.status).to.equal(200)
      const ids = (JSON.parse(listed.text) as { items: { resource: { id: string } }[] }).items.map((e) => e.resource.id)
      expect(new Set(ids).size).to.equal(ids.length)
      expect(created).to.include.members(ids)
    } finally {
      await client.close()
      second.child.kill('SIGKILL')
    }
  })
})
