import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { forbidden, makeAuthorize, Principal, ROLE_CATALOGUE } from '@orka/domain'
import { aMerchantAccount, anApiKeyPair, aPrincipal, MERCHANT_A, MERCHANT_B, right } from '@orka/domain/testing'
import { MemoryMerchantAccountRepository, MemoryRoleRepository } from '../../src'

describe('makeAuthorize', () => {
  const acme = aMerchantAccount({ id: MERCHANT_A, display_name: 'Acme Retail Ltd' })
  const globex = aMerchantAccount({ id: MERCHANT_B, display_name: 'Globex Stores' })
  const locked = aMerchantAccount({ id: 'initech', display_name: 'Initech', locked: true })

  const setup = async () => {
    const merchantAccounts = new MemoryMerchantAccountRepository()
    const roles = new MemoryRoleRepository()
    for (const a of [acme, globex, locked]) await right(merchantAccounts.upsert(a))
    for (const r of ROLE_CATALOGUE) await right(roles.upsert(r))
    const authorize = makeAuthorize({ merchantAccounts, roles })
    return (principal: Principal, required: string, merchantAccountId = MERCHANT_A) =>
      authorize({ principal, merchantAccountId, required })()
  }
  const principal = (scopes: string[], roles: string[], merchant_account_id: string | null = null) =>
    aPrincipal({ scopes, key: anApiKeyPair({ roles, merchant_account_id }) })

  it('grants through wildcard scopes on an administrator key', async () => {
    const authorize = await setup()
    const p = principal(['*.read', '*.write'], ['administrator'])
    expect(await authorize(p, 'roles.read')).to.deep.equal(E.right({ principal: p, merchantAccount: acme }))
    expect(await authorize(p, 'webhook-subscriptions.write', MERCHANT_B)).to.deep.equal(E.right({ principal: p, merchantAccount: globex }))
  })

  it('grants an exact scope the key role allows', async () => {
    const authorize = await setup()
    const p = principal(['gift-cards.write'], ['gift-card-operator'])
    expect(await authorize(p, 'gift-cards.write')).to.deep.equal(E.right({ principal: p, merchantAccount: acme }))
  })

  it('refuses a token without the scope (missing_scope), before looking at the account', async () => {
    const authorize = await setup()
    expect(await authorize(principal(['roles.read'], ['administrator']), 'gift-cards.write')).to.deep.equal(
      E.left(forbidden('missing_scope')),
    )
    expect(await authorize(principal(['*.read'], ['administrator']), 'gift-cards.write')).to.deep.equal(E.left(forbidden('missing_scope')))
    expect(await authorize(principal([], ['administrator']), 'roles.read', 'no-such-account')).to.deep.equal(
      E.left(forbidden('missing_scope')),
    )
  })

  it('refuses a token whose key does not allow the scope (restricted_api_key)', async () => {
    const authorize = await setup()
    expect(await authorize(principal(['*.write'], ['read-only']), 'gift-cards.write')).to.deep.equal(
      E.left(forbidden('restricted_api_key')),
    )
    expect(
      await authorize(principal(['webhook-subscriptions.write'], ['gift-card-operator']), 'webhook-subscriptions.write'),
    ).to.deep.equal(E.left(forbidden('restricted_api_key')))
    expect(await authorize(principal(['roles.read'], ['no-such-role']), 'roles.read')).to.deep.equal(
      E.left(forbidden('restricted_api_key')),
    )
  })

  it('combines the permissions of all the key roles', async () => {
    const authorize = await setup()
    const p = principal(['webhook-subscriptions.write', 'roles.read'], ['read-only', 'webhook-manager'])
    expect(await authorize(p, 'webhook-subscriptions.write')).to.deep.equal(E.right({ principal: p, merchantAccount: acme }))
    expect(await authorize(p, 'roles.read')).to.deep.equal(E.right({ principal: p, merchantAccount: acme }))
  })

  it('confines a key bound to an account to that account', async () => {
    const authorize = await setup()
    const p = principal(['*.read'], ['administrator'], MERCHANT_B)
    expect(await authorize(p, 'roles.read')).to.deep.equal(E.left(forbidden('merchant_account')))
    expect(await authorize(p, 'roles.read', MERCHANT_B)).to.deep.equal(E.right({ principal: p, merchantAccount: globex }))
  })

  it('answers an unknown account like a foreign one', async () => {
    const authorize = await setup()
    expect(await authorize(principal(['*.read'], ['administrator']), 'roles.read', 'no-such-account')).to.deep.equal(
      E.left(forbidden('merchant_account')),
    )
  })

  it('refuses a locked account', async () => {
    const authorize = await setup()
    expect(await authorize(principal(['*.read'], ['administrator']), 'roles.read', 'initech')).to.deep.equal(E.left(forbidden('locked')))
  })

  it('lets an embed token do what a checkout page needs, and nothing more', async () => {
    const authorize = await setup()
    const operator = principal(['embed'], ['gift-card-operator'])
    expect(await authorize(operator, 'gift-cards.write')).to.deep.equal(E.right({ principal: operator, merchantAccount: acme }))
    expect(await authorize(operator, 'roles.read')).to.deep.equal(E.left(forbidden('missing_scope')))
    expect(await authorize(operator, 'transactions.write')).to.deep.equal(E.left(forbidden('restricted_api_key')))
    const admin = principal(['embed'], ['administrator'])
    expect(await authorize(admin, 'checkout-sessions.write')).to.deep.equal(E.right({ principal: admin, merchantAccount: acme }))
    expect(await authorize(admin, 'webhook-subscriptions.write')).to.deep.equal(E.left(forbidden('missing_scope')))
  })
})
