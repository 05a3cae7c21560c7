import { expect } from 'chai'
import { STORAGE_PORT_NAMES } from '@orka/domain'
import { ADAPTERS_MONGO_AVAILABLE, makeMongoAdapters } from '../src'
import { freshStore } from './support'

describe('adapters-mongo', () => {
  it('declares itself available, so the app may select it when MONGODB_URI is set', () => {
    expect(ADAPTERS_MONGO_AVAILABLE).to.equal(true)
  })

  it('makes one adapter per storage port, keyed as the app container registers them', async () => {
    const f = await freshStore()
    try {
      const adapters = makeMongoAdapters(f.store)
      const ports: Record<string, string[]> = {
        merchantAccounts: ['find', 'upsert', 'create', 'list'],
        keys: ['findByThumbprint', 'upsert', 'list', 'revoke'],
        roles: ['list', 'findBySlugs', 'upsert'],
        buyers: ['create', 'findById', 'findByExternalIdentifier', 'list'],
        shippingDetails: ['create', 'findById', 'listOfBuyer', 'update', 'delete', 'deleteOfBuyer'],
        webhooks: ['create', 'ensure', 'findById', 'list', 'delete', 'update', 'findForDelivery', 'recipients'],
        giftCardServices: ['findPrimary', 'upsert'],
        giftCardVault: ['findById', 'findByFingerprint', 'insert'],
        idempotency: ['claim', 'complete', 'release'],
        rateLimits: ['admit'],
        outbox: ['add', 'remove', 'olderThan'],
        deliveries: ['enqueue', 'due', 'claim', 'settle', 'cancelPending', 'findById', 'list', 'redeliver', 'sweep'],
        cardServices: ['write', 'listForAccount', 'findById', 'listAll'],
        transactions: ['put', 'find', 'history', 'list', 'findByRefund', 'stale'],
        checkoutSessions: ['create', 'find', 'findById', 'update', 'delete', 'putCard', 'takeCard', 'sweep'],
        giftCardLedger: ['balance', 'debit', 'credit', 'entries'],
        paymentMethods: [
          'findById',
          'findByFingerprint',
          'insert',
          'list',
          'forBuyer',
          'update',
          'settle',
          'recordUse',
          'delete',
          'deleteByBuyer',
        ],
        audit: ['add', 'commit', 'drop', 'pendingBefore', 'list', 'sweep'],
      }
      expect(Object.keys(adapters).sort()).to.deep.equal([...STORAGE_PORT_NAMES].sort())
      expect(Object.keys(ports).sort()).to.deep.equal([...STORAGE_PORT_NAMES].sort())
      for (const [key, methods] of Object.entries(ports))
        for (const m of methods)
          expect(typeof (adapters as unknown as Record<string, Record<string, unknown>>)[key]![m], `${key}.${m}`).to.equal('function')
    } finally {
      await f.teardown()
    }
  })
})
