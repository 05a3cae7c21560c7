import { expect } from 'chai'
import { randomUUID } from 'node:crypto'
import { reconciliationId } from '../../src/buyers/buyer'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
/** Independent decoder: base62 back to the UUID's 128 bits, as 32 lower-case hex digits. */
const toHex = (b62: string): string => {
  let n = 0n
  for (const ch of b62) {
    const d = BASE62.indexOf(ch)
    if (d < 0) throw new Error(`not base62: ${ch}`)
    n = n * 62n + BigInt(d)
  }
  return n.toString(16).padStart(32, '0')
}

describe('reconciliationId', () => {
  const known: [string, string][] = [
    ['fe26475d-ec3e-4884-9553-f7356683f7f9', '7jZXl4gBUNl0CnaLEnfXbt'],
    ['00000000-0000-0000-0000-000000000000', '0'],
    ['00000000-0000-0000-0000-00000000003d', 'z'],
    ['00000000-0000-0000-0000-00000000003e', '10'],
    ['ffffffff-ffff-ffff-ffff-ffffffffffff', '7n42DGM5Tflk9n8mt7Fhc7'],
  ]
  for (const [id, expected] of known)
    it(`encodes ${id} as ${expected}`, () => {
      expect(reconciliationId(id)).to.equal(expected)
    })

  it('reads upper-case UUIDs as the same bits', () => {
    expect(reconciliationId('FE26475D-EC3E-4884-9553-F7356683F7F9')).to.equal('7jZXl4gBUNl0CnaLEnfXbt')
  })

  const ids = [...Array.from({ length: 20 }, () => randomUUID()), '12345678-9abc-4def-8123-456789abcdef']
  for (const id of ids)
    it(`round-trips ${id} to its 128 bits in at most 22 base62 digits`, () => {
      const r = reconciliationId(id)
      expect(r).to.match(/^[0-9A-Za-z]{1,22}$/)
      expect(toHex(r)).to.equal(id.replace(/-/g, '').toLowerCase())
    })
})
