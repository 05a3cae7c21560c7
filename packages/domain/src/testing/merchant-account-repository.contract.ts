import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { MerchantAccount, merchantAccountSortKey } from '../merchant-accounts/merchant-account'
import { MerchantAccountRepository } from '../merchant-accounts/merchant-account.ports'
import { Seek } from '../pagination/page'
import { duplicate } from '../shared/errors'
import { aMerchantAccount, isoAt } from './fixtures'
import { Harness, left, right, teardownHarness } from './harness'
import { keysetBehaviour } from './keyset'

const all: Seek = { direction: 'forward', from: O.none, limit: 100 }

/** Every optional field set, settings and sealed secrets included: what must round-trip exactly. */
const aFullAccount = (o: Partial<MerchantAccount> = {}): MerchantAccount =>
  aMerchantAccount({
    display_name: 'Initech Payments',
    locked: true,
    created_at: isoAt(1_000),
    updated_at: isoAt(2_000),
    settings: {
      account_updater_enabled: true,
      async_network_tokens_enabled: false,
      over_capture_amount: 5_000,
      over_capture_percentage: null,
      loon_accepted_schemes: ['visa', 'mastercard'],
      account_updater_request_encryption_key_id: 'req-key-1',
      account_updater_response_decryption_key_id: null,
      visa_network_tokens_requestor_id: 'visa-req-1',
      visa_network_tokens_app_id: 'visa-app-1',
      amex_network_tokens_requestor_id: null,
      amex_network_tokens_app_id: null,
      mastercard_network_tokens_requestor_id: 'mc-req-1',
      mastercard_network_tokens_app_id: 'mc-app-1',
    },
    sealed: { loon_client_key: 'v1.c2VhbGVkLWNsaWVudA', loon_secret_key: 'v1.c2VhbGVkLXNlY3JldA' },
    ...o,
  })

