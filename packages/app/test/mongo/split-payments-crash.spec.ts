import { expect } from 'chai'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { MongoClient } from 'mongodb'
import { MOCK_BALANCE, openingOf } from '@orka/adapters-node'
import { luhnValid } from '@orka/domain'
import { makeFixture } from '../support/harness'
import { Answer, caller, crashTestSetup, freshDatabase, mongoUri, OrkaProcess, startOrkaProcess, storedTransactions } from './support'

/** What these checks read of a stored redemption. */
interface StoredRedemption {
  readonly id: string
  readonly reference: string
  readonly amount: number
  readonly status: string
  readonly error_code: string | null
  readonly unknown: boolean
  readonly requested_at: string | null
  readonly gift_card: { readonly last4: string }
  readonly reversal: { readonly reference: string; readonly status: string } | null
}
interface StoredTx {
  readonly id: string
  readonly status: string
  readonly pending: boolean
  readonly amount: number
  readonly attempts: readonly { readonly reference: string; readonly outcome: string; readonly voided: boolean }[]
  readonly authorization: { readonly reference: string } | null
  readonly void: { readonly status: string } | null
  readonly gift_card_redemptions?: readonly StoredRedemption[]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const FINAL = ['authorization_succeeded', 'authorization_declined', 'authorization_failed', 'capture_succeeded', 'authorization_voided']
const UNDONE = ['authorization_voided', 'authorization_failed', 'authorization_declined']
/** The recovery bound (container.ts `recoveryOf`): 60 s at least, whatever the timeouts; it has no setting of its own. */
const STALE_AFTER_MS = 60_000

/** A Luhn-valid 16-digit card number per payment, none of the mock's declined test cards. */
const cardNumberOf = (i: number) => {
  const body = `49${String(i).padStart(4, '0')}7310250${String(i % 7)}3`
  for (let d = 0; d < 10; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`
  throw new Error('no check digit')
}
const CODE = '8406'

/**
 * Split payments across a kill -9 (the gift card counterpart of transaction-crash.spec.ts): 50
 * payments, each a card and two gift cards, fired at once at one process with an idempotency
 * key each; some card parts are answered slowly (2 s) or never (the call open at the kill),
 * some gift cards are slow (…0009, 2 s each) or hold nothing (…0004: the payment is undone,
 * its first gift card given back), some card parts are declined (the gift cards skipped), some
 * payments capture. The process is killed with SIGKILL once a fifth of them are answered, with
 * card calls and redemptions in flight. After a restart, half the payments are retried with
 * their key (until no longer 425); the rest are left to the recovery pass of an instance
 * started once the recovery bound (60 s) has passed, then retried too.
 *
 * Then nothing is pending, every status is final, every redemption has an outcome, every
 * redemption that may have taken money from an undone payment was given back, and for every
 * gift card the provider's balance (read through the API) is its opening balance less what the
 * stored records say stands redeemed, never below 0. No log line holds a card or gift card
 * number, a PIN or a security code.
 */
describe('split payments across a kill -9, retries and the recovery pass (MongoDB)', function () {
  this.timeout(300_000)
  let db: ReturnType<typeof freshDatabase>
  beforeEach(() => {
    db = freshDatabase()
  })
  afterEach(async () => db.drop())

  it('leaves no payment pending and no gift card short: every balance is its opening less what stands redeemed', async () => {
    const fixture = makeFixture()
    const { env, headers } = crashTestSetup(db.env, fixture)
    const n = 50
    const run = randomBytes(3).toString('hex')
    // Gift card numbers fresh for this run, two per payment: 19 digits, the provider's test ending last.
    const prefix = String(parseInt(run, 16) % 1_000_000).padStart(6, '0')
    const giftNumberOf = (i: number, k: 1 | 2, ending: string) => `6${prefix}${k}${String(i).padStart(3, '0')}0000${ending}`.slice(0, 19)
    const pinOf = (i: number, k: 1 | 2) => `q${run}x${i}k${k}`
    // Card part: never answered (open at the kill), approved after 2 s, declined (gift cards skipped), approved.
    const cardPartOf = (i: number) => (i % 7 === 0 ? 300_999 : i % 3 === 0 ? 300_998 : i % 11 === 0 ? 200_011 : 1000 + i)
    // First gift card: slow for even payments. Second: holding nothing (the payment is undone), slow, or plain.
    const gifts = (i: number) => [
      { number: giftNumberOf(i, 1, i % 2 === 0 ? '0009' : '1111'), pin: pinOf(i, 1), amount: 400 + i },
      { number: giftNumberOf(i, 2, i % 5 === 2 ? '0004' : i % 4 === 3 ? '0009' : '2222'), pin: pinOf(i, 2), amount: 250 },
    ]
    const bodies = Array.from({ length: n }, (_, i) => {
      const g = gifts(i)
      return {
        amount: cardPartOf(i) + g[0]!.amount + g[1]!.amount,
        currency: 'USD',
        payment_method: { method: 'card', number: cardNumberOf(i), expiration_date: '12/35', security_code: CODE },
        gift_cards: g,
        ...(i % 8 === 5 ? { intent: 'capture' } : {}),
      }
    })
    const giftNumbers = bodies.flatMap((b) => b.gift_cards.map((g) => g.number))
    expect(new Set(giftNumbers).size, 'gift card numbers, one per card').to.equal(2 * n)
    const keys = Array.from({ length: n }, (_, i) => `split-crash-${i}-${db.env.MONGODB_DATABASE}`)
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
      /** Every transaction's newest version, as stored. */
      const stored = () => storedTransactions<StoredTx>(client, db.env.MONGODB_DATABASE)
      const pendingOf = (m: Map<string, StoredTx>) => [...m.values()].filter((r) => r.pending || r.status === 'processing')
      const redemptionsOf = (r: StoredTx) => r.gift_card_redemptions ?? []

      const first = await start()

      // --- 50 payments at once; SIGKILL once a fifth of them are answered ---
      const before: (Answer | null)[] = Array.from({ length: n }, () => null)
      let answered = 0
      const firedAt = Date.now()
      const fired = Array.from({ length: n }, (_, i) =>
        pay(first.url, i).then(
          (a) => {
            before[i] = a
            answered++
          },
          () => undefined, // cut by the kill
        ),
      )
      while (answered < 10 && before.some((a) => a === null)) await sleep(1)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      const killedAt = Date.now()
      await Promise.all(fired)
      const inFlight = before.filter((a) => a === null).length
      expect(
        before.filter((a) => a !== null && a.status !== 201).map((a) => `${a!.status} ${a!.text.slice(0, 200)}`),
        'answers before the kill',
      ).to.deep.equal([])
      const atKill = await stored()
      const pendingAtKill = pendingOf(atKill)
      const cardOpen = pendingAtKill.filter((r) => r.attempts.at(-1)?.outcome === 'pending').length
      const redemptionOpen = pendingAtKill.filter((r) =>
        redemptionsOf(r).some((x) => x.status === 'created' && x.requested_at !== null),
      ).length
      const notRequested = pendingAtKill.filter((r) =>
        redemptionsOf(r).some((x) => x.status === 'created' && x.requested_at === null),
      ).length
      const reversalOpen = pendingAtKill.filter((r) => redemptionsOf(r).some((x) => x.reversal?.status === 'pending')).length
      console.log(
        `      killed ${killedAt - firedAt} ms after firing: ${inFlight} of ${n} payments in flight, ${n - inFlight} answered; ` +
          `${atKill.size} transactions stored, ${pendingAtKill.length} of them pending (${cardOpen} with a card call unanswered, ` +
          `${redemptionOpen} with a redemption asked and unanswered, ${notRequested} with a gift card not yet asked, ${reversalOpen} with a reversal open)`,
      )
      expect(inFlight, 'payments in flight at the kill').to.be.above(0)
      expect(pendingAtKill.length, 'transactions left pending by the kill').to.be.above(0)

      /** Retries a payment with its key and body until it is no longer 425 (its dead claim's lease, 5 s). */
      const retry = async (url: string, i: number, statuses: Record<number, number>) => {
        for (;;) {
          const a = await pay(url, i)
          statuses[a.status] = (statuses[a.status] ?? 0) + 1
          if (a.status !== 425) return a
          await sleep(a.retryAfterS * 1000)
        }
      }
      const after: Answer[] = []
      const unsettled = (group: number[]) =>
        group.flatMap((i) => {
          const a = after[i]!
          const status = a.status === 201 ? String((JSON.parse(a.text) as { status?: string }).status) : ''
          return FINAL.includes(status) ? [] : [`#${i} ${a.status} ${a.text.slice(0, 300)}`]
        })

