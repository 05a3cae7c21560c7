import { expect } from 'chai'
import { Admission, RateLimitStore } from '../rate-limit/rate-limit.ports'
import { dateAt } from './fixtures'
import { at, Harness, right, teardownHarness } from './harness'

const MINUTE = 60_000
const admitted = (remaining: number, resetMs: number): Admission => ({ admitted: true, remaining, resetMs })
const denied = (resetMs: number): Admission => ({ admitted: false, remaining: 0, resetMs })

/** A small deterministic generator (LCG), so a failing sequence can be replayed from its seed. */
const lcg = (seed: number) => {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

export const rateLimitStoreContract = (name: string, setup: () => Promise<Harness<RateLimitStore>>) =>
  describe(`RateLimitStore: ${name}`, () => {
    let h: Harness<RateLimitStore>
    beforeEach(async () => {
      h = await setup()
    })
    afterEach(() => teardownHarness(h))

    const admit = (key: string, limit: number, at: number, windowMs = MINUTE) => right(h.port.admit(key, limit, windowMs, dateAt(at)))

    it('admits exactly `limit` requests in one window, then denies', async () => {
      for (let i = 4; i >= 0; i--) expect(await admit('embed:jti-1', 5, 0)).to.deep.equal(admitted(i, MINUTE))
      expect(await admit('embed:jti-1', 5, 0)).to.deep.equal(denied(MINUTE))
      expect(await admit('embed:jti-1', 5, 1)).to.deep.equal(denied(MINUTE - 1))
    })

    it('reports what remains and when the oldest counted request leaves the window', async () => {
      expect(await admit('k', 3, 0)).to.deep.equal(admitted(2, 60_000))
      expect(await admit('k', 3, 10_000)).to.deep.equal(admitted(1, 50_000))
      expect(await admit('k', 3, 20_000)).to.deep.equal(admitted(0, 40_000))
      expect(await admit('k', 3, 30_000)).to.deep.equal(denied(30_000))
    })

    it('does not count denied requests', async () => {
      await admit('k', 2, 0)
      await admit('k', 2, 0)
      for (let i = 0; i < 5; i++) expect(await admit('k', 2, 30_000)).to.deep.equal(denied(30_000))
      expect(await admit('k', 2, 60_000)).to.deep.equal(admitted(1, 60_000))
      expect(await admit('k', 2, 60_000)).to.deep.equal(admitted(0, 60_000))
      expect(await admit('k', 2, 60_000)).to.deep.equal(denied(60_000))
    })

    it('slides: a slot frees exactly when the oldest admission is windowMs old', async () => {
      for (const at of [0, 10_000, 20_000]) await admit('k', 3, at)
      expect(await admit('k', 3, 59_999)).to.deep.equal(denied(1))
      expect(await admit('k', 3, 60_000)).to.deep.equal(admitted(0, 10_000))
      expect(await admit('k', 3, 60_000)).to.deep.equal(denied(10_000))
      expect(await admit('k', 3, 69_999)).to.deep.equal(denied(1))
      expect(await admit('k', 3, 70_000)).to.deep.equal(admitted(0, 10_000))
    })

    it('starts afresh once every counted request has left the window', async () => {
      await admit('k', 2, 0)
      await admit('k', 2, 1)
      expect(await admit('k', 2, 10 * MINUTE)).to.deep.equal(admitted(1, MINUTE))
    })

    it('keeps keys independent', async () => {
      await admit('embed:jti-1', 2, 0)
      await admit('embed:jti-1', 2, 0)
      expect(await admit('embed:jti-1', 2, 0)).to.deep.equal(denied(MINUTE))
      expect(await admit('embed:jti-2', 2, 0)).to.deep.equal(admitted(1, MINUTE))
      expect(await admit('checkout-session:cs-1', 2, 0)).to.deep.equal(admitted(1, MINUTE))
    })

    it('admits exactly `limit` of 20 concurrent requests', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => admit('burst', 5, 0)))
      expect(
        results
          .filter((r) => r.admitted)
          .map((r) => r.remaining)
          .sort(),
      ).to.deep.equal([0, 1, 2, 3, 4])
      expect(results.filter((r) => !r.admitted)).to.deep.equal(Array.from({ length: 15 }, () => denied(MINUTE)))
    })

    it('admits exactly `limit` of 300 concurrent requests of one key, and refuses the rest with the time until a slot frees', async () => {
      const results = await Promise.all(Array.from({ length: 300 }, () => admit('flood', 50, 0)))
      expect(results.filter((r) => r.admitted).map((r) => r.remaining)).to.have.members(Array.from({ length: 50 }, (_, i) => i))
      expect(results.filter((r) => !r.admitted)).to.deep.equal(Array.from({ length: 250 }, () => denied(MINUTE)))
      expect(await admit('flood', 50, MINUTE - 1)).to.deep.equal(denied(1))
      expect(await admit('flood', 50, MINUTE)).to.deep.equal(admitted(49, MINUTE))
    })

    for (const seed of [1, 42, 2024])
      it(`admits exactly while fewer than limit were admitted in the last windowMs (sequence ${seed})`, async () => {
        const limit = 4
        const windowMs = MINUTE
        const next = lcg(seed)
        const log: number[] = []
        let now = 0
        for (let i = 0; i < 300; i++) {
          // Bursts of simultaneous requests, short gaps and the odd long pause.
          const r = next()
          now += r < 0.3 ? 0 : r < 0.9 ? Math.floor(next() * 18_000) : Math.floor(next() * 90_000)
          const inWindow = log.filter((t) => t > now - windowMs)
          const expectAdmit = inWindow.length < limit
          const counted = expectAdmit ? [...inWindow, now] : inWindow
          const expected = expectAdmit
            ? admitted(limit - counted.length, at(counted, 0) + windowMs - now)
            : denied(at(counted, 0) + windowMs - now)
          expect(await admit(`seq-${seed}`, limit, now, windowMs), `request ${i} at ${now} ms`).to.deep.equal(expected)
          if (expectAdmit) log.push(now)
        }
        for (const t of log) expect(log.filter((u) => u > t - windowMs && u <= t).length, `window ending at ${t}`).to.be.at.most(limit)
        expect(log.length).to.be.greaterThan(limit * 10)
      })
  })
