import { expect } from 'chai'
import { Mac, MacPurpose, SecretBox } from '../shared/crypto.ports'
import { at, Harness, teardownHarness } from './harness'

/** `port` and `otherKey` are the same implementation under two different keys. */
export type MacHarness = Harness<Mac, { readonly otherKey: Mac }>
export type SecretBoxHarness = Harness<SecretBox, { readonly otherKey: SecretBox }>

const PURPOSES: readonly MacPurpose[] = ['cursor', 'card-fingerprint', 'payment-card-fingerprint', 'idempotency-fingerprint', 'token-hash']
const BASE64URL = /^[A-Za-z0-9_-]+$/

export const macContract = (name: string, setup: () => Promise<MacHarness>) =>
  describe(`Mac: ${name}`, () => {
    let h: MacHarness
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('is deterministic for a purpose and data', () => {
      for (const p of PURPOSES) expect(h.port.mac(p, '6036280000001234')).to.equal(h.port.mac(p, '6036280000001234'))
    })

    it('gives each purpose its own value for the same data', () => {
      const values = PURPOSES.map((p) => h.port.mac(p, '6036280000001234'))
      expect(new Set(values).size).to.equal(PURPOSES.length)
    })

    it('gives different data different values', () => {
      expect(h.port.mac('card-fingerprint', '6036280000001234')).not.to.equal(h.port.mac('card-fingerprint', '6036280000001235'))
      expect(h.port.mac('cursor', '')).not.to.equal(h.port.mac('cursor', ' '))
    })

    it('depends on the key', () => {
      for (const p of PURPOSES) expect(h.port.mac(p, '6036280000001234')).not.to.equal(h.otherKey.mac(p, '6036280000001234'))
    })

    it('outputs at least 256 bits as base64url', () => {
      for (const data of ['', '6036280000001234', 'ünïcödé \u0000 data']) {
        const out = h.port.mac('token-hash', data)
        expect(out).to.match(BASE64URL)
        expect(out.length).to.be.at.least(43)
      }
    })
  })

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** Replaces the character at `i` with one that differs in its high bits as base64url. */
const flip = (s: string, i: number) => {
  const k = ALPHABET.indexOf(s.charAt(i))
  const c = k >= 0 ? ALPHABET.charAt(k ^ 32) : s.charAt(i) === 'A' ? 'B' : 'A'
  return s.slice(0, i) + c + s.slice(i + 1)
}
/** Indexes strictly inside the sealed value whose neighbours are ordinary characters. */
const innerIndexes = (s: string) =>
  Array.from({ length: s.length }, (_, i) => i).filter(
    (i) => i > 0 && i < s.length - 1 && [i - 1, i, i + 1].every((j) => ALPHABET.includes(s.charAt(j))),
  )

export const secretBoxContract = (name: string, setup: () => Promise<SecretBoxHarness>) =>
  describe(`SecretBox: ${name}`, () => {
    let h: SecretBoxHarness
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    it('opens what it sealed', () => {
      for (const secret of ['6036280000001234', '8142', '', 'pässwörd with spaces & symbols \u{1F511}', 'x'.repeat(5000)])
        expect(h.port.open(h.port.seal(secret))).to.equal(secret)
    })

    it('seals the same plaintext differently each time', () => {
      const a = h.port.seal('6036280000001234')
      const b = h.port.seal('6036280000001234')
      expect(a).not.to.equal(b)
      expect(h.port.open(a)).to.equal(h.port.open(b))
    })

    it('never shows the plaintext in the sealed value', () => {
      const sealed = h.port.seal('6036280000001234')
      expect(sealed).not.to.include('6036280000001234')
      expect(sealed).not.to.include(Buffer.from('6036280000001234').toString('base64url').slice(0, 12))
    })

    it('throws on a tampered value', () => {
      const sealed = h.port.seal('6036280000001234')
      const inner = innerIndexes(sealed)
      expect(inner.length).to.be.greaterThan(0)
      for (const i of [at(inner, 0), at(inner, Math.floor(inner.length / 2)), at(inner, inner.length - 1)])
        expect(() => h.port.open(flip(sealed, i)), `flipped at ${i}`).to.throw()
      const mid = at(inner, Math.floor(inner.length / 2))
      expect(() => h.port.open(`${sealed.slice(0, mid)}!${sealed.slice(mid)}`), 'character inserted').to.throw()
      expect(() => h.port.open(sealed.slice(0, -4)), 'truncated').to.throw()
      expect(() => h.port.open(`${sealed}AAAA`), 'extended').to.throw()
      expect(() => h.port.open(''), 'empty').to.throw()
      expect(() => h.port.open('6036280000001234'), 'plaintext').to.throw()
    })

    it('throws when opening a value sealed with another key', () => {
      expect(() => h.otherKey.open(h.port.seal('6036280000001234'))).to.throw()
      expect(() => h.port.open(h.otherKey.seal('6036280000001234'))).to.throw()
    })
  })