      // --- restart; half the payments retried at once ---
      const second = await start()
      const now = Array.from({ length: n }, (_, i) => i).filter((i) => i % 4 < 2)
      const later = Array.from({ length: n }, (_, i) => i).filter((i) => i % 4 >= 2)
      const nowStatuses: Record<number, number> = {}
      const retriedAt = Date.now()
      await Promise.all(now.map(async (i) => (after[i] = await retry(second.url, i, nowStatuses))))
      console.log(
        `      restarted; ${now.length} payments retried at once, in ${Date.now() - retriedAt} ms: ${JSON.stringify(nowStatuses)}`,
      )
      expect(unsettled(now), 'retries that did not end 201 with a final status').to.deep.equal([])

      // --- stopped before the recovery bound passes (its own passes find nothing stale yet); once
      // it has, a restarted instance's recovery pass at start settles the rest ---
      second.child.kill('SIGTERM')
      await once(second.child, 'exit')
      await sleep(Math.max(0, killedAt + STALE_AFTER_MS + 1000 - Date.now()))
      const left = pendingOf(await stored()).length
      expect(left, 'transactions no retry settled').to.be.above(0)
      const third = await start()
      const recovered = await (async () => {
        for (const until = Date.now() + 30_000; Date.now() < until; await sleep(100)) {
          const line = third
            .out()
            .split('\n')
            .find((l) => l.includes('"msg":"transaction recovery"'))
          if (line !== undefined) return (JSON.parse(line) as { count: number }).count
        }
        return -1
      })()
      const afterRecovery = await stored()
      console.log(
        `      ${left} transactions still pending ${third.readyAt - killedAt} ms after the kill; the third instance's recovery pass settled ${recovered}; ` +
          `pending now: ${pendingOf(afterRecovery).length}`,
      )
      expect(recovered, 'transactions the recovery pass settled').to.equal(left)
      expect(
        pendingOf(afterRecovery).map((r) => `${r.id} ${r.status}`),
        'transactions still pending after the recovery pass',
      ).to.deep.equal([])

