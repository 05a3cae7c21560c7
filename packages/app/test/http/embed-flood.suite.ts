import { expect } from 'chai'
import { errorBody, Harness, IDS, makeFixture, Reply, startHarness } from '../support/harness'
import { ManualClock } from '@orka/domain/testing'

/** A database for the instances of one test (memory: none), dropped afterwards. */
export type FloodStorage = () => { readonly env: Record<string, string>; readonly drop?: () => Promise<void> }

const ACME_BUYER = {
  type: 'buyer',
  id: IDS.acmeBuyer,
  merchant_account_id: 'acme',
  display_name: 'Acme Buyer',
  external_identifier: 'buyer-1',
}

const statusCounts = (replies: readonly Reply[]) =>
  replies.reduce<Record<number, number>>((n, r) => ({ ...n, [r.status]: (n[r.status] ?? 0) + 1 }), {})

/**
 * One browser (embed) token flooding a rate-limited route must cost its own quota only: exactly
 * the limit admitted, the rest 429 with Retry-After, no 5xx, and another account served
 * meanwhile. (Before admissions were coalesced, this flood on MongoDB answered mostly 500s and
 * held other accounts' requests for seconds.)
 */
export const embedFloodSuite = (storage: string, database: FloodStorage, instances: 1 | 2) =>
  describe(`one embed token flooding POST /gift-cards/balances (${storage}, ${instances} instance${instances > 1 ? 's' : ''})`, function () {
    this.timeout(60_000)
    let hs: Harness[] = []
    let drop: (() => Promise<void>) | undefined
    beforeEach(async () => {
      const db = database()
      drop = db.drop
      const fixture = makeFixture()
      const clock = new ManualClock(new Date())
      hs = []
      for (let i = 0; i < instances; i++) hs.push(await startHarness({ fixture, clock, env: { ...db.env, RATE_LIMIT_HOLD_MS: '1000' } }))
    })
    afterEach(async () => {
      await Promise.all(hs.map((h) => h.close()))
      await drop?.()
    })

    it(`admits exactly 50 of 300 at once, answers the other 250 with 429 and Retry-After, never a 5xx, and serves another account throughout`, async () => {
      const first = hs[0]!
      const embed = first.token('admin', { scopes: ['embed'] })
      const acme = first.token('acmeAdmin')
      const readBuyer = (h: Harness) => h.request('GET', `/buyers/${IDS.acmeBuyer}`, { auth: acme, merchantAccount: 'acme' })
      const flood = { running: true }
      const probes: { readonly reply: Reply; readonly ms: number }[] = []
      const probing = (async () => {
        for (let i = 0; flood.running || probes.length < 5; i++) {
          const t0 = performance.now()
          const reply = await readBuyer(hs[i % hs.length]!)
          probes.push({ reply, ms: performance.now() - t0 })
        }
      })()
      const replies = await Promise.all(
        Array.from({ length: 300 }, (_, i) =>
          hs[i % hs.length]!.request('POST', '/gift-cards/balances', { auth: embed, body: { items: [] } }),
        ),
      )
      flood.running = false
      await probing

      expect(statusCounts(replies)).to.deep.equal({ 200: 50, 429: 250 })
      for (const r of replies.filter((x) => x.status === 200)) expect(r.body).to.deep.equal({ items: [] })
      // Full for the window (Retry-After 60); across instances, also an ask that lost its races
      // to the other instance's admissions (MongoRateLimitStore's maxLostRaces): refused for 1 s.
      const refusals =
        hs.length > 1
          ? [
              ['60', '"embed";r=0;t=60'],
              ['1', '"embed";r=0;t=1'],
            ]
          : [['60', '"embed";r=0;t=60']]
      for (const r of replies.filter((x) => x.status === 429)) {
        expect(r.body).to.deep.equal(errorBody(429))
        expect(refusals).to.deep.include([r.headers.get('retry-after'), r.headers.get('ratelimit')])
      }
      for (const { reply } of probes) {
        expect(reply.status).to.equal(200)
        expect(reply.body).to.include(ACME_BUYER)
      }
      const ms = probes.map((p) => p.ms).sort((a, b) => a - b)
      console.log(
        `      another account's GET /buyers/{id} during the flood: ${probes.length} reads, ` +
          `median ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms, max ${ms[ms.length - 1]!.toFixed(1)} ms`,
      )
      // The token stays refused once full, on every instance, until its window moves on.
      for (const h of hs)
        expect((await h.request('POST', '/gift-cards/balances', { auth: embed, body: { items: [] } })).status).to.equal(429)
      first.clock.advance(60_000)
      expect((await first.request('POST', '/gift-cards/balances', { auth: embed, body: { items: [] } })).status).to.equal(200)
    })
  })
