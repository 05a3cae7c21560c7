import { expect } from 'chai'
import * as t from 'io-ts'
import { bool, boundedString, closed, GiftCardActivationCreate, Limit, PermissionSet, str } from '@orka/domain'
import { SENSITIVE_KEYS, Violation } from '../../src/decode/violations'
import { violationsOf } from './helpers'

const N = '4111111111111111'
const PIN = '987654'

describe('toViolations', () => {
  describe('never echoes a card number or PIN, whatever it was sent as', () => {
    const cases: [string, unknown, string][] = [
      ['a number one digit short', { number: N.slice(1) }, N.slice(1)],
      ['a number one digit long', { number: `${N}0000` }, `${N}0000`],
      ['a number with dashes', { number: '4111-1111-1111-1111' }, '4111-1111-1111-1111'],
      ['a number as a JSON number', { number: 4111111111111111 }, '4111111111111111'],
      ['a number inside an array', { number: [N] }, N],
      ['a number inside an object', { number: { value: N } }, N],
      ['a number as the whole body', N, N],
      ['a number as the whole body, as a JSON number', 4111111111111111, '4111111111111111'],
      ['a number under an unknown property', { number: N.slice(2), card_number: N }, N],
      ['a number nested under an unknown property', { number: N.slice(2), card: { number: N } }, N],
      ['a PIN as a JSON number', { number: N, pin: 987654 }, PIN],
      ['a PIN as an array', { number: N, pin: [PIN] }, PIN],
      ['a PIN as a boolean', { number: N, pin: true }, 'true'],
      ['a PIN with a valid number but a store rule broken', { number: N, pin: PIN, buyer_id: 'fe26475d-ec3e-4884-9553-f7356683f7f9' }, PIN],
      ['a PIN under an unknown property', { number: N, card_pin: PIN }, PIN],
    ]
    for (const [name, body, secret] of cases)
      it(`leaves out ${name}`, () => {
        const v = violationsOf(GiftCardActivationCreate, body)
        expect(v).to.not.deep.equal([])
        expect(JSON.stringify(v)).to.not.include(secret)
        for (const entry of v)
          if (['number', 'pin'].includes(String(entry.loc[1])) || entry.loc.length === 1) expect(entry).to.not.have.property('input')
      })
  })

  it('never echoes the value of an unknown property, even a harmless scalar', () => {
    expect(violationsOf(GiftCardActivationCreate, { number: N, note: 'hello' })).to.deep.equal([
      { loc: ['body', 'note'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ])
  })

  it('never echoes a whole object or array given where a scalar belongs', () => {
    expect(violationsOf(GiftCardActivationCreate, { number: N, store: { yes: true }, amount: [1], currency: 'USD' })).to.deep.equal([
      { loc: ['body', 'amount'], msg: 'Input should be a valid integer', type: 'int_type' },
      { loc: ['body', 'store'], msg: 'Input should be a valid boolean', type: 'bool_type' },
    ])
  })

  it('treats number, pin, password, client_secret and secret as sensitive', () => {
    expect([...SENSITIVE_KEYS].sort()).to.deep.equal([
      'client_secret',
      'expiration_date',
      'number',
      'password',
      'pin',
      'secret',
      'security_code',
    ])
  })

  it('never echoes a value below a sensitive key, however deep', () => {
    const Outer = closed('Outer', { card: closed('Card', { number: boundedString('number', { min: 16 }) }), secret: str })
    expect(violationsOf(Outer, { card: { number: '1234' }, secret: 42 })).to.deep.equal([
      {
        loc: ['body', 'card', 'number'],
        msg: 'String should have at least 16 characters',
        type: 'string_too_short',
        ctx: { min_length: 16 },
      },
      { loc: ['body', 'secret'], msg: 'Input should be a valid string', type: 'string_type' },
    ])
  })

  it('echoes a scalar input of a non-sensitive property', () => {
    expect(violationsOf(GiftCardActivationCreate, { number: N, external_identifier: 7 })).to.deep.equal([
      { loc: ['body', 'external_identifier'], msg: 'Input should be a valid string', type: 'string_type', input: 7 },
    ])
  })

  describe('echoes an input only when its JSON form is at most 256 characters', () => {
    const Named = closed('Named', { name: boundedString('name', { max: 3 }) })
    const tooLong = (input?: string): Violation => ({
      loc: ['body', 'name'],
      msg: 'String should have at most 3 characters',
      type: 'string_too_long',
      ...(input === undefined ? {} : { input }),
      ctx: { max_length: 3 },
    })
    it('echoes a string whose JSON form is 256 characters', () => {
      expect(violationsOf(Named, { name: 'x'.repeat(254) })).to.deep.equal([tooLong('x'.repeat(254))])
    })
    it('leaves out a string whose JSON form is 257 characters', () => {
      expect(violationsOf(Named, { name: 'x'.repeat(255) })).to.deep.equal([tooLong()])
    })
    it('counts characters as code points: 254 emoji are echoed', () => {
      expect(violationsOf(Named, { name: '😀'.repeat(254) })).to.deep.equal([tooLong('😀'.repeat(254))])
    })
    it('measures the escaped form: 60 control characters are 360 characters of JSON, left out', () => {
      expect(violationsOf(Named, { name: '\u0001'.repeat(60) })).to.deep.equal([tooLong()])
    })
    it('leaves out a 60 KB value, whatever its type', () => {
      const Flag = closed('Flag', { flag: bool })
      expect(violationsOf(Flag, { flag: 'y'.repeat(60_000) })).to.deep.equal([
        { loc: ['body', 'flag'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      ])
    })
  })

  it('reports array indexes in loc as integers', () => {
    expect(violationsOf(PermissionSet, { allow: ['gift-cards.read', 5] })).to.deep.equal([
      { loc: ['body', 'allow', 1], msg: 'Input should be a valid string', type: 'string_type', input: 5 },
    ])
  })

  it('prefixes loc with the part of the request the value came from', () => {
    expect(violationsOf(t.type({ limit: Limit }), { limit: 101 }, 'query')).to.deep.equal([
      { loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100', type: 'less_than_equal', input: 101, ctx: { le: 100 } },
    ])
  })
})
