import { createServer } from 'node:net'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '@orka/domain'
import {
  aBuyer,
  aCheckoutSessionRecord,
  aSessionCard,
  anApiKeyPair,
  anIdempotencyRecord,
  aGiftCardServiceRecord,
  aPaymentServiceRecord,
  aMerchantAccount,
  aRole,
  aVaultedCard,
  aVaultedPaymentMethod,
  aDelivery,
  anOutboxEntry,
  anAuditRecord,
  aWebhookRecord,
  dateAt,
  isoAt,
  left,
  MERCHANT_A,
  right,
  someShippingDetails,
  uuidFor,
} from '@orka/domain/testing'
import { COLLECTIONS, EXPIRY_GRACE_MS, INDEXES } from '../src/mongo-schema'
import { dbOf, MongoStore } from '../src/mongo-database'
import { compositeId, escapeText, unescapeText } from '../src/text-escaping'
import { connectMongo, makeMongoAdapters, MongoAdapters, MongoConnectionError } from '../src'
import { freshStore, FreshStore, MONGODB_URI } from './support'

const causeOf = (u: Unavailable) => (u.cause instanceof Error ? u.cause.message : String(u.cause))

/** Left(Unavailable) whose cause names the collection and the document's `_id`. */
const expectUndecodable = async (te: TE.TaskEither<unknown, unknown>, collection: string, id: string) => {
  const e = (await left(te)) as Unavailable
  expect(e._tag).to.equal('Unavailable')
  expect(causeOf(e)).to.include(collection).and.to.include(JSON.stringify(id))
}

const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => {
        resolve(port)
      })
    })
  })

