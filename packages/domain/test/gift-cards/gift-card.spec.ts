import { expect } from 'chai'
import { canonicalJson, splitNumber } from '../../src/gift-cards/gift-card'

describe('splitNumber', () => {
  const cases: [string, { bin: string; sub_bin: string; last4: string }][] = [
    ['1234567890123456', { bin: '123456', sub_bin: '789', last4: '3456' }],
    ['12345678901234567', { bin: '123456', sub_bin: '789', last4: '4567' }],
    ['1234567890123456789', { bin: '123456', sub_bin: '789', last4: '6789' }],
  ]
  for (const [number, expected] of cases)
    it(`splits a ${number.length}-digit number into bin, sub_bin and last4`, () => {
      expect(splitNumber(number)).to.deep.equal(expected)
    })

  it('shows at most 13 of a 16-digit number, leaving digits 10-12 out', () => {
    const parts = splitNumber('1234567890123456')
    expect(parts.bin + parts.sub_bin + parts.last4).to.equal('1234567893456')
  })
})

describe('canonicalJson', () => {
  it('gives the same text for the same object in any key order, at every depth', () => {
    const a = { b: 1, a: { d: [{ y: 1, x: 2 }], c: null } }
    const b = { a: { c: null, d: [{ x: 2, y: 1 }] }, b: 1 }
    expect([canonicalJson(a), canonicalJson(b)]).to.deep.equal([
      '{"a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}',
      '{"a":{"c":null,"d":[{"x":2,"y":1}]},"b":1}',
    ])
  })

  it('keeps array order: [1,2] and [2,1] differ', () => {
    expect(canonicalJson({ a: [1, 2] })).to.not.equal(canonicalJson({ a: [2, 1] }))
  })

  it('tells different values apart', () => {
    expect(canonicalJson({ number: '4111111111111111', amount: 1 })).to.not.equal(canonicalJson({ number: '4111111111111111', amount: 2 }))
  })

  it('leaves out undefined properties, as JSON does', () => {
    expect(canonicalJson({ b: undefined, a: 'x' })).to.equal('{"a":"x"}')
  })

  it('renders scalars as JSON', () => {
    expect([canonicalJson('s'), canonicalJson(1), canonicalJson(null), canonicalJson(true)]).to.deep.equal(['"s"', '1', 'null', 'true'])
  })
})