      // --- the others retried: settled by recovery (or never recorded, paid now), answered with a final status ---
      const laterStatuses: Record<number, number> = {}
      await Promise.all(later.map(async (i) => (after[i] = await retry(third.url, i, laterStatuses))))
      console.log(`      the other ${later.length} payments retried after the recovery pass: ${JSON.stringify(laterStatuses)}`)
      expect(unsettled(later), 'retries that did not end 201 with a final status').to.deep.equal([])
      for (let i = 0; i < n; i++)
        if (before[i] !== null) expect(after[i]!.text, `the retry of #${i}, answered before the kill`).to.equal(before[i]!.text)

      // --- every stored transaction: one per payment, settled; every redemption settled; what may have been taken from an undone one given back ---
      const final = await stored()
      const ids = after.map((a) => (JSON.parse(a.text) as { id: string }).id)
      expect(new Set(ids).size, 'one transaction per payment').to.equal(n)
      expect([...final.keys()].sort(), 'no transaction but the payments’').to.deep.equal([...ids].sort())
      const wrong: string[] = []
      for (const [i, id] of ids.entries()) {
        const r = final.get(id)!
        const shown = (JSON.parse(after[i]!.text) as { status: string }).status
        if (r.status !== shown) wrong.push(`#${i} ${id}: stored ${r.status}, answered ${shown}`)
        if (!FINAL.includes(r.status) || r.pending) wrong.push(`#${i} ${id}: ${r.status}, pending ${String(r.pending)}`)
        const xs = redemptionsOf(r)
        if (xs.length !== 2 || xs.some((x, k) => x.amount !== bodies[i]!.gift_cards[k]!.amount))
          wrong.push(`#${i} ${id}: redemptions ${JSON.stringify(xs.map((x) => x.amount))}`)
        for (const x of xs) {
          if (!['succeeded', 'failed', 'skipped'].includes(x.status)) wrong.push(`#${i} ${id}: redemption ${x.reference} ${x.status}`)
          const mayHaveTaken = x.status === 'succeeded' || (x.status === 'failed' && x.unknown)
          if (UNDONE.includes(r.status) && mayHaveTaken && x.reversal?.status !== 'succeeded')
            wrong.push(`#${i} ${id} (${r.status}): redemption ${x.reference} ${x.status} (unknown ${String(x.unknown)}) not given back`)
          if (!UNDONE.includes(r.status) && (x.status !== 'succeeded' || x.reversal !== null))
            wrong.push(`#${i} ${id} (${r.status}): redemption ${x.reference} ${x.status}, reversal ${JSON.stringify(x.reversal)}`)
        }
        for (const a of r.attempts) if (a.outcome === 'pending') wrong.push(`#${i} ${id}: attempt ${a.reference} has no outcome`)
        for (const a of r.attempts)
          if (a.outcome === 'unknown' && !a.voided) wrong.push(`#${i} ${id}: attempt ${a.reference} of unknown outcome is not voided`)
      }
      if (wrong.length > 0)
        for (const id of new Set(wrong.map((w) => w.split(' ')[1]!))) console.log(`      record ${id}: ${JSON.stringify(final.get(id))}`)
      expect(wrong, 'transactions not settled as their status says').to.deep.equal([])

