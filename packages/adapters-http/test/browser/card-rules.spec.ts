import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runInNewContext } from 'node:vm'
import { expect } from 'chai'
import fc from 'fast-check'
import { CardNumber, cardSchemeOf, expiredAt, luhnValid } from '@orka/domain'

interface CardRules {
  schemeOf(digits: string): string | null
  luhn(digits: string): boolean
  numberValid(digits: string): boolean
  expiryValid(mmYY: string, now: Date): boolean
}

/** From dist/test/browser. */
const REPO = join(__dirname, '..', '..', '..', '..', '..')
const BROWSER_DIR = join(__dirname, '..', '..', '..', 'browser')

/** browser/card-rules.js as a field runs it; the context holds nothing but an empty `window`, so it needs no page. */
const rules: CardRules = (() => {
  const window: { OrkaCardRules?: CardRules } = {}
  runInNewContext(readFileSync(join(BROWSER_DIR, 'card-rules.js'), 'utf8'), { window })
  return window.OrkaCardRules!
})()

/** A verdict short enough for an assertion message to show whole. */
const verdict = (scheme: string | null, luhn: boolean, valid: boolean) =>
  `${scheme ?? 'no scheme'}; Luhn ${luhn ? 'right' : 'wrong'}; ${valid ? 'valid' : 'invalid'}`
const domainSays = (digits: string) =>
  verdict(
    cardSchemeOf(digits),
    luhnValid(digits),
    // A field holds an Amex number to 15 digits, which the domain does not: it never calls valid what Orka refuses.
    CardNumber.is(digits) && (cardSchemeOf(digits) !== 'amex' || digits.length === 15),
  )
const browserSays = (digits: string) => verdict(rules.schemeOf(digits), rules.luhn(digits), rules.numberValid(digits))
const expectAgreement = (digits: string) => expect(browserSays(digits), digits).to.equal(domainSays(digits))

/** The numbers the docs and the mock card simulator name (test cards, and gift cards' numbers too). */
const documented = (): string[] => {
  const text = ['README.md', 'docs/payments.md', 'docs/browser-checkout.md', 'packages/adapters-node/src/connectors/mock-card/simulator.ts']
    .map((f) => readFileSync(join(REPO, f), 'utf8'))
    .join('\n')
  return [...new Set([...text.matchAll(/\b\d(?: ?\d){11,18}\b/g)].map((m) => m[0].replace(/ /g, '')))]
}

/** The networks' and processors' published test numbers, at least one a scheme, and the browser tests' own. */
const PUBLISHED = [
  ['378282246310005', '371449635398431'],
  ['30569309025904', '36227206271667', '38520000023237'],
  ['3530111333300000', '3566002020360505'],
  ['4012888888881881', '4222222222222', '4111111111111112'],
  ['5555555555554444', '2223003122003222'],
  ['6011111111111117', '6445644564456445', '6500000000000002'],
  ['6200000000000005'],
  ['6759649826438453', '5018000000000009'],
].flat()

const DIGITS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]

/** Every string of 0-4 digits: as far as any scheme's pattern reads. */
const SHORT = Array.from({ length: 5 }, (_, n) => Array.from({ length: 10 ** n }, (_, i) => String(i).padStart(n, '0'))).flat()

describe('Secure Fields card rules (browser/card-rules.js) agree with the domain', () => {
  it('on every card number the project documents, and published test numbers of every scheme', () => {
    const numbers = documented()
    expect(numbers).to.include.members(['4111111111111111', '4242424242424242', '4000000000000002', '4000000000009995'])
    const all = [...numbers, ...PUBLISHED]
    expect(new Set(all.map(cardSchemeOf))).to.have.keys([
      'visa',
      'mastercard',
      'amex',
      'discover',
      'jcb',
      'diners-club',
      'unionpay',
      'maestro',
      null,
    ])
    for (const n of all) expectAgreement(n)
  })

  it('on every string of up to 4 digits', () => {
    expect(SHORT).to.have.length(11_111)
    for (const s of SHORT) expectAgreement(s)
  })

  it('on 4,000 generated numbers: every scheme and none, 12-19 digits, right and wrong check digits', () => {
    // Each 4-digit prefix under the scheme the domain gives it, so that every range is drawn alike.
    const prefixes = new Map<string | null, string[]>()
    for (const p of SHORT.filter((s) => s.length === 4)) {
      const scheme = cardSchemeOf(p)
      prefixes.set(scheme, prefixes.get(scheme) ?? [])
      prefixes.get(scheme)!.push(p)
    }
    const number = fc
      .record({
        prefix: fc.constantFrom(...prefixes.values()).chain((ps) => fc.constantFrom(...ps)),
        length: fc.integer({ min: 12, max: 19 }),
        rest: fc.array(fc.constantFrom(...DIGITS), { minLength: 14, maxLength: 14 }),
        right: fc.boolean(),
        off: fc.integer({ min: 1, max: 9 }),
      })
      .map(({ prefix, length, rest, right, off }) => {
        const body = (prefix + rest.join('')).slice(0, length - 1)
        const check = DIGITS.find((c) => luhnValid(`${body}${c}`))!
        return { digits: `${body}${right ? check : (check + off) % 10}`, right }
      })
    const seen = new Set<string>()
    fc.assert(
      fc.property(number, ({ digits, right }) => {
        expect(luhnValid(digits), digits).to.equal(right)
        expectAgreement(digits)
        seen.add(`${cardSchemeOf(digits)} ${digits.length} ${right}`)
      }),
      { numRuns: 4000 },
    )
    expect(seen.size, 'schemes and none × 8 lengths × right or wrong').to.equal(9 * 8 * 2)
  })

  it("on every MM/YY and a few malformed dates, in the middle of a month (a field reads the shopper's clock, the domain UTC)", () => {
    const months = Array.from(
      { length: 14 * 100 },
      (_, i) => `${String(i % 14).padStart(2, '0')}/${String(Math.floor(i / 14)).padStart(2, '0')}`,
    )
    const dates = [...months, '', '1/30', '01/3', '0130', '01/300', ' 01/30', '01/30 ', '1a/30', '01-30']
    const nows = ['2000-01-15T12:00:00Z', '2026-06-15T12:00:00Z', '2031-12-15T12:00:00Z', '2099-12-15T12:00:00Z'].map((d) => new Date(d))
    for (const now of nows)
      for (const d of dates) expect(rules.expiryValid(d, now), `${d} at ${now.toISOString()}`).to.equal(!expiredAt(d, now))
  })
})