describe('MongoDB documents and database', () => {
  let f: FreshStore | undefined // unset when `freshStore` failed
  let store: MongoStore
  let a: MongoAdapters
  const raw = (collection: string) => dbOf(store).collection<{ _id: string; [k: string]: unknown }>(collection)

  beforeEach(async () => {
    f = await freshStore()
    store = f.store
    a = makeMongoAdapters(store)
  })
  afterEach(async () => f?.teardown())

  describe('a document that does not decode is Unavailable naming its collection and _id, never passed on', () => {
    it('buyers: found by id, by external identifier, and in a list', async () => {
      const b = aBuyer({ external_identifier: 'crm-1' })
      const { id, ...fields } = b
      await raw(COLLECTIONS.buyers).insertOne({ ...fields, _id: id, display_name: 42 })
      await expectUndecodable(a.buyers.findById(MERCHANT_A, b.id), COLLECTIONS.buyers, b.id)
      await expectUndecodable(a.buyers.findByExternalIdentifier(MERCHANT_A, 'crm-1'), COLLECTIONS.buyers, b.id)
      await right(a.buyers.create(aBuyer({ created_at: isoAt(5), updated_at: isoAt(5) })))
      await expectUndecodable(a.buyers.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }), COLLECTIONS.buyers, b.id)
    })

    it("shipping details: found by id and in a buyer's list", async () => {
      const r = someShippingDetails()
      await right(a.shippingDetails.create(r))
      await right(a.shippingDetails.create(someShippingDetails({ created_at: isoAt(5), updated_at: isoAt(5) })))
      await raw(COLLECTIONS.shippingDetails).updateOne({ _id: r.id }, { $set: { address: { city: 7 } } })
      await expectUndecodable(a.shippingDetails.findById(MERCHANT_A, r.id), COLLECTIONS.shippingDetails, r.id)
      await expectUndecodable(a.shippingDetails.listOfBuyer(MERCHANT_A, r.buyer_id), COLLECTIONS.shippingDetails, r.id)
    })

    it('the vault: a card with a missing field', async () => {
      const v = aVaultedCard()
      await right(a.giftCardVault.insert(v))
      await raw(COLLECTIONS.vaultedGiftCards).updateOne({ _id: v.card.id }, { $unset: { 'card.last4': '' } })
      await expectUndecodable(a.giftCardVault.findByFingerprint(MERCHANT_A, v.fingerprint), COLLECTIONS.vaultedGiftCards, v.card.id)
    })

    it('the payment method vault: a method with a missing field, found by id, fingerprint and list', async () => {
      const v = aVaultedPaymentMethod({ method: { buyer: aBuyer() } })
      await right(a.paymentMethods.insert(v))
      const doc = await raw(COLLECTIONS.vaultedPaymentMethods).findOne({ _id: v.method.id })
      // The account, buyer and fingerprint lifted out for the unique index, the id as _id only.
      expect(doc).to.include({ merchant_account_id: MERCHANT_A, owner: v.method.buyer?.id, fingerprint: v.method.fingerprint })
      expect(doc?.method).not.to.have.any.keys('id', 'merchant_account_id', 'fingerprint')
      await raw(COLLECTIONS.vaultedPaymentMethods).updateOne({ _id: v.method.id }, { $unset: { 'method.usage_count': '' } })
      const id = v.method.id
      await expectUndecodable(a.paymentMethods.findById(MERCHANT_A, id), COLLECTIONS.vaultedPaymentMethods, id)
      await expectUndecodable(
        a.paymentMethods.findByFingerprint(MERCHANT_A, v.method.buyer?.id ?? null, v.method.fingerprint ?? ''),
        COLLECTIONS.vaultedPaymentMethods,
        id,
      )
      await expectUndecodable(
        a.paymentMethods.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }),
        COLLECTIONS.vaultedPaymentMethods,
        id,
      )
    })

    it('every other collection', async () => {
      const account = aMerchantAccount()
      await right(a.merchantAccounts.upsert(account))
      await raw(COLLECTIONS.merchantAccounts).updateOne({ _id: account.id }, { $set: { locked: 'no' } })
      await expectUndecodable(a.merchantAccounts.find(account.id), COLLECTIONS.merchantAccounts, account.id)

      const key = anApiKeyPair()
      await right(a.keys.upsert(key))
      await raw(COLLECTIONS.apiKeyPairs).updateOne({ _id: key.id }, { $set: { roles: 'administrator' } })
      await expectUndecodable(a.keys.findByThumbprint(key.thumbprint), COLLECTIONS.apiKeyPairs, key.id)
      await expectUndecodable(a.keys.list(), COLLECTIONS.apiKeyPairs, key.id)

      const role = aRole({ slug: 'auditor' })
      await right(a.roles.upsert(role))
      await raw(COLLECTIONS.roles).updateOne({ _id: role.id }, { $set: { permissions: { allow: [1] } } })
      await expectUndecodable(a.roles.findBySlugs(['auditor']), COLLECTIONS.roles, role.id)

      const sub = aWebhookRecord()
      await right(a.webhooks.create(sub))
      await raw(COLLECTIONS.webhookSubscriptions).updateOne({ _id: sub.id }, { $set: { active: 1 } })
      await expectUndecodable(
        a.webhooks.findById({ merchantAccountId: MERCHANT_A, includeInstanceWide: false }, sub.id),
        COLLECTIONS.webhookSubscriptions,
        sub.id,
      )

      const service = aGiftCardServiceRecord()
      await right(a.giftCardServices.upsert(service))
      await raw(COLLECTIONS.giftCardServices).updateOne(
        { _id: service.service.id },
        { $set: { 'service.gift_card_service_definition_id': 'unknown-provider' } },
      )
      await expectUndecodable(a.giftCardServices.findPrimary(MERCHANT_A), COLLECTIONS.giftCardServices, service.service.id)

      const card = aPaymentServiceRecord()
      await right(a.cardServices.write(card))
      await raw(COLLECTIONS.paymentServices).updateOne({ _id: card.id }, { $set: { position: -1 } })
      await expectUndecodable(a.cardServices.findById(MERCHANT_A, card.id), COLLECTIONS.paymentServices, card.id)
      await expectUndecodable(a.cardServices.listForAccount(MERCHANT_A), COLLECTIONS.paymentServices, card.id)

      const record = anIdempotencyRecord()
      await right(a.idempotency.claim(record, dateAt(0)))
      const [stored] = await raw(COLLECTIONS.idempotencyRecords).find({}).toArray()
      await raw(COLLECTIONS.idempotencyRecords).updateOne({ _id: stored!._id }, { $set: { state: 'lost' } })
      await expectUndecodable(
        a.idempotency.claim(anIdempotencyRecord({ key: record.key }), dateAt(1)),
        COLLECTIONS.idempotencyRecords,
        stored!._id,
      )

      await right(a.rateLimits.admit('embed:jti-1', 5, 60_000, dateAt(0)))
      const [admission] = await raw(COLLECTIONS.rateLimitAdmissions).find({}).toArray()
      await raw(COLLECTIONS.rateLimitAdmissions).updateOne({ _id: admission!._id }, { $set: { at: 'now' } })
      await expectUndecodable(a.rateLimits.admit('embed:jti-1', 5, 60_000, dateAt(1)), COLLECTIONS.rateLimitAdmissions, admission!._id)

      const session = aCheckoutSessionRecord({ card: aSessionCard() })
      await right(a.checkoutSessions.create(session))
      await raw(COLLECTIONS.checkoutSessions).updateOne({ _id: session.id }, { $set: { metadata: [{ key: 'a', value: 1 }] } })
      await expectUndecodable(a.checkoutSessions.find(MERCHANT_A, session.id, dateAt(0)), COLLECTIONS.checkoutSessions, session.id)
      await expectUndecodable(a.checkoutSessions.takeCard(MERCHANT_A, session.id, dateAt(0)), COLLECTIONS.checkoutSessions, session.id)
    })

    it('names paths only, never the values of a document (they may be sealed card data)', async () => {
      const v = aVaultedCard()
      await right(a.giftCardVault.insert(v))
      await raw(COLLECTIONS.vaultedGiftCards).updateOne({ _id: v.card.id }, { $set: { sealed_number: 42, 'card.bin': 6036 } })
      const cause = causeOf(await left(a.giftCardVault.findByFingerprint(MERCHANT_A, v.fingerprint)))
      expect(cause).to.include('sealed_number').and.to.include('card.bin')
      // The card's id is named, and its hex digits may hold either value: look past it.
      const rest = cause.split(JSON.stringify(v.card.id)).join('')
      expect(rest).not.to.include('42').and.not.to.include('6036')
    })

    it('webhook outbox entries and deliveries', async () => {
      const entry = anOutboxEntry()
      await right(a.outbox.add(entry))
      await raw(COLLECTIONS.webhookOutbox).updateOne({ _id: entry.event_id }, { $set: { deliveries: [{ id: 'not-a-uuid' }] } })
      await expectUndecodable(a.outbox.olderThan(dateAt(1), 10), COLLECTIONS.webhookOutbox, entry.event_id)

      const d = aDelivery()
      await right(a.deliveries.enqueue([d]))
      await raw(COLLECTIONS.webhookDeliveries).updateOne({ _id: d.id }, { $set: { status: 'lost' } })
      await expectUndecodable(a.deliveries.findById(d.subscription_id, d.id), COLLECTIONS.webhookDeliveries, d.id)
      await expectUndecodable(
        a.deliveries.list(d.subscription_id, {}, { direction: 'forward', from: O.none, limit: 10 }),
        COLLECTIONS.webhookDeliveries,
        d.id,
      )
    })

    it('audit records: pending and listed', async () => {
      const r = anAuditRecord()
      await right(a.audit.add(r))
      await raw(COLLECTIONS.auditLog).updateOne({ _id: r.id }, { $set: { 'user.name': 7 } })
      await expectUndecodable(a.audit.pendingBefore(dateAt(1), 10), COLLECTIONS.auditLog, r.id)
      await right(a.audit.commit(r.id))
      await expectUndecodable(a.audit.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }), COLLECTIONS.auditLog, r.id)
    })

    it('ignores a field it does not know (one a later version may add)', async () => {
      const b = aBuyer()
      await right(a.buyers.create(b))
      await raw(COLLECTIONS.buyers).updateOne({ _id: b.id }, { $set: { schema_version: 2 } })
      expect(await right(a.buyers.findById(MERCHANT_A, b.id))).to.deep.equal(O.some(b))
    })
  })

  describe('document shape', () => {
    it("stores the entity's id as _id, without a second id field", async () => {
      const b = aBuyer()
      await right(a.buyers.create(b))
      const doc = await raw(COLLECTIONS.buyers).findOne({ _id: b.id })
      expect(doc).to.include({ _id: b.id, merchant_account_id: MERCHANT_A, created_at: b.created_at })
      expect(doc).not.to.have.property('id')
    })

    it('stores shipping details under their id as _id, with the fields the list queries on', async () => {
      const { id, ...rest } = someShippingDetails()
      await right(a.shippingDetails.create({ id, ...rest }))
      expect(await raw(COLLECTIONS.shippingDetails).findOne({ _id: id })).to.deep.equal({ _id: id, ...rest })
    })

    it('stores keys holding U+0000 escaped (PostgreSQL under FerretDB cannot hold it) and reads them back exactly', async () => {
      const key = 'POST /gift-cards/activations\u0000a%7C|b\u0000'
      const record = anIdempotencyRecord({ key })
      await right(a.idempotency.claim(record, dateAt(0)))
      const [doc] = await raw(COLLECTIONS.idempotencyRecords).find({}).toArray()
      expect(JSON.stringify(doc)).not.to.include('\\u0000')
      expect(await right(a.idempotency.claim(anIdempotencyRecord({ key }), dateAt(1)))).to.deep.equal({ claimed: false, existing: record })
      expect((await right(a.rateLimits.admit('embed:\u0000jti', 1, 60_000, dateAt(0)))).admitted).to.equal(true)
      expect((await right(a.rateLimits.admit('embed:\u0000jti', 1, 60_000, dateAt(1)))).admitted).to.equal(false)
      expect((await right(a.rateLimits.admit('embed:', 1, 60_000, dateAt(1)))).admitted).to.equal(true)
    })

    it('reads a subscription stored before secret rotation existed as not rotating', async () => {
      const sub = aWebhookRecord()
      const { id, ...stored } = sub
      const old = Object.fromEntries(
        Object.entries(stored).filter(([k]) => k !== 'previous_sealed_secret' && k !== 'previous_secret_expires_at'),
      )
      await raw(COLLECTIONS.webhookSubscriptions).insertOne({ ...old, _id: id })
      const own = { merchantAccountId: MERCHANT_A, includeInstanceWide: false }
      expect(await right(a.webhooks.findById(own, sub.id))).to.deep.equal(O.some(sub))
      expect(await right(a.webhooks.findForDelivery(sub.id))).to.deep.equal(O.some(sub))
      expect(await right(a.webhooks.recipients(MERCHANT_A))).to.deep.equal([sub])
    })

    it('keeps an outbox entry and a delivery under their ids as _id', async () => {
      const entry = anOutboxEntry()
      await right(a.outbox.add(entry))
      const e = await raw(COLLECTIONS.webhookOutbox).findOne({ _id: entry.event_id })
      expect(e).to.include({ created_at: entry.created_at, body: entry.body }).and.not.to.have.property('event_id')
      const d = aDelivery()
      await right(a.deliveries.enqueue([d]))
      const doc = await raw(COLLECTIONS.webhookDeliveries).findOne({ _id: d.id })
      expect(doc)
        .to.include({ subscription_id: d.subscription_id, status: 'pending', next_attempt_at: d.next_attempt_at })
        .and.not.to.have.property('id')
    })

    it('keeps an audit record under its id as _id, and clears its check on commit', async () => {
      const { id, ...rest } = anAuditRecord()
      await right(a.audit.add({ id, ...rest }))
      expect(await raw(COLLECTIONS.auditLog).findOne({ _id: id })).to.deep.equal({ _id: id, ...rest })
      await right(a.audit.commit(id))
      expect(await raw(COLLECTIONS.auditLog).findOne({ _id: id })).to.deep.equal({ _id: id, ...rest, committed: true, check: null })
    })

    it('claims an attempt with a document under (delivery id, attempt number), freed when settled', async () => {
      const d = aDelivery()
      await right(a.deliveries.enqueue([d]))
      const c = O.toNullable(await right(a.deliveries.claim(d, 'dispatcher-1', dateAt(0), dateAt(30_000))))!
      const claims = raw(COLLECTIONS.webhookDeliveryClaims)
      expect(await claims.find({}).toArray()).to.deep.equal([
        { _id: `${d.id}|1`, delivery_id: d.id, owner: 'dispatcher-1', lease_until: dateAt(30_000) },
      ])
      await right(a.deliveries.settle(c, null, { status: 'cancelled', next_attempt_at: null, retries_used: 0 }, dateAt(1)))
      expect(await claims.countDocuments()).to.equal(0)
    })

    it('gives back a claim made from a stale read, and sweeps claims whose lease ended long ago', async () => {
      const d = aDelivery()
      const gone = aDelivery({ id: uuidFor(1), status: 'cancelled', next_attempt_at: null, updated_at: isoAt(10_000) })
      await right(a.deliveries.enqueue([d, gone]))
      expect(await right(a.deliveries.claim(gone, 'x', dateAt(0), dateAt(10)))).to.deep.equal(O.none)
      const claims = raw(COLLECTIONS.webhookDeliveryClaims)
      expect(await claims.countDocuments()).to.equal(0)
      // A dispatcher that died holding attempt 1: its claim is left behind.
      expect(O.isSome(await right(a.deliveries.claim(d, 'died', dateAt(0), dateAt(1_000))))).to.equal(true)
      expect(await right(a.deliveries.sweep(dateAt(1_000)))).to.equal(0)
      expect(await claims.countDocuments()).to.equal(1)
      expect(await right(a.deliveries.sweep(dateAt(1_001)))).to.equal(0)
      expect(await claims.countDocuments()).to.equal(0)
    })

    it('escapes reversibly, and composite ids never collide', () => {
      for (const s of ['', 'plain', '%', '%25', '|', '\u0000', 'a\u0000b|c%00d%7C', '%%||\u0000\u0000'])
        expect(unescapeText(escapeText(s))).to.equal(s)
      const pairs: [string, string][] = [
        ['a|b', 'c'],
        ['a', 'b|c'],
        ['a\u0000', 'b'],
        ['a', '\u0000b'],
        ['a%7C', 'b'],
        ['a', '%7Cb'],
        ['', 'a|b'],
      ]
      expect(new Set(pairs.map(([x, y]) => compositeId(x, y))).size).to.equal(pairs.length)
    })
  })

  describe('indexes', () => {
    const listed = async () => {
      const out: Record<string, unknown[]> = {}
      for (const c of new Set(INDEXES.map((i) => i.collection)))
        out[c] = (await dbOf(store).collection(c).indexes())
          .map((i) => ({ name: i.name, key: i.key, unique: i.unique ?? false }))
          .sort((x, y) => (x.name! < y.name! ? -1 : 1))
      return out
    }

    it('creates every index, one per spec, and creating them again changes nothing', async () => {
      const first = await listed()
      await store.ensureIndexes()
      await store.ensureIndexes()
      expect(await listed()).to.deep.equal(first)
      for (const spec of INDEXES) {
        const found = (first[spec.collection] as { name: string; key: object; unique: boolean }[]).find(
          (i) => i.name === spec.name || i.name === spec.ttl?.fallbackName,
        )
        expect(found, `${spec.collection}.${spec.name}`).to.deep.include({ key: spec.key, unique: spec.unique ?? false })
      }
    })

    it('enforces the unique indexes the adapters rely on', async () => {
      const key = anApiKeyPair()
      await right(a.keys.upsert(key))
      const clash = await left(a.keys.upsert(anApiKeyPair({ thumbprint: key.thumbprint })))
      expect(causeOf(clash)).to.include(`already belongs to API key pair ${key.id}`)
      // An update into a clash too (FerretDB reports that one as code 1, not 11000).
      const other = anApiKeyPair()
      await right(a.keys.upsert(other))
      expect(causeOf(await left(a.keys.upsert({ ...other, thumbprint: key.thumbprint })))).to.include(key.id)
      expect(await right(a.keys.findByThumbprint(other.thumbprint))).to.deep.equal(O.some(other))
    })
  })

  describe('expiry is data', () => {
    it('sweeps idempotency records only once expired for longer than the grace period', async () => {
      const store2 = a.idempotency
      await right(store2.claim(anIdempotencyRecord({ expires_at: isoAt(1_000) }), dateAt(0)))
      await right(store2.claim(anIdempotencyRecord({ expires_at: isoAt(10 * 60_000) }), dateAt(0)))
      expect(await store2.sweep(dateAt(1_000 + EXPIRY_GRACE_MS))).to.equal(0)
      expect(await store2.sweep(dateAt(1_001 + EXPIRY_GRACE_MS))).to.equal(1)
      expect(await raw(COLLECTIONS.idempotencyRecords).countDocuments()).to.equal(1)
    })

    it('sweeps rate-limit admissions once out of their window for longer than the grace period', async () => {
      for (const at of [0, 1, 2]) await right(a.rateLimits.admit('k', 5, 60_000, dateAt(at)))
      await right(a.rateLimits.admit('other', 5, 600_000, dateAt(0)))
      expect(await a.rateLimits.sweep(dateAt(60_000 + EXPIRY_GRACE_MS))).to.equal(0)
      expect(await a.rateLimits.sweep(dateAt(60_002 + EXPIRY_GRACE_MS))).to.equal(2)
      expect(await raw(COLLECTIONS.rateLimitAdmissions).countDocuments()).to.equal(2)
      expect(await right(a.rateLimits.admit('k', 5, 60_000, dateAt(60_002 + EXPIRY_GRACE_MS)))).to.deep.equal({
        admitted: true,
        remaining: 4,
        resetMs: 60_000,
      })
    })
  })

  describe('races without transactions', () => {
    it('leaves exactly one primary after concurrent promotions in one account', async () => {
      const records = Array.from({ length: 10 }, () => aGiftCardServiceRecord())
      await Promise.all(records.map((r) => right(a.giftCardServices.upsert(r))))
      const primaries = await raw(COLLECTIONS.giftCardServices).find({ merchant_account_id: MERCHANT_A, primary: true }).toArray()
      expect(primaries).to.have.length(1)
      expect(await right(a.giftCardServices.findPrimary(MERCHANT_A))).to.deep.equal(
        O.some(records.find((r) => r.service.id === primaries[0]!._id)),
      )
    })

    it('takes over an external identifier whose buyer was never written, once the claim is old', async () => {
      const claims = raw(COLLECTIONS.buyerExternalIdentifiers)
      await claims.insertOne({
        _id: compositeId(MERCHANT_A, 'crm-fresh'),
        buyer_id: '7a3f0c52-9d4e-4b1a-8c6d-0000000000aa',
        claimed_at: new Date(),
      })
      await claims.insertOne({
        _id: compositeId(MERCHANT_A, 'crm-old'),
        buyer_id: '7a3f0c52-9d4e-4b1a-8c6d-0000000000bb',
        claimed_at: new Date(Date.now() - 120_000),
      })
      // A fresh claim may be a creation still in flight: it holds the identifier.
      expect(await left(a.buyers.create(aBuyer({ external_identifier: 'crm-fresh' })))).to.deep.include({
        _tag: 'Duplicate',
        existingId: '7a3f0c52-9d4e-4b1a-8c6d-0000000000aa',
      })
      const b = aBuyer({ external_identifier: 'crm-old' })
      await right(a.buyers.create(b))
      expect(await right(a.buyers.findByExternalIdentifier(MERCHANT_A, 'crm-old'))).to.deep.equal(O.some(b))
    })

    it('rolls the claim back when the buyer cannot be inserted', async () => {
      const b = aBuyer({ external_identifier: 'crm-1' })
      await right(a.buyers.create(b))
      // Same id, another identifier: the buyer insert fails, and so must the claim.
      expect(await left(a.buyers.create({ ...b, external_identifier: 'crm-2' }))).to.deep.include({ _tag: 'Duplicate', existingId: b.id })
      expect(await raw(COLLECTIONS.buyerExternalIdentifiers).countDocuments({ _id: compositeId(MERCHANT_A, 'crm-2') })).to.equal(0)
      await right(a.buyers.create(aBuyer({ external_identifier: 'crm-2' })))
    })
  })

  describe('connection', () => {
    it('reports readiness with the database name', async () => {
      expect(await store.ping()).to.equal(store.dbName)
      const info = await store.serverInfo()
      expect(info.version).to.match(/^\d+\.\d+/)
      expect(info.summary).to.be.a('string').and.not.include('\n')
    })

    it('turns driver failures into Unavailable once the connection is gone', async () => {
      const late = await freshStore()
      const buyers = makeMongoAdapters(late.store).buyers
      await dbOf(late.store).dropDatabase()
      await late.store.close()
      const r = await buyers.findById(MERCHANT_A, aBuyer().id)()
      expect(E.isLeft(r) && r.left._tag).to.equal('Unavailable')
      const e = await late.store.ping().catch((x: unknown) => x)
      expect(e).to.be.instanceOf(MongoConnectionError)
      expect((e as Error).message)
        .to.include(late.store.dbName)
        .and.not.include('\n')
    })

    it('fails to connect to an unreachable server with one clear line, without credentials', async () => {
      const port = await closedPort()
      const started = Date.now()
      const e = await connectMongo(`mongodb://orka:s3cr3t-pw@127.0.0.1:${port}/orka_prod?authSource=admin`, {
        serverSelectionTimeoutMS: 300,
      }).catch((x: unknown) => x)
      expect(Date.now() - started).to.be.below(5_000)
      expect(e).to.be.instanceOf(MongoConnectionError)
      const msg = (e as Error).message
      expect(msg).to.match(new RegExp(`^cannot reach MongoDB at 127\\.0\\.0\\.1:${port} \\(database orka_prod\\): `))
      expect(msg).not.to.include('\n')
      expect(msg).not.to.include('s3cr3t').and.not.to.include('orka:')
    })

    it('rejects a malformed URI with one clear line, without credentials', async () => {
      for (const uri of ['mongodb://orka:s3cr3t-pw@127.0.0.1:27017/orka?maxPoolSize=lots', 'mongodb://orka:s3cr3t-pw@/orka']) {
        const e = await connectMongo(uri, { serverSelectionTimeoutMS: 300 }).catch((x: unknown) => x)
        expect(e, uri).to.be.instanceOf(MongoConnectionError)
        const msg = (e as Error).message
        expect(msg, uri).to.match(/^invalid MongoDB URI/)
        expect(msg, uri).not.to.include('\n').and.not.to.include('s3cr3t')
      }
    })

    it('uses the database named in the URI, else orka', async () => {
      const [, base, path, query] = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/([^?]*))?(\?.*)?$/.exec(MONGODB_URI)!
      const named = await connectMongo(`${base}/orka_uri_db${query ?? ''}`, { serverSelectionTimeoutMS: 5_000 })
      expect(named.dbName).to.equal('orka_uri_db')
      await named.close()
      const plain = await connectMongo(MONGODB_URI, { serverSelectionTimeoutMS: 5_000 })
      expect(plain.dbName).to.equal(path === undefined || path === '' ? 'orka' : path)
      await plain.close()
    })
  })
})
