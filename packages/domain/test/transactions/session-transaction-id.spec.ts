import { expect } from 'chai'
import { createHmac, randomUUID } from 'node:crypto'
import { Mac } from '../../src/shared/crypto.ports'
import { legacySessionTransactionId, sessionTransactionId } from '../../src/transactions/session-transaction-id'

/** HMAC-SHA256 in base64url, as the `Mac` port gives it (`HmacMac`), under a key drawn per test run. */
const hmac = (key: string): Mac => ({ mac: (purpose, data) => createHmac('sha256', `${key}/${purpose}`).update(data).digest('base64url') })

const V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
const N = 40_000
/** χ² of 15 degrees of freedom: above 50 with probability about 1e-5 for uniform digits. */
const CHI2_BOUND = 50

const chiSquare = (counts: readonly number[], expected: number) => counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0)

/** For each of a UUID's 32 hex positions, the χ² of its digits against uniform (version and variant positions left out). */
const positionsNotUniform = (ids: readonly string[]): string[] => {
  const hex = ids.map((id) => id.replace(/-/g, ''))
  const out: string[] = []
  for (let i = 0; i < 32; i++) {
    if (i === 12) continue // the version, 4
    const counts = new Array<number>(16).fill(0)
    for (const h of hex) {
      const d = parseInt(h.charAt(i), 16)
      counts[d] = (counts[d] ?? 0) + 1
    }
    if (i === 16) {
      // The variant keeps two random bits: 8, 9, a and b equally often.
      const four = [counts[8]!, counts[9]!, counts[10]!, counts[11]!]
      if (four.reduce((a, b) => a + b) !== hex.length || chiSquare(four, hex.length / 4) > 25) out.push(`${i}: ${four.join(',')}`)
      continue
    }
    const x2 = chiSquare(counts, hex.length / 16)
    if (x2 > CHI2_BOUND) out.push(`${i}: χ²=${x2.toFixed(0)}`)
  }
  return out
}

describe('the transaction id a checkout session pays under', () => {
  const mac = hmac(randomUUID())
  const sessions = Array.from({ length: N }, () => randomUUID())
  const ids = sessions.map((s) => sessionTransactionId(mac, s))

  it('is a version 4 UUID, the same for the same session, different for another', () => {
    for (const id of ids) expect(id).to.match(V4)
    expect(sessionTransactionId(mac, sessions[0]!)).to.equal(ids[0])
    expect(new Set(ids).size, 'distinct over 40,000 sessions').to.equal(N)
  })

  it(`keeps all 122 random bits of the MAC: every free hex digit is uniform over ${N} sessions`, () => {
    expect(positionsNotUniform(ids)).to.deep.equal([])
  })

  it('is the hex of the MAC’s first 16 bytes, with the version and variant bits set', () => {
    const m: Mac = { mac: () => Buffer.from('00112233445566778899aabbccddeeff' + '00'.repeat(16), 'hex').toString('base64url') }
    expect(sessionTransactionId(m, 'any')).to.equal('00112233-4455-4677-8899-aabbccddeeff')
    const ff: Mac = { mac: () => Buffer.alloc(32, 0xff).toString('base64url') }
    expect(sessionTransactionId(ff, 'any')).to.equal('ffffffff-ffff-4fff-bfff-ffffffffffff')
  })

  it('the older derivation, still read for sessions created before, lost most of the MAC (what this replaced)', () => {
    const legacy = sessions.map((s) => legacySessionTransactionId(mac, s))
    for (const id of legacy) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-8[0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(positionsNotUniform(legacy)).to.have.length.above(10)
    // An id of existing records keeps reading the same: the MAC's hex characters, padded with 0.
    const m: Mac = { mac: () => 'f99f6c5d1e11-Xyz_QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ' }
    expect(legacySessionTransactionId(m, 'any')).to.equal('f99f6c5d-1e11-4000-8000-000000000000')
  })
})
