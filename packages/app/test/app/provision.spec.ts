import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { randomBytes } from 'node:crypto'
import { makeMemoryAdapters } from '@orka/adapters-memory'
import { AesGcmSecretBox } from '@orka/adapters-node'
import { ROLE_CATALOGUE } from '@orka/domain'
import { applyDefaults, applySeed, ProvisioningPorts } from '../../src/provision'
import { generateKeyPair } from '../../src/dev-key'
import { runTask } from '../../src/run-task'

const ports = (): ProvisioningPorts => ({ ...makeMemoryAdapters(), box: new AesGcmSecretBox(randomBytes(32)) })
const now = new Date('2026-01-02T03:04:05.000Z')
const seek = { direction: 'forward' as const, from: O.none, limit: 100 }

describe('provisioning', () => {
  it('applies the defaults: role catalogue, default account, its primary mock service', async () => {
    const p = ports()
    await applyDefaults(p, now)
    expect(await p.roles.list(seek)()).to.deep.equal(E.right([...ROLE_CATALOGUE].sort((a, b) => (a.slug < b.slug ? -1 : 1))))
    expect(await p.merchantAccounts.find('default')()).to.deep.equal(
      E.right(O.some({ id: 'default', display_name: 'Default', locked: false })),
    )
    const primary = await p.services.findPrimary('default')()
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
})