export const merchantAccountRepositoryContract = (name: string, setup: () => Promise<Harness<MerchantAccountRepository>>) =>
  describe(`MerchantAccountRepository: ${name}`, () => {
    let h: Harness<MerchantAccountRepository>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('finds nothing for an unknown id', async () => {
      expect(await right(h.port.find('no-such-account'))).to.deep.equal(O.none)
    })

    it('finds an account it stored', async () => {
      const account = aMerchantAccount()
      await right(h.port.upsert(account))
      expect(await right(h.port.find(account.id))).to.deep.equal(O.some(account))
    })

    it('replaces the account with the same id on upsert', async () => {
      const account = aMerchantAccount({ display_name: 'Acme Retail Ltd' })
      await right(h.port.upsert(account))
      const locked = { ...account, display_name: 'Acme Retail (suspended)', locked: true }
      await right(h.port.upsert(locked))
      expect(await right(h.port.find(account.id))).to.deep.equal(O.some(locked))
    })

    it('keeps accounts apart', async () => {
      const a = aMerchantAccount({ display_name: 'Acme Retail Ltd' })
      const b = aMerchantAccount({ display_name: 'Globex Stores', locked: true })
      await right(h.port.upsert(a))
      await right(h.port.upsert(b))
      expect(await right(h.port.find(a.id))).to.deep.equal(O.some(a))
      expect(await right(h.port.find(b.id))).to.deep.equal(O.some(b))
    })

    describe('create', () => {
      it('stores the account', async () => {
        const account = aMerchantAccount({ created_at: isoAt(0) })
        await right(h.port.create(account))
        expect(await right(h.port.find(account.id))).to.deep.equal(O.some(account))
      })

      it('refuses an id that is taken, naming it, and leaves the first as it was', async () => {
        const first = aMerchantAccount({ display_name: 'Acme Retail Ltd', created_at: isoAt(0) })
        await right(h.port.create(first))
        const second = { ...first, display_name: 'Someone else', locked: true, created_at: isoAt(5_000) }
        expect(await left(h.port.create(second))).to.deep.equal(duplicate('MerchantAccount', first.id))
        expect(await right(h.port.find(first.id))).to.deep.equal(O.some(first))
        expect(await right(h.port.list(all))).to.deep.equal([first])
      })

      it('refuses the id of an account stored by upsert', async () => {
        const seeded = aMerchantAccount()
        await right(h.port.upsert(seeded))
        expect(await left(h.port.create(aMerchantAccount({ id: seeded.id, created_at: isoAt(0) })))).to.deep.equal(
          duplicate('MerchantAccount', seeded.id),
        )
        expect(await right(h.port.find(seeded.id))).to.deep.equal(O.some(seeded))
      })

      it('round-trips an account with every optional field set, through create and through upsert', async () => {
        const created = aFullAccount()
        await right(h.port.create(created))
        expect(await right(h.port.find(created.id))).to.deep.equal(O.some(created))
        const upserted = aFullAccount({ sealed: { account_updater_request_encryption_key: 'v1.a2V5' } })
        await right(h.port.upsert(upserted))
        expect(await right(h.port.find(upserted.id))).to.deep.equal(O.some(upserted))
        expect(await right(h.port.list(all))).to.deep.equal([upserted, created].sort((a, b) => (a.id < b.id ? 1 : -1)))
      })

      it('replaces a full account by upsert with one that has no optional field, dropping them', async () => {
        const full = aFullAccount()
        await right(h.port.create(full))
        const bare = { id: full.id, display_name: 'Bare', locked: false }
        await right(h.port.upsert(bare))
        expect(await right(h.port.find(full.id))).to.deep.equal(O.some(bare))
      })
    })

    describe('list', () => {
      keysetBehaviour({
        order: 'descending',
        ties: true,
        make: (createdAt, id) => aMerchantAccount({ id, created_at: createdAt, updated_at: createdAt }),
        keyOf: merchantAccountSortKey,
        sortValue: (i) => isoAt(i * 60_000),
        store: async (accounts) => {
          for (const a of accounts) await right(h.port.create(a))
        },
        read: (seek) => right(h.port.list(seek)),
      })

      it('lists nothing when there is no account', async () => {
        expect(await right(h.port.list(all))).to.deep.equal([])
      })

      it('lists accounts stored by upsert as well as by create', async () => {
        const older = aMerchantAccount({ created_at: isoAt(0) })
        const newer = aMerchantAccount({ created_at: isoAt(1_000) })
        await right(h.port.upsert(older))
        await right(h.port.create(newer))
        expect(await right(h.port.list(all))).to.deep.equal([newer, older])
      })

      it('lists accounts without created_at as created at the epoch: after every other, by id, and pages through them', async () => {
        // Ids chosen so that id order alone would interleave them with the dated ones.
        const undatedLow = aMerchantAccount({ id: 'a-undated' })
        const undatedHigh = aMerchantAccount({ id: 'z-undated' })
        const old = aMerchantAccount({ id: 'm-old', created_at: isoAt(0) })
        const recent = aMerchantAccount({ id: 'b-recent', created_at: isoAt(60_000), updated_at: isoAt(120_000) })
        for (const a of [undatedLow, recent, undatedHigh]) await right(h.port.upsert(a))
        await right(h.port.create(old))
        const expected = [recent, old, undatedHigh, undatedLow]
        expect(await right(h.port.list(all))).to.deep.equal(expected)
        const from = (a: MerchantAccount) => O.some(merchantAccountSortKey(a))
        expect(await right(h.port.list({ direction: 'forward', from: from(old), limit: 1 }))).to.deep.equal([undatedHigh])
        expect(await right(h.port.list({ direction: 'forward', from: from(undatedHigh), limit: 10 }))).to.deep.equal([undatedLow])
        expect(await right(h.port.list({ direction: 'backward', from: from(undatedLow), limit: 2 }))).to.deep.equal([undatedHigh, old])
        expect(await right(h.port.list({ direction: 'backward', from: O.none, limit: 10 }))).to.deep.equal([...expected].reverse())
      })
    })
  })
