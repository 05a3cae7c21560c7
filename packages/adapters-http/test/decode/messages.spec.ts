import { expect } from 'chai'
import * as t from 'io-ts'
import { boundedString, Explanation, GiftCardActivationCreate, literal, oneOf } from '@orka/domain'
import { messageOf } from '../../src/decode/messages'
import { violationsOf } from './helpers'

describe('messageOf', () => {
  const cases: [Explanation, string][] = [
    [{ type: 'missing' }, 'Field required'],
    [{ type: 'extra_forbidden' }, 'Extra inputs are not permitted'],
    [{ type: 'model_type' }, 'Input should be a valid dictionary or object'],
    [{ type: 'list_type' }, 'Input should be a valid list'],
    [{ type: 'string_type' }, 'Input should be a valid string'],
    [{ type: 'string_invalid_characters' }, 'String should not contain the NUL character (U+0000)'],
    [{ type: 'string_unicode' }, 'Input should be a valid string, unable to parse raw data as a unicode string'],
    [{ type: 'string_too_short', ctx: { min_length: 1 } }, 'String should have at least 1 character'],
    [{ type: 'string_too_short', ctx: { min_length: 2 } }, 'String should have at least 2 characters'],
    [{ type: 'string_too_long', ctx: { max_length: 1 } }, 'String should have at most 1 character'],
    [{ type: 'string_too_long', ctx: { max_length: 200 } }, 'String should have at most 200 characters'],
    [{ type: 'string_pattern_mismatch', ctx: { pattern: '^[A-Z]{3}$' } }, "String should match pattern '^[A-Z]{3}$'"],
    [{ type: 'uuid_parsing' }, 'Input should be a valid UUID'],
    [{ type: 'int_type' }, 'Input should be a valid integer'],
    [{ type: 'float_type' }, 'Input should be a valid number'],
    [{ type: 'greater_than_equal', ctx: { ge: 1 } }, 'Input should be greater than or equal to 1'],
    [{ type: 'less_than_equal', ctx: { le: 10080 } }, 'Input should be less than or equal to 10080'],
    [{ type: 'bool_type' }, 'Input should be a valid boolean'],
    [{ type: 'literal_error', ctx: { expected: "'basic'" } }, "Input should be 'basic'"],
    [{ type: 'enum', ctx: { expected: 'a, b' }, values: ['a', 'b'] }, "Input should be 'a', 'b'"],
    [{ type: 'value_error', rule: '`pin` is required when `store` is true' }, 'Value error, `pin` is required when `store` is true'],
    [{ type: 'value_error', codec: 'Foo' }, 'Input should be Foo'],
  ]
  for (const [why, msg] of cases)
    it(`words ${why.type} ${JSON.stringify(why.ctx ?? why.rule ?? why.codec ?? '')} as "${msg}"`, () => {
      expect(messageOf(why)).to.equal(msg)
    })

  it('words what the domain codecs explain, leaving their ctx as it is', () => {
    expect(violationsOf(oneOf('colour', ['red', 'green']), 'blue')).to.deep.equal([
      { loc: ['body'], msg: "Input should be 'red', 'green'", type: 'enum', ctx: { expected: 'red, green' } },
    ])
    expect(violationsOf(t.type({ kind: literal('basic') }), { kind: 'bearer' })).to.deep.equal([
      { loc: ['body', 'kind'], msg: "Input should be 'basic'", type: 'literal_error', input: 'bearer', ctx: { expected: "'basic'" } },
    ])
    expect(violationsOf(t.type({ name: boundedString('name', { min: 1 }) }), { name: '' })).to.deep.equal([
      {
        loc: ['body', 'name'],
        msg: 'String should have at least 1 character',
        type: 'string_too_short',
        input: '',
        ctx: { min_length: 1 },
      },
    ])
    expect(violationsOf(GiftCardActivationCreate, { number: '4111111111111111', store: true })).to.deep.equal([
      { loc: ['body', 'pin'], msg: 'Value error, `pin` is required when `store` is true', type: 'value_error' },
    ])
  })
})
