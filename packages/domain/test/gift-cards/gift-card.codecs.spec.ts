import { expect } from 'chai'
import * as t from 'io-ts'
import { GiftCardActivationCreate, GiftCardBalanceRequest, GiftCardCreate } from '../../src/gift-cards/gift-card.codecs'
import { decoded, faultsOf } from '../helpers'

const N16 = '4111111111111111'

describe('PIN bounds', () => {
  const where: [string, t.Decoder<unknown, unknown>, (pin: string) => unknown, (string | number)[]][] = [
    ['an activation', GiftCardActivationCreate, (pin) => ({ number: N16, pin }), ['pin']],
    ['a card to store', GiftCardCreate, (pin) => ({ number: N16, pin }), ['pin']],
    ['a balance item', GiftCardBalanceRequest, (pin) => ({ items: [{ number: N16, pin }] }), ['items', 0, 'pin']],
  ]
  for (const [what, codec, body, path] of where) {
    it(`accepts a PIN of 64 characters in ${what}, astral ones included`, () => {
      expect(decoded(codec, body('7'.repeat(64)))).to.deep.equal(body('7'.repeat(64)))
      expect(decoded(codec, body('😀'.repeat(64)))).to.deep.equal(body('😀'.repeat(64)))
    })

    it(`rejects a PIN of 65 characters in ${what} as string_too_long, max_length 64`, () => {
      expect(faultsOf(codec, body('7'.repeat(65)))).to.deep.equal([
        { path, type: 'string_too_long', value: '7'.repeat(65), ctx: { max_length: 64 } },
      ])
    })
  }
})
