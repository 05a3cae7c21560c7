import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { MongoClient } from 'mongodb'
import { COLLECTIONS } from '@orka/adapters-mongo'
import { luhnValid } from '@orka/domain'
import { IDS, makeFixture } from '../support/harness'
import { Answer, caller, crashTestSetup, freshDatabase, mongoUri, OrkaProcess, startOrkaProcess } from './support'

interface Listed {
  readonly id: string
  readonly status: string
  readonly updated_at: string
}
/** One answer of the list, with the newest version of each of the buyer's transactions stored just before it was asked. */
interface Round {
  readonly before: Map<string, number>
  readonly status: number
  readonly items: readonly Listed[]
}
interface Version {
  readonly transaction_id: string
  readonly version: number
  readonly record: string
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const BUYER = IDS.defaultBuyer
const LIST = `/transactions?buyer_id=${BUYER}&limit=100`

/** A Luhn-valid 16-digit card number per payment, none of the mock's declined test cards. */
const cardNumberOf = (i: number) => {
  const body = `48${String(i).padStart(4, '0')}7310250${String(i % 7)}3`
  for (let d = 0; d < 10; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`
  throw new Error('no check digit')
}

/** How many lists at least run while versions are written. */
const RACING_LISTS = 16

/**
 * Issue 34: during recovery after a kill -9, one buyer's `GET /transactions` answered 38
 * transactions, then 37, with none created or deleted in between. A list reads a batch of the
 * versions not yet marked superseded, then which of them are their transactions' newest; a
 * version written between those two reads left its transaction out. Here 40 split payments of
 * one buyer (a card and a gift card each, some slow, some never answered) are fired at one
 * process, killed with SIGKILL with payments in flight; after a restart every payment is retried
 * with its key (settling what the kill left, as recovery does) while other requests update and
 * capture the settled ones, and the buyer's transactions are listed again and again meanwhile.
 *
 * Every answer lists each transaction once; every transaction stored before the list was asked
 * is in it (so the count never drops); and each is shown as a version no older than the newest
 * stored before the list, nor than one an earlier answer showed.
 */
describe("a buyer's transaction list across a kill -9, recovery and live writes (MongoDB)", function () {
  this.timeout(120_000)
  let db: ReturnType<typeof freshDatabase>
  beforeEach(() => {
    db = freshDatabase()
  })
  afterEach(async () => db.drop())

  it('lists each transaction exactly once, none missing, none older than before, in every answer', async () => {
    const fixture = makeFixture()
    const { env, headers } = crashTestSetup(db.env, fixture)
    const n = 40
    const run = randomBytes(3).toString('hex')
    const prefix = String(parseInt(run, 16) % 1_000_000).padStart(6, '0')
    // Card part: never answered (open at the kill), approved after 2 s, approved. Gift card: slow (…0009) for even payments.
    const cardPartOf = (i: number) => (i % 5 === 0 ? 300_999 : i % 3 === 0 ? 300_998 : 1000 + i)
    const bodies = Array.from({ length: n }, (_, i) => {
      const gift = {
        number: `6${prefix}7${String(i).padStart(3, '0')}0000${i % 2 === 0 ? '0009' : '1111'}`,
        pin: `p${run}x${i}`,
        amount: 300 + i,
      }
      return {
        amount: cardPartOf(i) + gift.amount,
        currency: 'USD',
        buyer_id: BUYER,
        payment_method: { method: 'card', number: cardNumberOf(i), expiration_date: '12/35', security_code: '8406' },
        gift_cards: [gift],
        ...(i % 8 === 5 ? { intent: 'capture' } : {}),
      }
    })
    const keys = bodies.map((_, i) => `list-crash-${i}-${db.env.MONGODB_DATABASE}`)
    const call = caller(headers)
    const pay = (url: string, i: number) => call(url, 'POST', '/transactions', bodies[i], { 'idempotency-key': keys[i]! })
    const processes: OrkaProcess[] = []
    const start = async () => {
      const p = await startOrkaProcess(env)
      processes.push(p)
      return p
    }
    const client = new MongoClient(mongoUri())
    try {
      await client.connect()
      const versions = client.db(db.env.MONGODB_DATABASE).collection<Version>(COLLECTIONS.transactionVersions)
      /** The newest version of each of the buyer's transactions, as stored now. */
      const newestNow = async () => {
        const newest = new Map<string, number>()
        for (const d of await versions.find({ buyer_id: BUYER }, { projection: { transaction_id: 1, version: 1 } }).toArray())
          newest.set(d.transaction_id, Math.max(d.version, newest.get(d.transaction_id) ?? -1))
        return newest
      }

      // --- 40 payments at once; SIGKILL once a quarter of them are answered ---
      const first = await start()
      let answered = 0
      const fired = bodies.map((_, i) =>
        pay(first.url, i).then(
          () => answered++,
          () => undefined, // cut by the kill
        ),
      )
      while (answered < n / 4) await sleep(1)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      await Promise.all(fired)
      const atKill = await newestNow()
      const unmarkedAtKill = await versions.countDocuments({ superseded: false })
      expect(answered, 'payments in flight at the kill').to.be.below(n)

      // --- restarted: every payment retried with its key (until no longer 425), the settled ones
      // updated and captured meanwhile, and the buyer's transactions listed all along ---
      const second = await start()
      const rounds: Round[] = []
      let busy = true
      /** Lists while the others write, and three times more once they are done. */
      const lister = async () => {
        for (let more = 3; busy || more-- > 0;) {
          const before = await newestNow()
          const a = await call(second.url, 'GET', LIST)
          rounds.push({ before, status: a.status, items: a.status === 200 ? (JSON.parse(a.text) as { items: Listed[] }).items : [] })
        }
      }
      const retry = async (i: number): Promise<Answer> => {
        for (;;) {
          const a = await pay(second.url, i)
          if (a.status !== 425) return a
          await sleep(a.retryAfterS * 1000)
        }
      }
      const writes: Record<string, number> = {}
      const write = async (method: string, path: string, body: unknown) => {
        const a = await call(second.url, method, path, body)
        writes[`${method} ${a.status}`] = (writes[`${method} ${a.status}`] ?? 0) + 1
      }
      // Updates (a version each) of the buyer's transactions, four at a time, until the retries are done and
      // the lister has listed enough times while they write (a fast recovery left too few lists racing them).
      let retrying = true
      const updater = async (lane: number) => {
        for (let k = 0; retrying || rounds.length < RACING_LISTS; k++) {
          const ids = [...(rounds.at(-1)?.items ?? [])].map((t) => t.id)
          const id = ids[(k * 4 + lane) % Math.max(1, ids.length)]
          if (id === undefined) await sleep(20)
          else await write('PUT', `/transactions/${id}`, { metadata: { round: String(k) } })
        }
      }
      const recovery = async () => {
        const retried = await Promise.all(bodies.map((_, i) => retry(i)))
        // Captures of the authorized ones: more versions, while the list goes on.
        const authorized = retried.flatMap((a) => {
          const t = JSON.parse(a.text) as { id?: string; status?: string }
          return t.status === 'authorization_succeeded' && t.id !== undefined ? [t.id] : []
        })
        await Promise.all(authorized.map((id) => write('POST', `/transactions/${id}/capture`, {})))
        retrying = false
        return retried
      }
      const startedAt = Date.now()
      const [retried] = await Promise.all([recovery(), Promise.all([0, 1, 2, 3].map(updater)).finally(() => (busy = false)), lister()])
      expect(
        retried.filter((a) => a.status !== 201).map((a) => `${a.status} ${a.text.slice(0, 200)}`),
        'retries not ending 201',
      ).to.deep.equal([])

      // --- every answer: each transaction once, none stored before it missing, none older than before ---
      const all = (await versions.find({ buyer_id: BUYER }, { projection: { transaction_id: 1, version: 1, record: 1 } }).toArray()).map(
        (d) => ({ version: d.version, ...(JSON.parse(d.record) as Listed) }),
      )
      /** The versions a listed item can be: those of its transaction with its status and updated_at. */
      const versionsOf = (t: Listed) =>
        all.filter((d) => d.id === t.id && d.status === t.status && d.updated_at === t.updated_at).map((d) => d.version)
      const wrong: string[] = []
      const seen = new Map<string, number>()
      let previous = 0
      let raced = 0
      for (const [k, r] of rounds.entries()) {
        if (r.status !== 200) wrong.push(`#${k}: status ${r.status}`)
        const ids = r.items.map((t) => t.id)
        const twice = ids.filter((id, j) => ids.indexOf(id) !== j)
        if (twice.length > 0) wrong.push(`#${k}: listed twice ${twice.join(', ')}`)
        const missing = [...r.before.keys()].filter((id) => !ids.includes(id))
        if (missing.length > 0) wrong.push(`#${k}: ${r.items.length} listed, ${r.before.size} stored before; missing ${missing.join(', ')}`)
        if (r.items.length < previous) wrong.push(`#${k}: ${r.items.length} listed after ${previous}`)
        previous = r.items.length
        const next = rounds[k + 1]?.before
        if (next !== undefined && [...next].some(([id, v]) => r.before.get(id) !== v)) raced++
        for (const t of r.items) {
          const vs = versionsOf(t)
          const newest = Math.max(-1, ...vs)
          if (vs.length === 0) wrong.push(`#${k}: ${t.id} listed as ${t.status} at ${t.updated_at}, no version of it`)
          else if (newest < (r.before.get(t.id) ?? 0))
            wrong.push(`#${k}: ${t.id} listed as version ${vs.join('/')}, ${r.before.get(t.id)} before`)
          else if (newest < (seen.get(t.id) ?? 0)) wrong.push(`#${k}: ${t.id} listed as version ${vs.join('/')} after ${seen.get(t.id)}`)
          seen.set(t.id, Math.max(seen.get(t.id) ?? 0, Math.min(...vs)))
        }
      }
      const written = all.length - [...atKill.values()].reduce((s, v) => s + v + 1, 0)
      console.log(
        `      ${n - answered} of ${n} payments in flight at the kill (${atKill.size} stored, ${unmarkedAtKill} versions unmarked); ` +
          `${rounds.length} lists in ${Date.now() - startedAt} ms, ${raced} of them while versions were written, ${written} versions written since; ` +
          `writes ${JSON.stringify(writes)}; ${wrong.length} wrong answers`,
      )
      expect(wrong.slice(0, 20), 'answers of the list').to.deep.equal([])
      expect(rounds.at(-1)?.items.length, 'the last answer: every payment').to.equal(n)
      expect(raced, 'lists while versions were written').to.be.above(RACING_LISTS - 5)
    } finally {
      await client.close()
      for (const p of processes)
        if (p.child.exitCode === null && p.child.signalCode === null) {
          p.child.kill('SIGTERM')
          await once(p.child, 'exit')
        }
    }
  })
})
