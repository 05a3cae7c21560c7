import { expect } from 'chai'
import { ACCOUNT_REACH, cardReach, CardReach } from '../../src/reach/card-reach'
import { aPrincipal } from '../../src/testing/fixtures'

describe('cardReach', () => {
  const claim = { id: null, externalIdentifier: 'crm-1' }
  const access = (scopes: string[], embedBuyer?: typeof claim) => ({
    principal: { ...aPrincipal({ scopes }), ...(embedBuyer === undefined ? {} : { embedBuyer }) },
    merchantAccount: { id: 'default', display_name: 'Default', locked: false },
  })
  const cases: [string[], typeof claim | undefined, 'gift-cards.read' | 'gift-cards.write', CardReach][] = [
    [['gift-cards.read'], undefined, 'gift-cards.read', ACCOUNT_REACH],
    [['*.read'], claim, 'gift-cards.read', ACCOUNT_REACH],
    [['embed', 'gift-cards.read'], claim, 'gift-cards.read', ACCOUNT_REACH],
    [['embed', 'gift-cards.read'], claim, 'gift-cards.write', { kind: 'buyer', buyer: claim }],
    [['embed'], claim, 'gift-cards.read', { kind: 'buyer', buyer: claim }],
    [['embed'], undefined, 'gift-cards.read', { kind: 'none' }],
    [['embed', '*.write'], undefined, 'gift-cards.write', ACCOUNT_REACH],
  ]
  for (const [scopes, embedBuyer, scope, expected] of cases)
    it(`gives [${scopes.join(', ')}]${embedBuyer ? ' naming a buyer' : ''} ${expected.kind} reach for ${scope}`, () => {
      expect(cardReach(access(scopes, embedBuyer), scope)).to.deep.equal(expected)
    })
})