      // --- the provider's balance of every gift card (through the API) = opening − what stands redeemed, never below 0 ---
      const standingOf = new Map<string, number>(giftNumbers.map((g) => [g, 0]))
      for (const [i, id] of ids.entries())
        for (const [k, x] of redemptionsOf(final.get(id)!).entries())
          if (x.status === 'succeeded' && x.reversal?.status !== 'succeeded') {
            const g = bodies[i]!.gift_cards[k]!.number
            standingOf.set(g, standingOf.get(g)! + x.amount)
          }
      const items = bodies.flatMap((b) => b.gift_cards.map((g) => ({ number: g.number, pin: g.pin })))
      const chunks = Array.from({ length: Math.ceil(items.length / 10) }, (_, c) => items.slice(c * 10, c * 10 + 10))
      const checked = await Promise.all(chunks.map((chunk) => call(third.url, 'POST', '/gift-cards/balances', { items: chunk })))
      const balances = checked.flatMap((a) => {
        expect(a.status, a.text).to.equal(200)
        return (JSON.parse(a.text) as { items: { balance: number | null; balance_error_code: string | null }[] }).items
      })
      const short: string[] = []
      for (const [j, { number }] of items.entries()) {
        const b = balances[j]!
        const want = openingOf(number) - standingOf.get(number)!
        if (b.balance !== want || b.balance < 0)
          short.push(`…${number.slice(-8)}: balance ${String(b.balance)} (${String(b.balance_error_code)}), expected ${want}`)
      }
      expect(short, 'gift cards whose balance is not opening − standing redemptions').to.deep.equal([])
      const redeemedTotal = [...standingOf.values()].reduce((s, v) => s + v, 0)

      // --- what happened, in one line ---
      const byStatus: Record<string, number> = {}
      for (const r of final.values()) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1
      const all = [...final.values()].flatMap(redemptionsOf)
      const byRedemption: Record<string, number> = {}
      for (const x of all) {
        const k = `${x.status}${x.unknown ? '(unknown)' : ''}${x.reversal?.status === 'succeeded' ? '+reversed' : ''}`
        byRedemption[k] = (byRedemption[k] ?? 0) + 1
      }
      console.log(
        `      summary: ${inFlight} in flight at the kill, ${pendingAtKill.length} pending at the kill, ${now.length} retried, ` +
          `${recovered} recovered; final statuses ${JSON.stringify(byStatus)}; redemptions ${JSON.stringify(byRedemption)}; ` +
          `${redeemedTotal} standing redeemed over ${giftNumbers.length} gift cards (opening ${MOCK_BALANCE} each, …0004 0)`,
      )

      // --- no card number, gift card number, PIN or security code in any log line of the three processes ---
      const logs = processes.map((p) => p.out()).join('')
      const leaked = [
        ...bodies.map((b) => b.payment_method.number),
        ...giftNumbers,
        ...bodies.flatMap((b) => b.gift_cards.map((g) => g.pin)),
      ].filter((x) => logs.includes(x))
      expect(leaked, 'card numbers, gift card numbers or PINs in log lines').to.deep.equal([])
      expect(logs.includes('security_code') || logs.includes(`"${CODE}"`), 'a security code in a log line').to.equal(false)
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
