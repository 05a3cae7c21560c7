import { expect } from 'chai'
import { boundedString, codePointLength, rfc3339DateTime } from '../../src/shared/codecs'
import { decoded, faultsOf } from '../helpers'

/** U+1F600: one code point, two UTF-16 code units. */
const EMOJI = '😀'

describe('boundedString', () => {
  describe("counts Unicode code points, as the published JSON Schema's minLength and maxLength do", () => {
    const name = boundedString('name', { min: 2, max: 4 })

    it('accepts astral characters exactly at the minimum and at the maximum', () => {
      for (const s of [EMOJI.repeat(2), EMOJI.repeat(4), `a${EMOJI}b${EMOJI}`, `${EMOJI}a`]) expect(decoded(name, s), s).to.equal(s)
    })

    it('rejects one code point under the minimum as string_too_short, though it has enough code units', () => {
      expect(faultsOf(name, EMOJI)).to.deep.equal([{ path: [], type: 'string_too_short', value: EMOJI, ctx: { min_length: 2 } }])
    })

    it('rejects one code point over the maximum as string_too_long', () => {
      const five = `${EMOJI.repeat(4)}a`
      expect(faultsOf(name, five)).to.deep.equal([{ path: [], type: 'string_too_long', value: five, ctx: { max_length: 4 } }])
      expect(faultsOf(name, EMOJI.repeat(5))).to.deep.equal([
        { path: [], type: 'string_too_long', value: EMOJI.repeat(5), ctx: { max_length: 4 } },
      ])
    })

    it('still counts plain and BMP characters one each', () => {
      expect(decoded(name, 'éü')).to.equal('éü')
      expect(faultsOf(name, 'abcde')).to.deep.equal([{ path: [], type: 'string_too_long', value: 'abcde', ctx: { max_length: 4 } }])
      expect(faultsOf(name, 'é')).to.deep.equal([{ path: [], type: 'string_too_short', value: 'é', ctx: { min_length: 2 } }])
    })

    it('counts a lone surrogate as one, where a codec admits any characters', () => {
      const any = boundedString('any', { max: 2, anyCharacters: true })
      expect(decoded(any, `\uD800${EMOJI}`)).to.equal(`\uD800${EMOJI}`)
      expect(faultsOf(any, `\uD800\uD800${EMOJI}`)).to.deep.equal([
        { path: [], type: 'string_too_long', value: `\uD800\uD800${EMOJI}`, ctx: { max_length: 2 } },
      ])
    })
  })
})

describe('codePointLength', () => {
  it('counts a surrogate pair as one and a lone surrogate as one', () => {
    const cases: [string, number][] = [
      ['', 0],
      ['abc', 3],
      ['é€', 2],
      [EMOJI, 1],
      [`a${EMOJI}b`, 3],
      ['\uD800', 1],
      ['\uDC00\uD800', 2],
      [`\uD800${EMOJI}\uDC00`, 3],
    ]
    for (const [s, n] of cases) expect(codePointLength(s), JSON.stringify(s)).to.equal(n)
  })
})

describe('rfc3339DateTime', () => {
  const at = rfc3339DateTime('at')
  it('accepts date-times with Z or an offset, fractions of a second, leap days; T and Z decoded upper case', () => {
    for (const s of ['2026-01-31T09:30:00Z', '2026-01-31T10:30:00.123456789+01:00', '2024-02-29T23:59:59-23:59'])
      expect(decoded(at, s), s).to.equal(s)
    expect(decoded(at, '2026-01-31t09:30:00z')).to.equal('2026-01-31T09:30:00Z')
  })

  it('refuses a bare date, a time without a zone, and days, times or offsets that do not exist', () => {
    const rule = 'at must be an RFC 3339 date-time with a time zone, such as 2026-01-31T09:30:00Z'
    for (const s of [
      '2026-13-01',
      '2026-01-31',
      '2026-01-31T09:30:00',
      '2026-01-31 09:30:00Z',
      '2026-13-01T00:00:00Z',
      '2025-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-01-31T24:00:00Z',
      '2026-01-31T23:60:00Z',
      '2026-01-31T23:59:60Z',
      '2026-01-31T09:30:00+24:00',
      '2026-01-31T09:30:00+01',
      '2026-01-31T09:30Z',
      '+02026-01-31T09:30:00Z',
      '1769851800',
    ])
      expect(faultsOf(at, s), s).to.deep.equal([{ path: [], type: 'value_error', value: s, rule }])
    expect(faultsOf(at, 1769851800)).to.deep.equal([{ path: [], type: 'string_type', value: 1769851800 }])
  })
})
