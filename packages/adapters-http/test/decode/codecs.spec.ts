import { expect } from 'chai'
import { bool, boundedString, closed, intRange, literal, nullable, oneOf, Refined, str, tagged, uuid } from '@orka/domain'
import { Violation } from '../../src/decode/violations'
import { decoded, violationsOf } from './helpers'

const at = (v: Omit<Violation, 'loc'>): Violation => ({ loc: ['body', 'v'], ...v })
const one = (codec: Parameters<typeof nullable>[0]) => closed('One', { v: codec })

describe('codec primitives', () => {
  describe('boundedString', () => {
    const code = boundedString('code', { min: 2, max: 4, pattern: /^[A-Z]+$/ })
    const cases: [string, unknown, Violation[] | 'ok'][] = [
      ['accepts a string at the lower bound', 'AB', 'ok'],
      ['accepts a string at the upper bound', 'ABCD', 'ok'],
      [
        'rejects one char under the minimum as string_too_short',
        'A',
        [at({ msg: 'String should have at least 2 characters', type: 'string_too_short', input: 'A', ctx: { min_length: 2 } })],
      ],
      [
        'rejects one char over the maximum as string_too_long',
        'ABCDE',
        [at({ msg: 'String should have at most 4 characters', type: 'string_too_long', input: 'ABCDE', ctx: { max_length: 4 } })],
      ],
      [
        'checks length before pattern',
        'a',
        [at({ msg: 'String should have at least 2 characters', type: 'string_too_short', input: 'a', ctx: { min_length: 2 } })],
      ],
      [
        'rejects a pattern mismatch with the pattern in ctx',
        'ab',
        [at({ msg: "String should match pattern '^[A-Z]+$'", type: 'string_pattern_mismatch', input: 'ab', ctx: { pattern: '^[A-Z]+$' } })],
      ],
      ['rejects a non-string as string_type', 12, [at({ msg: 'Input should be a valid string', type: 'string_type', input: 12 })]],
    ]
    for (const [name, u, expected] of cases)
      it(name, () => {
        if (expected === 'ok') expect(decoded(one(code), { v: u })).to.deep.equal({ v: u })
        else expect(violationsOf(one(code), { v: u })).to.deep.equal(expected)
      })

    it('uses the singular "character" for a bound of 1', () => {
      expect(violationsOf(one(boundedString('x', { min: 1, max: 1 })), { v: '' })).to.deep.equal([
        at({ msg: 'String should have at least 1 character', type: 'string_too_short', input: '', ctx: { min_length: 1 } }),
      ])
    })

    it('documents its constraints as JSON Schema keywords', () => {
      expect(boundedString('x', { min: 1, max: 9, pattern: /^\d+$/, format: 'digits' }).schema).to.deep.equal({
        type: 'string',
        minLength: 1,
        maxLength: 9,
        pattern: '^\\d+$',
        format: 'digits',
      })
    })
  })

  describe('intRange', () => {
    const n = intRange('n', 0, 10)
    const cases: [string, unknown, Violation[] | 'ok'][] = [
      ['accepts the minimum', 0, 'ok'],
      ['accepts the maximum', 10, 'ok'],
      ['rejects a fraction as int_type', 0.5, [at({ msg: 'Input should be a valid integer', type: 'int_type', input: 0.5 })]],
      ['rejects NaN as int_type', Number.NaN, [at({ msg: 'Input should be a valid integer', type: 'int_type', input: Number.NaN })]],
      [
        'rejects an unsafe integer as int_type',
        2 ** 53,
        [at({ msg: 'Input should be a valid integer', type: 'int_type', input: 2 ** 53 })],
      ],
      ['rejects a numeric string as int_type', '5', [at({ msg: 'Input should be a valid integer', type: 'int_type', input: '5' })]],
      [
        'rejects below the minimum',
        -1,
        [at({ msg: 'Input should be greater than or equal to 0', type: 'greater_than_equal', input: -1, ctx: { ge: 0 } })],
      ],
      [
        'rejects above the maximum',
        11,
        [at({ msg: 'Input should be less than or equal to 10', type: 'less_than_equal', input: 11, ctx: { le: 10 } })],
      ],
    ]
    for (const [name, u, expected] of cases)
      it(name, () => {
        if (expected === 'ok') expect(decoded(one(n), { v: u })).to.deep.equal({ v: u })
        else expect(violationsOf(one(n), { v: u })).to.deep.equal(expected)
      })
  })

  describe('uuid, bool, literal, oneOf', () => {
    const cases: [string, Parameters<typeof nullable>[0], unknown, Violation[] | 'ok'][] = [
      ['uuid accepts a lower-case UUID', uuid, 'fe26475d-ec3e-4884-9553-f7356683f7f9', 'ok'],
      ['uuid accepts an upper-case UUID', uuid, 'FE26475D-EC3E-4884-9553-F7356683F7F9', 'ok'],
      [
        'uuid rejects a UUID without dashes as uuid_parsing',
        uuid,
        'fe26475dec3e48849553f7356683f7f9',
        [at({ msg: 'Input should be a valid UUID', type: 'uuid_parsing', input: 'fe26475dec3e48849553f7356683f7f9' })],
      ],
      ['uuid rejects a number as string_type', uuid, 1, [at({ msg: 'Input should be a valid string', type: 'string_type', input: 1 })]],
      ['bool rejects 0 as bool_type', bool, 0, [at({ msg: 'Input should be a valid boolean', type: 'bool_type', input: 0 })]],
      [
        'literal rejects another string as literal_error',
        literal('role'),
        'roles',
        [at({ msg: "Input should be 'role'", type: 'literal_error', input: 'roles', ctx: { expected: "'role'" } })],
      ],
      ['oneOf accepts a listed value', oneOf('Color', ['red', 'blue']), 'blue', 'ok'],
      [
        'oneOf rejects an unlisted value as enum',
        oneOf('Color', ['red', 'blue']),
        'green',
        [at({ msg: "Input should be 'red', 'blue'", type: 'enum', input: 'green', ctx: { expected: 'red, blue' } })],
      ],
    ]
    for (const [name, codec, u, expected] of cases)
      it(name, () => {
        if (expected === 'ok') expect(decoded(one(codec), { v: u })).to.deep.equal({ v: u })
        else expect(violationsOf(one(codec), { v: u })).to.deep.equal(expected)
      })
  })

  describe('nullable', () => {
    it('accepts null', () => {
      expect(decoded(one(nullable(str)), { v: null })).to.deep.equal({ v: null })
    })
    it("reports the inner codec's failure only, not a union of both branches", () => {
      expect(violationsOf(one(nullable(intRange('n', 1))), { v: 0 })).to.deep.equal([
        at({ msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } }),
      ])
    })
  })

  describe('closed', () => {
    const Thing = closed('Thing', { id: str }, { note: nullable(str) })
    it('accepts an absent optional property without adding it', () => {
      expect(decoded(Thing, { id: 'a' })).to.deep.equal({ id: 'a' })
    })
    it('treats an optional property set to undefined as absent', () => {
      expect(decoded(Thing, { id: 'a', note: undefined })).to.deep.equal({ id: 'a' })
    })
    it('rejects an unknown property with extra_forbidden', () => {
      expect(violationsOf(Thing, { id: 'a', other: 1 })).to.deep.equal([
        { loc: ['body', 'other'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      ])
    })
    it('encodes only its known properties', () => {
      expect(Thing.encode({ id: 'a', note: null, other: 1 } as { id: string })).to.deep.equal({ id: 'a', note: null })
    })
    it('agrees with decode in is(): unknown keys are not an instance', () => {
      expect([Thing.is({ id: 'a' }), Thing.is({ id: 'a', other: 1 }), Thing.is({ note: 'x' }), Thing.is([])]).to.deep.equal([
        true,
        false,
        false,
        false,
      ])
    })
  })

  describe('tagged', () => {
    const Shape = tagged('Shape', 'kind', {
      circle: closed('Circle', { kind: literal('circle'), r: intRange('r', 1) }),
      square: closed('Square', { kind: literal('square'), side: intRange('side', 1) }),
    })
    it('decodes by the branch its tag names', () => {
      expect(decoded(one(Shape), { v: { kind: 'square', side: 2 } })).to.deep.equal({ v: { kind: 'square', side: 2 } })
    })
    it("reports only the chosen branch's faults", () => {
      expect(violationsOf(one(Shape), { v: { kind: 'circle', side: 2 } })).to.deep.equal([
        { loc: ['body', 'v', 'side'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
        { loc: ['body', 'v', 'r'], msg: 'Field required', type: 'missing' },
      ])
    })
    it('rejects an unknown tag as enum on the tag property', () => {
      expect(violationsOf(one(Shape), { v: { kind: 'star' } })).to.deep.equal([
        {
          loc: ['body', 'v', 'kind'],
          msg: "Input should be 'circle', 'square'",
          type: 'enum',
          input: 'star',
          ctx: { expected: 'circle, square' },
        },
      ])
    })
  })

  describe('Refined', () => {
    const Range = new Refined(closed('Range', { lo: intRange('lo'), hi: intRange('hi') }), [
      { description: 'lo <= hi', check: (a) => (a.lo > a.hi ? { path: ['hi'], msg: 'hi must not be below lo' } : undefined) },
    ])
    it('accepts a value that keeps its rules', () => {
      expect(decoded(Range, { lo: 1, hi: 2 })).to.deep.equal({ lo: 1, hi: 2 })
    })
    it("renders a broken rule as a value_error at the rule's path", () => {
      expect(violationsOf(Range, { lo: 3, hi: 2 })).to.deep.equal([
        { loc: ['body', 'hi'], msg: 'Value error, hi must not be below lo', type: 'value_error', input: 2 },
      ])
    })
  })
})
