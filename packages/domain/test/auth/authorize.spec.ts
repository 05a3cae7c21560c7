import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiKeyPair } from '../../src/auth/api-key-pair'
import { isEmbedToken, makeAuthorize, Principal } from '../../src/auth/authorize'
import { MerchantAccount, MerchantAccountRepository } from '../../src/merchant-accounts/merchant-account'
import { forbidden, unavailable } from '../../src/shared/errors'
import { catalogueRoles } from '../../src/testing/doubles'

const ACCOUNTS: MerchantAccount[] = [
  { id: 'acme', display_name: 'Acme', locked: false },
  { id: 'globex', display_name: 'Globex', locked: false },
  { id: 'frozen', display_name: 'Frozen Ltd', locked: true },
]

const lookups: string[] = []
const merchantAccounts: MerchantAccountRepository = {
  find: (id) => {
    lookups.push(id)
    return TE.right(O.fromNullable(ACCOUNTS.find((a) => a.id === id)))
  },
  upsert: () => TE.right(undefined),
}
const key = (over: Partial<ApiKeyPair> = {}): ApiKeyPair => ({
  id: '5c1c4b4e-8d1a-4f3b-9a0e-1b2c3d4e5f60',
  thumbprint: 'tp',
  public_key_pem: '-----BEGIN PUBLIC KEY-----',
  merchant_account_id: null,
  roles: ['administrator'],
  revoked: false,
  created_at: '2025-01-01T00:00:00.000Z',
  ...over,
})
const principal = (scopes: string[], k: Partial<ApiKeyPair> = {}): Principal => ({ key: key(k), scopes, tokenId: 'jti-1' })

const authorize = makeAuthorize({ merchantAccounts, roles: catalogueRoles })

describe('makeAuthorize', () => {
  beforeEach(() => {
    lookups.length = 0
  })

  it("grants a scope the token asks for and the key's roles allow, on an open account", async () => {
    const p = principal(['gift-cards.write'])
    expect(await authorize({ principal: p, merchantAccountId: 'acme', required: 'gift-cards.write' })()).to.deep.equal(
      E.right({ principal: p, merchantAccount: { id: 'acme', display_name: 'Acme', locked: false } }),
    )
  })

  it('grants a key bound to the account it asks for', async () => {
    const p = principal(['roles.read'], { merchant_account_id: 'globex', roles: ['read-only'] })
    expect(await authorize({ principal: p, merchantAccountId: 'globex', required: 'roles.read' })()).to.deep.equal(
      E.right({ principal: p, merchantAccount: { id: 'globex', display_name: 'Globex', locked: false } }),
    )
  })

  it('grants an embed token gift-cards.write through a narrow role', async () => {
    const p = principal(['embed'], { roles: ['gift-card-operator'] })
    expect(await authorize({ principal: p, merchantAccountId: 'acme', required: 'gift-cards.write' })()).to.deep.equal(
      E.right({ principal: p, merchantAccount: ACCOUNTS[0] }),
    )
  })

  it('forbids a scope missing from the token with missing_scope, before looking up the account', async () => {
    const p = principal(['roles.read'])
    expect(await authorize({ principal: p, merchantAccountId: 'acme', required: 'gift-cards.write' })()).to.deep.equal(
      E.left(forbidden('missing_scope')),
    )
    expect(lookups).to.deep.equal([])
  })

  it('forbids an embed token a scope outside embed with missing_scope', async () => {
    const p = principal(['embed'])
    expect(await authorize({ principal: p, merchantAccountId: 'acme', required: 'roles.read' })()).to.deep.equal(
      E.left(forbidden('missing_scope')),
    )
  })

  it("forbids a token scope that the key's roles do not grant as restricted_api_key", async () => {
    const p = principal(['gift-cards.write'], { roles: ['read-only'] })
    expect(await authorize({ principal: p, merchantAccountId: 'acme', required: 'gift-cards.write' })()).to.deep.equal(
      E.left(forbidden('restricted_api_key')),
    )
  })

  it('treats a key whose role slugs are unknown as granting nothing', async () => {
    const p = principal(['roles.read'], { roles: ['no-such-role'] })
    expect(await authorize({ principal: p, merchantAccountId: 'acme', required: 'roles.read' })()).to.deep.equal(
      E.left(forbidden('restricted_api_key')),
    )
  })

  it('forbids a key bound to another account, without looking the account up', async () => {
    const p = principal(['roles.read'], { merchant_account_id: 'globex' })
    expect(await authorize({ principal: p, merchantAccountId: 'acme', required: 'roles.read' })()).to.deep.equal(
      E.left(forbidden('merchant_account')),
    )
    expect(lookups).to.deep.equal([])
  })

  it("gives an unknown account the same answer as another account's id, so ids cannot be probed", async () => {
    const bound = await authorize({
      principal: principal(['roles.read'], { merchant_account_id: 'globex' }),
      merchantAccountId: 'acme',
      required: 'roles.read',
    })()
    const unknown = await authorize({ principal: principal(['roles.read']), merchantAccountId: 'initech', required: 'roles.read' })()
    expect([bound, unknown]).to.deep.equal([E.left(forbidden('merchant_account')), E.left(forbidden('merchant_account'))])
  })

  it('forbids a locked account as locked', async () => {
    expect(await authorize({ principal: principal(['roles.read']), merchantAccountId: 'frozen', required: 'roles.read' })()).to.deep.equal(
      E.left(forbidden('locked')),
    )
  })

  it('passes on a failing role store as Unavailable', async () => {
    const boom = new Error('down')
    const failing = makeAuthorize({ merchantAccounts, roles: { ...catalogueRoles, findBySlugs: () => TE.left(unavailable(boom)) } })
    expect(await failing({ principal: principal(['roles.read']), merchantAccountId: 'acme', required: 'roles.read' })()).to.deep.equal(
      E.left(unavailable(boom)),
    )
  })
})

describe('isEmbedToken', () => {
  const cases: [string[], boolean][] = [
    [['embed'], true],
    [['embed', 'buyers.read'], true],
    [['gift-cards.write', 'gift-cards.read', 'checkout-sessions.write', 'transactions.write'], false],
    [['*.write'], false],
    [[], false],
  ]
  for (const [scopes, expected] of cases)
    it(`says ${expected} for [${scopes.join(', ')}]`, () => {
      expect(isEmbedToken(principal(scopes))).to.equal(expected)
    })
})
