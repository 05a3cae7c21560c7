import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { forbidden, makeAuthorize, MerchantAccountRepository, Principal, ROLE_CATALOGUE, RoleRepository, unavailable } from '@orka/domain'
import { aMerchantAccount, anApiKeyPair, aPrincipal, MERCHANT_A, MERCHANT_B, right } from '@orka/domain/testing'
import { MemoryMerchantAccountRepository, MemoryRoleRepository } from '../../src'

describe('makeAuthorize', () => {
  const acme = aMerchantAccount({ id: MERCHANT_A, display_name: 'Acme Retail Ltd' })
  const globex = aMerchantAccount({ id: MERCHANT_B, display_name: 'Globex Stores' })
  const locked = aMerchantAccount({ id: 'initech', display_name: 'Initech', locked: true })

  /** The accounts looked up so far, by the authorize `setup` last made. */
  const lookups: string[] = []
  const setup = async (withRoles: (roles: RoleRepository) => RoleRepository = (roles) => roles) => {
    const accounts = new MemoryMerchantAccountRepository()
    const roles = new MemoryRoleRepository()
    for (const a of [acme, globex, locked]) await right(accounts.upsert(a))
    for (const r of ROLE_CATALOGUE) await right(roles.upsert(r))
    lookups.length = 0
    const merchantAccounts: MerchantAccountRepository = {
      find: (id) => {
        lookups.push(id)
        return accounts.find(id)
      },
      upsert: (a) => accounts.upsert(a),
      create: (a) => accounts.create(a),
      list: (seek) => accounts.list(seek),
    }
    const authorize = makeAuthorize({ merchantAccounts, roles: withRoles(roles) })
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
    const admin = principal(['gift-cards.write'], ['administrator'])
    expect(await authorize(admin, 'gift-cards.write')).to.deep.equal(E.right({ principal: admin, merchantAccount: acme }))
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
    expect(lookups).to.deep.equal([])
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

  it('confines a key bound to an account to that account, refusing others without looking them up', async () => {
    const authorize = await setup()
    const p = principal(['*.read'], ['administrator'], MERCHANT_B)
    expect(await authorize(p, 'roles.read')).to.deep.equal(E.left(forbidden('merchant_account')))
    expect(lookups).to.deep.equal([])
    expect(await authorize(p, 'roles.read', MERCHANT_B)).to.deep.equal(E.right({ principal: p, merchantAccount: globex }))
    const narrow = principal(['roles.read'], ['read-only'], MERCHANT_B)
    expect(await authorize(narrow, 'roles.read', MERCHANT_B)).to.deep.equal(E.right({ principal: narrow, merchantAccount: globex }))
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

  it('passes on a failing role store as Unavailable', async () => {
    const boom = unavailable(new Error('down'))
    const authorize = await setup((roles) => ({
      list: (s) => roles.list(s),
      upsert: (r) => roles.upsert(r),
      findBySlugs: () => TE.left(boom),
    }))
    expect(await authorize(principal(['roles.read'], ['administrator']), 'roles.read')).to.deep.equal(E.left(boom))
  })
})
