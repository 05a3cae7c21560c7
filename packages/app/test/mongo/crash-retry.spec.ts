import { expect } from 'chai'
import { once } from 'node:events'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { mintToken } from '../../src/mint-token'
import { makeFixture } from '../support/harness'
import { freshDatabase, mongoUri, startOrkaProcess } from './support'

interface Answer {
  readonly status: number
  readonly text: string
  readonly retryAfterS: number
}

/** 19 digits that the mock gift card service activates: the last four are never 0002, 0502, 0504 or 0009. */
const numberOf = (i: number) => `60000000000001${String(i).padStart(4, '0')}1`
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Finding 11 of the attack review: `kill -9` with `store: true` activations in flight, then a
 * retry of each with the same idempotency key and body. A retry completes its own request: it
 * answers 201 with the card its first attempt vaulted (never 409), or replays the 201 the first
 * attempt already sent, byte for byte.
 */
describe('activations across a kill -9 and retries with the same idempotency keys (MongoDB)', function () {
  this.timeout(120_000)
  let db: ReturnType<typeof freshDatabase>
  beforeEach(() => {
    db = freshDatabase()
  })
  afterEach(async () => db.drop())

  it('every retried request ends 201 with its own card, each number vaulted exactly once', async () => {
    const fixture = makeFixture()
    const env = {
      ...process.env,
      ...db.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_FILE: fixture.seedFile,
      DATA_DIR: join(fixture.dir, 'data'),
      // Long enough that the first retries still find the dead process's claims live (425, waited
      // out as Retry-After says), short enough that they take them over within seconds.
      IDEMPOTENCY_LEASE_S: '5',
      LOG_LEVEL: 'info',
    }
    const start = () => startOrkaProcess(env)
    const token = mintToken(fixture.pems.admin, { scopes: ['*.read', '*.write'], expiresInS: 600, now: new Date() })
    const n = 100
    const keys = Array.from({ length: n }, (_, i) => `crash-retry-${i}-${db.env.MONGODB_DATABASE}`)
    const bodies = Array.from({ length: n }, (_, i) => ({ number: numberOf(i), pin: '4321', store: true }))
    const activate = async (url: string, i: number): Promise<Answer> => {
      const r = await fetch(`${url}/gift-cards/activations`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'x-orka-merchant-account-id': 'acme',
          'content-type': 'application/json',
          'idempotency-key': keys[i]!,
        },
        body: JSON.stringify(bodies[i]),
      })
      return { status: r.status, text: await r.text(), retryAfterS: Number(r.headers.get('retry-after') ?? '1') }
    }

    const first = await start()
    let second: Awaited<ReturnType<typeof start>> | undefined
    const client = new MongoClient(mongoUri())
    try {
      await client.connect()
      const database = client.db(db.env.MONGODB_DATABASE)

      // --- 100 concurrent activations; the process is killed once a few have been answered ---
      const before: (Answer | null)[] = Array.from({ length: n }, () => null)
      let answered = 0
      const firedAt = Date.now()
      const fired = Array.from({ length: n }, (_, i) =>
        activate(first.url, i).then(
          (a) => {
            before[i] = a
            answered++
          },
          () => undefined, // cut by the kill
        ),
      )
      const killAt = 10
      while (answered < killAt && before.some((a) => a === null)) await sleep(1)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      const killedAt = Date.now()
      await Promise.all(fired)

      const inFlight = before.filter((a) => a === null).length
      const answeredBefore = before.filter((a) => a !== null)
      const vaultedAtKill = await database.collection('vaulted_gift_cards').countDocuments()
      const claimedAtKill = await database.collection('idempotency_records').countDocuments({ state: 'in_flight' })
      // Vaulted, never answered: the retries that used to find "their" card and answer 409.
      const vaultedUnanswered = vaultedAtKill - answeredBefore.length
      console.log(
        `      killed ${killedAt - firedAt} ms after firing: ${inFlight} of ${n} requests in flight, ${answeredBefore.length} answered; ` +
          `${vaultedAtKill} cards vaulted (${vaultedUnanswered} of them for requests in flight); ` +
          `${claimedAtKill} keys still claimed in flight (the others were completed but not answered)`,
      )
      expect(
        answeredBefore.filter((a) => a.status !== 201),
        'answers before the kill',
      ).to.deep.equal([])
      expect(inFlight, 'requests in flight at the kill').to.be.above(0)
      expect(vaultedUnanswered, 'requests in flight whose card was already vaulted').to.be.above(0)

      // --- restart, and retry every request with its key and body until it settles ---
      second = await start()
      const restartMs = Date.now() - killedAt
      const url = second.url
      const after: Answer[] = []
      const statuses: Record<number, number> = {}
      let waits = 0
      await Promise.all(
        Array.from({ length: n }, async (_, i) => {
          for (;;) {
            const a = await activate(url, i)
            statuses[a.status] = (statuses[a.status] ?? 0) + 1
            if (a.status !== 425) {
              after[i] = a
              return
            }
            waits++
            await sleep(a.retryAfterS * 1000)
          }
        }),
      )
      console.log(
        `      restarted ${restartMs} ms after the kill; retries answered ${JSON.stringify(statuses)} (425s waited out: ${waits})`,
      )

      const errors = second
        .out()
        .split('\n')
        .filter((l) => l.includes('"level":50'))
        .slice(0, 3)
        .join('\n')
      const lost = after.map((a, i) => ({ i, a })).filter(({ a }) => a.status !== 201)
      expect(
        lost.map(({ i, a }) => `#${i} ${a.status} ${a.text}`),
        `retries that did not end 201\n${errors}`,
      ).to.deep.equal([])
      expect(statuses[409] ?? 0, '409s').to.equal(0)
      const ids = after.map((a) => (JSON.parse(a.text) as { id: string }).id)
      // A request that was answered before the crash gets the identical body again.
      for (let i = 0; i < n; i++) if (before[i] !== null) expect(after[i]!.text, `replay of #${i}`).to.equal(before[i]!.text)
      // Each answer is the card of its own number.
      for (let i = 0; i < n; i++) expect((JSON.parse(after[i]!.text) as { last4: string }).last4, `#${i}`).to.equal(numberOf(i).slice(-4))
      // Every number vaulted exactly once, and it is the card its request was answered with.
      const vaulted = await database
        .collection<{ _id: string; card: { last4: string } }>('vaulted_gift_cards')
        .find({}, { projection: { _id: 1, 'card.last4': 1 } })
        .toArray()
      expect(vaulted.map((d) => d.card.last4).sort()).to.deep.equal(Array.from({ length: n }, (_, i) => numberOf(i).slice(-4)).sort())
      expect(new Set(ids).size).to.equal(n)
      expect(vaulted.map((d) => d._id).sort()).to.deep.equal([...ids].sort())
    } finally {
      await client.close()
      first.child.kill('SIGKILL')
      if (second) {
        second.child.kill('SIGTERM')
        await once(second.child, 'exit')
      }
    }
  })
})
