import { expect } from 'chai'
import { isEmbedToken } from '../../src/auth/authorize'
import { aPrincipal } from '../../src/testing/fixtures'

// makeAuthorize itself is tested on the memory adapters: packages/adapters-memory/test/use-cases/authorize.spec.ts.
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
      expect(isEmbedToken(aPrincipal({ scopes }))).to.equal(expected)
    })
})
