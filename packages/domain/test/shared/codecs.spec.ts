import { expect } from 'chai'
import { boundedString, codePointLength } from '../../src/shared/codecs'
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
