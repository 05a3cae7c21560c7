import { expect } from 'chai'
import { checkScope, EMBED_SCOPES, grants, isScope, ScopeCheck } from '../../src/auth/scopes'

describe('grants', () => {
  const cases: [string[], string, boolean][] = [
    [['gift-cards.write'], 'gift-cards.write', true],
    [['gift-cards.read'], 'gift-cards.write', false],
    [['gift-cards.write'], 'gift-cards.read', false],
    [['buyers.write'], 'gift-cards.write', false],
    [['*.read'], 'roles.read', true],
    [['*.read'], 'webhook-subscriptions.read', true],
    [['*.read'], 'roles.write', false],
    [['*.write'], 'webhook-subscriptions.write', true],
    [['*.write'], 'roles.read', false],
    [['*.read'], 'checkout-sessions.read', true],
    [['*.write'], 'checkout-sessions.write', true],
    [['*.read'], 'checkout-sessions.write', false],
    [['checkout-sessions.write'], 'checkout-sessions.read', false],
    [['embed'], 'gift-cards.read', true],
    [['embed'], 'gift-cards.write', true],
    [['embed'], 'checkout-sessions.write', true],
    [['embed'], 'transactions.write', true],
    [['embed'], 'roles.read', false],
    [['embed'], 'buyers.read', false],
    [['embed'], 'buyers.write', false],
    [['embed'], 'transactions.read', false],
    [['embed'], 'checkout-sessions.read', false],
    [['embed'], 'webhook-subscriptions.write', false],
    [['embed'], 'api-key-pairs.write', false],
    [['embed'], 'embed', true],
    [[], 'gift-cards.read', false],
    [['roles.read', 'gift-cards.write'], 'gift-cards.write', true],
    [['gift-cards'], 'gift-cards.read', false],
    // A scope grants those below it, and only those.
    [['buyers.read'], 'buyers.shipping-details.read', true],
    [['buyers.write'], 'buyers.shipping-details.write', true],
    [['buyers.read'], 'buyers.shipping-details.write', false],
    [['buyers.shipping-details.read'], 'buyers.read', false],
    [['buyers.read'], 'buyers-archive.read', false],
    [['buyers.shipping-details.read'], 'buyers.shipping-details-extra.read', false],
    [['embed'], 'buyers.shipping-details.read', true],
    [['embed'], 'buyers.shipping-details.write', true],
  ]
  for (const [held, required, expected] of cases)
    it(`${expected ? 'grants' : 'does not grant'} ${required} to [${held.join(', ')}]`, () => {
      expect(grants(held, required)).to.equal(expected)
    })

  it('expands embed to exactly the nine browser-safe scopes', () => {
    expect([...EMBED_SCOPES].sort()).to.deep.equal([
      'buyers.shipping-details.read',
      'buyers.shipping-details.write',
      'checkout-sessions.write',
      'gift-cards.read',
      'gift-cards.write',
      'payment-methods.read',
      'payment-methods.write',
      'payment-options.read',
      'transactions.write',
    ])
  })
})

describe('checkScope', () => {
  const cases: [string, string[], string[], string, ScopeCheck][] = [
    ['a token scope the key grants', ['gift-cards.write'], ['gift-cards.write'], 'gift-cards.write', 'granted'],
    ['a token wildcard within the key wildcard', ['*.read'], ['*.read', '*.write'], 'roles.read', 'granted'],
    ['an embed token on an administrator key', ['embed'], ['*.read', '*.write'], 'gift-cards.write', 'granted'],
    ['a scope the token lacks, whatever the key grants', ['roles.read'], ['*.read', '*.write'], 'gift-cards.write', 'missing_scope'],
    ['a scope neither token nor key has', [], [], 'roles.read', 'missing_scope'],
    ["a scope the token carries but the key's roles do not", ['gift-cards.write'], ['*.read'], 'gift-cards.write', 'restricted_api_key'],
    ['a token wildcard beyond a narrow key', ['*.write'], ['gift-cards.write'], 'webhook-subscriptions.write', 'restricted_api_key'],
    ['an embed token on a key without gift card rights', ['embed'], ['roles.read'], 'gift-cards.write', 'restricted_api_key'],
  ]
  for (const [name, token, key, required, expected] of cases)
    it(`answers ${expected} for ${name}`, () => {
      expect(checkScope(token, key, required)).to.equal(expected)
    })
})

describe('isScope', () => {
  const cases: [string, boolean][] = [
    ['gift-cards.read', true],
    ['gift-cards.write', true],
    ['webhook-subscriptions.write', true],
    ['checkout-sessions.read', true],
    ['checkout-sessions.write', true],
    ['*.read', true],
    ['*.write', true],
    ['embed', true],
    ['payment-methods.network-tokens.read', true],
    ['gift-cards.delete', false],
    ['gift-cards', false],
    ['Gift-cards.read', false],
    ['*', false],
    ['*.*', false],
    ['*.*.read', false],
    ['.read', false],
    ['gift-cards.read ', false],
    ['', false],
    ['EMBED', false],
  ]
  for (const [s, expected] of cases)
    it(`${expected ? 'accepts' : 'rejects'} "${s}"`, () => {
      expect(isScope(s)).to.equal(expected)
    })
})
