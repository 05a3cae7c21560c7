import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { randomBytes } from 'node:crypto'
import { makeMemoryAdapters } from '@orka/adapters-memory'
import { AesGcmSecretBox, HmacMac } from '@orka/adapters-node'
import { ROLE_CATALOGUE } from '@orka/domain'
import { aPaymentServiceRecord } from '@orka/domain/testing'
import { applyDefaults, applySeed, ProvisioningPorts } from '../../src/provision'
import { cardServiceId } from '../../src/card-services'
import { SeedFile } from '../../src/seed-file'

type SeedService = NonNullable<SeedFile['payment_services']>[number]
import { generateKeyPair } from '../../src/dev-key'
import { runTask } from '../../src/run-task'

const ports = (): ProvisioningPorts => ({
  ...makeMemoryAdapters(),
  box: new AesGcmSecretBox(randomBytes(32)),
  mac: new HmacMac(randomBytes(32)),
})
const now = new Date('2026-01-02T03:04:05.000Z')
const seek = { direction: 'forward' as const, from: O.none, limit: 100 }

describe('provisioning', () => {
  it('applies the defaults: role catalogue, default account, its primary mock service', async () => {
    const p = ports()
    await applyDefaults(p, now)
    expect(await p.roles.list(seek)()).to.deep.equal(E.right([...ROLE_CATALOGUE].sort((a, b) => (a.slug < b.slug ? -1 : 1))))
    expect(await p.merchantAccounts.find('default')()).to.deep.equal(
      E.right(O.some({ created_at: now.toISOString(), id: 'default', display_name: 'Default', locked: false })),
    )
    const primary = await p.giftCardServices.findPrimary('default')()
    expect(E.isRight(primary) && O.isSome(primary.right) && primary.right.value.service.gift_card_service_definition_id).to.equal(
      'mock-gift-card',
    )
  })

  it('applies the same seed twice without duplicating anything', async () => {
    const p = ports()
    const key = generateKeyPair()
    const seed = {
      merchant_accounts: [{ id: 'acme', display_name: 'Acme' }],
      api_key_pairs: [{ public_key_pem: key.publicKeyPem }],
      buyers: [{ merchant_account_id: 'acme', external_identifier: 'b-1' }],
      webhook_subscriptions: [{ merchant_account_id: 'acme', url: 'https://example.test/h' }],
    }
    await applySeed(p, now, seed)
    await applySeed(p, new Date(now.getTime() + 1000), seed)
    const keys = await p.keys.list()()
    expect(E.isRight(keys) && keys.right.map((k) => [k.merchant_account_id, k.roles])).to.deep.equal([[null, ['administrator']]])
    const buyers = await p.buyers.list('acme', {}, seek)()
    expect(E.isRight(buyers) && buyers.right.map((b) => b.external_identifier)).to.deep.equal(['b-1'])
    const hooks = await p.webhooks.list({ merchantAccountId: 'acme', includeInstanceWide: false }, seek)()
    expect(E.isRight(hooks) && hooks.right.map((w) => w.url)).to.deep.equal(['https://example.test/h'])
  })

  it('never brings a revoked key back, and keeps when a key was first seeded', async () => {
    const p = ports()
    const seed = { api_key_pairs: [{ public_key_pem: generateKeyPair().publicKeyPem, roles: ['administrator'] }] }
    await applySeed(p, now, seed)
    const [key] = await runTask(p.keys.list(), 'keys')
    await runTask(p.keys.revoke(key!.id), 'revoke')
    await applySeed(p, new Date(now.getTime() + 60_000), seed)
    expect(await runTask(p.keys.list(), 'keys')).to.deep.equal([{ ...key, revoked: true }])
  })

  it('keeps what the API set on a seeded key (its name, a suspension) when the seed is applied again', async () => {
    const p = ports()
    const seed = { api_key_pairs: [{ public_key_pem: generateKeyPair().publicKeyPem, roles: ['administrator'] }] }
    await applySeed(p, now, seed)
    const [key] = await runTask(p.keys.list(), 'keys')
    await runTask(p.keys.update(key!.id, { display_name: 'Ops key', active: false, updated_at: now.toISOString() }), 'update')
    await applySeed(p, new Date(now.getTime() + 60_000), seed)
    expect(await runTask(p.keys.list(), 'keys')).to.deep.equal([
      { ...key, display_name: 'Ops key', active: false, updated_at: now.toISOString() },
    ])
  })

  it('refuses a seed that names a role outside the catalogue', async () => {
    let error: unknown
    try {
      await applySeed(ports(), now, { api_key_pairs: [{ public_key_pem: generateKeyPair().publicKeyPem, roles: ['root'] }] })
    } catch (e) {
      error = e
    }
    expect((error as Error).message).to.equal("seed: api key pair role 'root' is not in the role catalogue")
  })

  it('refuses a key whose add-on role lacks the role it applies to, and takes it beside that role', async () => {
    const pem = generateKeyPair().publicKeyPem
    let error: unknown
    try {
      await applySeed(ports(), now, { api_key_pairs: [{ public_key_pem: pem, roles: ['webhook-manager'] }] })
    } catch (e) {
      error = e
    }
    expect((error as Error).message).to.equal(
      "seed: api key pair role 'webhook-manager' cannot stand alone; give the key one of: 'read-only'",
    )
    await applySeed(ports(), now, { api_key_pairs: [{ public_key_pem: pem, roles: ['read-only', 'webhook-manager'] }] })
  })

  describe('card services', () => {
    const later = new Date(now.getTime() + 60_000)
    const mockCards = (account: string) =>
      aPaymentServiceRecord({
        id: cardServiceId({ merchant_account_id: account, payment_service_definition_id: 'mock-card', display_name: 'Mock cards' }),
        merchant_account_id: account,
        sealed_fields: [],
        revision: 0,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      })
    const servicesOf = (p: ProvisioningPorts, account: string) => runTask(p.cardServices.listForAccount(account), 'list')
    const down = {
      merchant_account_id: 'acme',
      payment_service_definition_id: 'mock-card',
      display_name: 'Down',
      fields: [{ key: 'mode', value: 'down' }],
    }
    const up = { merchant_account_id: 'acme', payment_service_definition_id: 'mock-card', display_name: 'Up' }

    it('gives default and every seeded account one active mock-card service, once', async () => {
      const p = ports()
      const seed = { merchant_accounts: [{ id: 'acme', display_name: 'Acme' }] }
      await applyDefaults(p, now, seed)
      await applyDefaults(p, later, seed)
      expect(await servicesOf(p, 'default')).to.deep.equal([mockCards('default')])
      expect(await servicesOf(p, 'acme')).to.deep.equal([mockCards('acme')])
    })

    it("gives an account the seed names card services for only those, in the seed's order unless positioned", async () => {
      const p = ports()
      const seed = { merchant_accounts: [{ id: 'acme', display_name: 'Acme' }], payment_services: [down, up] }
      await applyDefaults(p, now, seed)
      await applySeed(p, now, seed)
      const services = await servicesOf(p, 'acme')
      expect(services.map((s) => [s.display_name, s.position, s.active, s.fields])).to.deep.equal([
        ['Down', 0, true, [{ key: 'mode', value: 'down' }]],
        ['Up', 1, true, []],
      ])
      expect(services.map((s) => s.id)).to.deep.equal([cardServiceId(down), cardServiceId(up)])
      expect(await servicesOf(p, 'default')).to.deep.equal([mockCards('default')])
    })

    it('applies seeded card services idempotently: unchanged ones are left alone, changed ones keep when they were first stored', async () => {
      const p = ports()
      const seed = { payment_services: [{ ...up, position: 3, accepted_currencies: ['USD', 'EUR'], accepted_countries: ['US'] }] }
      await applySeed(p, now, seed)
      const [first] = await servicesOf(p, 'acme')
      // As a store may give it back: its keys in another order.
      const reordered = { ...Object.fromEntries(Object.entries(first!).reverse()), revision: 1 } as NonNullable<typeof first>
      await runTask(p.cardServices.write(reordered), 'write')
      await applySeed(p, later, seed)
      expect(await servicesOf(p, 'acme')).to.deep.equal([reordered])
      await applySeed(p, later, { payment_services: [{ ...seed.payment_services[0]!, active: false }] })
      expect(await servicesOf(p, 'acme')).to.deep.equal([{ ...first, active: false, updated_at: later.toISOString(), revision: 2 }])
    })

    it("deactivates an account's default card service once the seed names its card services, and leaves one changed since alone", async () => {
      const p = ports()
      await applyDefaults(p, now, { merchant_accounts: [{ id: 'acme', display_name: 'Acme' }] })
      const changed = { ...mockCards('default'), fields: [{ key: 'mode', value: 'down' }], revision: 1 }
      await runTask(p.cardServices.write(changed), 'write')
      const seed = { merchant_accounts: [{ id: 'acme', display_name: 'Acme' }], payment_services: [up] }
      await applyDefaults(p, later, seed)
      await applySeed(p, later, seed)
      expect((await servicesOf(p, 'acme')).map((s) => [s.display_name, s.active])).to.deep.equal([
        ['Mock cards', false],
        ['Up', true],
      ])
      expect(await servicesOf(p, 'default')).to.deep.equal([changed])
    })

    it('refuses a card service Orka has no connector for, or a mode the mock does not know, before writing anything', async () => {
      const refusal = async (f: () => Promise<void>) => {
        try {
          await f()
        } catch (e) {
          return (e as Error).message
        }
        return undefined
      }
      const cases: [SeedService, string][] = [
        [
          { ...up, payment_service_definition_id: 'worldpay-card' },
          "seed: payment service Up: /payment_service_definition_id: Orka has no connector 'worldpay-card' (it has: mock-card, stripe-card, adyen-card)",
        ],
        [
          { ...up, fields: [{ key: 'mode', value: 'Down' }] },
          "seed: payment service Up: /fields/0/value: mode 'Down' is not one of: down, timeout",
        ],
      ]
      for (const [service, message] of cases) {
        const p = ports()
        const seed = { merchant_accounts: [{ id: 'acme', display_name: 'Acme' }], payment_services: [service] }
        expect(await refusal(() => applyDefaults(p, now, seed))).to.equal(message)
        expect(await refusal(() => applySeed(p, now, seed))).to.equal(message)
        expect(await runTask(p.cardServices.listAll(), 'list')).to.deep.equal([])
      }
    })
  })
})
