import { expect } from 'chai'
import { createHash } from 'node:crypto'
import { once } from 'node:events'
import { MongoClient } from 'mongodb'
import { luhnValid } from '@orka/domain'
import { defaultCardServiceId } from '../../src/card-services'
import { makeFixture } from '../support/harness'
import { Answer, caller, crashTestSetup, freshDatabase, mongoUri, OrkaProcess, startOrkaProcess, storedTransactions } from './support'

interface Attempt {
  readonly reference: string
  readonly outcome: string
  readonly voided: boolean
}
/** What these checks read of an entry of a transaction's events log. */
interface Event {
  readonly name: string
  readonly context: { readonly step?: string; readonly reference?: string; readonly payment_service_transaction_id?: string }
}
interface StoredTx {
  readonly id: string
  readonly status: string
  readonly pending: boolean
  readonly attempts: readonly Attempt[]
  readonly authorization: { readonly reference: string; readonly service_transaction_id: string } | null
  readonly void: { readonly status: string } | null
  readonly request_ids: readonly string[]
  readonly checkout_session_id: string | null
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const FINAL = ['authorization_succeeded', 'authorization_declined', 'authorization_failed', 'capture_succeeded', 'authorization_voided']
/** The recovery bound (container.ts `recoveryOf`): 60 s at least, whatever the timeouts; it has no setting of its own. */
const STALE_AFTER_MS = 60_000

/** A Luhn-valid 16-digit number per request, none of the mock's declined test cards. */
const numberOf = (i: number) => {
  const body = `49${String(i).padStart(4, '0')}7310250${String(i % 7)}3`
  for (let d = 0; d < 10; d++) if (luhnValid(`${body}${d}`)) return `${body}${d}`
  throw new Error('no check digit')
}
const CODE = '8406'
/** The id the mock card service gives the authorization of a reference (a hash of it: the mock keeps nothing). */
const mockAuthorizationId = (serviceId: string, reference: string) => {
  const x = createHash('sha256').update(`authorize\u0000${serviceId}\u0000${reference}`).digest('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20, 32)}`
}

/**
 * Issue 23's crash test: payments are recorded before the card service is asked, so a process
 * killed with SIGKILL while 100 of them are in flight (half by card, half by checkout session;
 * some on the mock's amount it never answers, some on its slow amount, approved after 2 s)
 * leaves records, not lost money. After a restart, 70 of the requests are retried at once with their idempotency key and
 * body: each ends 201 with a final status (a request answered before the kill gets its first
 * answer again, byte for byte). The other 30 are left alone until the recovery bound (60 s) has
 * passed and a restarted instance's recovery pass has run: then no transaction is pending, and
 * their retries too end 201 with a final status. The one exception, counted and reported: a
 * session payment killed after it took the session's card and before it recorded anything has
 * no transaction and no card left to pay with; its retry is a 400 (`no_card_data`).
 *
 * The mock card service runs inside Orka and keeps nothing (its ids are hashes of the
 * references), so what it authorized cannot be read after the kill. What is checked instead, on
 * every stored transaction: no attempt is left without an outcome, every attempt whose outcome
 * is unknown was voided at the service by its reference, and every authorization is the one
 * the transaction shows (its reference, and the id the mock derives from that reference), in a
 * transaction whose status says so. No log line of the three processes holds a card number or
 * a security code.
 */
describe('payments across a kill -9, retries and the recovery pass (MongoDB)', function () {
  this.timeout(240_000)
  let db: ReturnType<typeof freshDatabase>
  beforeEach(() => {
    db = freshDatabase()
  })
  afterEach(async () => db.drop())

  it('leaves no transaction processing and no authorization unseen; retries end 201 with a final status, or find the card taken and nothing recorded', async () => {
    const fixture = makeFixture()
    const { env, headers } = crashTestSetup(db.env, fixture)
    const serviceId = defaultCardServiceId('default')
    const numbers = Array.from({ length: 100 }, (_, i) => numberOf(i))
    const n = 100
    const keys = Array.from({ length: n }, (_, i) => `tx-crash-${i}-${db.env.MONGODB_DATABASE}`)
    const card = (i: number) => ({ method: 'card', number: numberOf(i), expiration_date: '12/35', security_code: CODE })
    // Never answered (the call is open at the kill, whenever it comes), approved after 2 s, declined, approved.
    const amountOf = (i: number) => (i % 7 === 0 ? 300_999 : i % 3 === 0 ? 300_998 : i % 11 === 0 ? 200_011 : 1000 + i)
    const bySession = (i: number) => i % 2 === 1
    const bodies: Record<string, unknown>[] = []
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

      const first = await start()
      // Half the payments use a checkout session holding the card Secure Fields put on it.
      for (let i = 0; i < n; i++) {
        if (!bySession(i)) {
          bodies.push({ amount: amountOf(i), currency: 'USD', payment_method: card(i), ...(i % 4 === 0 ? { intent: 'capture' } : {}) })
          continue
        }
        const s = await call(first.url, 'POST', '/checkout/sessions', { amount: amountOf(i), currency: 'EUR' })
        expect(s.status, s.text).to.equal(201)
        const id = (JSON.parse(s.text) as { id: string }).id
        const f = await call(first.url, 'PUT', `/checkout/sessions/${id}/fields`, { payment_method: card(i) })
        expect(f.status, f.text).to.equal(204)
        bodies.push({ amount: amountOf(i), currency: 'EUR', payment_method: { method: 'checkout-session', id } })
      }

      // --- 100 payments at once; SIGKILL once a quarter of them are answered ---
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
      while (answered < 25 && before.some((a) => a === null)) await sleep(1)
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      const killedAt = Date.now()
      await Promise.all(fired)
      const inFlight = before.filter((a) => a === null).length
      expect(
        before.filter((a) => a !== null && a.status !== 201),
        'answers before the kill',
      ).to.deep.equal([])
      const atKill = await stored()
      const pendingAtKill = pendingOf(atKill)
      console.log(
        `      killed ${killedAt - firedAt} ms after firing: ${inFlight} of ${n} payments in flight, ${n - inFlight} answered; ` +
          `${atKill.size} transactions stored, ${pendingAtKill.length} of them pending ` +
          `(${pendingAtKill.filter((r) => r.attempts.at(-1)?.outcome === 'pending').length} with a call to the card service unanswered)`,
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
      /**
       * A session payment killed after it took the session's card and before it recorded
       * anything: the card is gone and no transaction exists, so its retry is a 400 (no card
       * data). Nothing was authorized (the service is asked only after the record); reported as
       * a gap: such a retry neither finds its payment nor settles it.
       */
      const cardTakenUnrecorded = new Set<number>()
      const settled = async (group: number[], url: string) => {
        const wrong: string[] = []
        const records = [...(await stored()).values()]
        for (const i of group) {
          const a = after[i]!
          const body = JSON.parse(a.text) as { status?: string; details?: { type: string }[] }
          if (a.status === 201 && FINAL.includes(String(body.status))) continue
          const sessionId = (bodies[i]!.payment_method as { id?: string }).id
          if (a.status === 400 && body.details?.[0]?.type === 'no_card_data' && before[i] === null && sessionId !== undefined) {
            const session = JSON.parse((await call(url, 'GET', `/checkout/sessions/${sessionId}`)).text) as { payment_method: unknown }
            if (session.payment_method === null && !records.some((r) => r.checkout_session_id === sessionId)) {
              cardTakenUnrecorded.add(i)
              continue
            }
          }
          wrong.push(`#${i} ${a.status} ${a.text.slice(0, 200)}`)
        }
        return wrong
      }

      // --- restart; 70 payments retried at once ---
      const second = await start()
      const now = Array.from({ length: n }, (_, i) => i).filter((i) => i % 10 < 7)
      const later = Array.from({ length: n }, (_, i) => i).filter((i) => i % 10 >= 7)
      const nowStatuses: Record<number, number> = {}
      await Promise.all(now.map(async (i) => (after[i] = await retry(second.url, i, nowStatuses))))
      console.log(`      restarted; ${now.length} payments retried at once: ${JSON.stringify(nowStatuses)}`)
      expect(await settled(now, second.url), 'retries that did not end 201 with a final status').to.deep.equal([])

      // --- stopped before the recovery bound passes (its own passes find nothing stale yet); once
      // it has, a restarted instance's recovery pass at start settles the rest ---
      second.child.kill('SIGTERM')
      await once(second.child, 'exit')
      await sleep(Math.max(0, killedAt + STALE_AFTER_MS + 1000 - Date.now()))
      const left = pendingOf(await stored()).length
      expect(left, 'transactions no retry settled').to.be.above(0)
      const third = await start()
      const recovered = await (async () => {
        for (const until = Date.now() + 20_000; Date.now() < until; await sleep(100)) {
          const line = third
            .out()
            .split('\n')
            .find((l) => l.includes('"msg":"transaction recovery"'))
          if (line !== undefined) return (JSON.parse(line) as { count: number }).count
          if (left === 0) return 0
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
      const processing = await call(third.url, 'GET', '/transactions?status=processing')
      expect(JSON.parse(processing.text)).to.deep.include({ items: [] })

      // --- the other 30 retried: settled by recovery, answered with what it decided ---
      const laterStatuses: Record<number, number> = {}
      await Promise.all(later.map(async (i) => (after[i] = await retry(third.url, i, laterStatuses))))
      console.log(`      the other ${later.length} payments retried after the recovery pass: ${JSON.stringify(laterStatuses)}`)
      expect(await settled(later, third.url), 'retries that did not end 201 with a final status').to.deep.equal([])
      for (let i = 0; i < n; i++)
        if (before[i] !== null) expect(after[i]!.text, `the retry of #${i}, answered before the kill`).to.equal(before[i]!.text)

      // --- every transaction: one per request, settled, no authorization unseen ---
      const final = await stored()
      const ids = after.flatMap((a, i) => (cardTakenUnrecorded.has(i) ? [] : [(JSON.parse(a.text) as { id: string }).id]))
      console.log(
        `      ${cardTakenUnrecorded.size} session payments killed between taking the card and recording the payment: ` +
          `no transaction, no card left on the session, their retries 400 no_card_data`,
      )
      expect(new Set(ids).size, 'one transaction per request').to.equal(n - cardTakenUnrecorded.size)
      expect([...final.keys()].sort(), 'no transaction but the requests’').to.deep.equal([...ids].sort())
      const unseen: string[] = []
      for (const r of final.values()) {
        if (!FINAL.includes(r.status) || r.pending) unseen.push(`${r.id}: ${r.status}, pending ${String(r.pending)}`)
        for (const a of r.attempts) {
          if (a.outcome === 'pending') unseen.push(`${r.id}: attempt ${a.reference} has no outcome`)
          if (a.outcome === 'unknown' && !a.voided) unseen.push(`${r.id}: attempt ${a.reference} of unknown outcome is not voided`)
          if (a.outcome === 'authorized') {
            const shows = r.authorization?.reference === a.reference
            const status = ['authorization_succeeded', 'capture_succeeded', 'authorization_voided'].includes(r.status)
            if (!shows || !status) unseen.push(`${r.id}: authorization ${a.reference} not shown (status ${r.status})`)
            else if (r.authorization.service_transaction_id !== mockAuthorizationId(serviceId, a.reference))
              unseen.push(`${r.id}: the authorization shown is not the one the service gave for ${a.reference}`)
          }
        }
      }
      // The events log says the same: each attempt requested, and each answered, authorized or voided by its reference.
      for (const r of final.values()) {
        const log = await call(third.url, 'GET', `/transactions/${r.id}/events?limit=100`)
        const events = (JSON.parse(log.text) as { items: Event[] }).items
        const named = (name: string, ref: string) => events.some((e) => e.name === name && e.context.reference === ref)
        // An authorization is answered `...-authorization-succeeded`, or `...-capture-succeeded` when it captured at once.
        const authorized = (ref: string) =>
          events.some(
            (e) =>
              /^payment-connector-response-transaction-(authorization|capture)-succeeded$/.test(e.name) &&
              e.context.reference === ref &&
              e.context.payment_service_transaction_id === mockAuthorizationId(serviceId, ref),
          )
        const requested = events.filter((e) => e.context.step === 'authorization-requested').map((e) => e.context.reference)
        if (JSON.stringify(requested) !== JSON.stringify(r.attempts.map((a) => a.reference)))
          unseen.push(`${r.id}: events log attempts ${JSON.stringify(requested)}`)
        for (const a of r.attempts) {
          if (a.voided && !named('payment-connector-response-transaction-void-succeeded', a.reference))
            unseen.push(`${r.id}: the void of ${a.reference} is not in the events log`)
          if (a.outcome === 'authorized' && !authorized(a.reference))
            unseen.push(`${r.id}: the authorization of ${a.reference} is not in the events log`)
        }
        if (numbers.some((x) => log.text.includes(x)) || log.text.includes(`"${CODE}"`))
          unseen.push(`${r.id}: the events log holds card data`)
      }
      expect(unseen, 'transactions that hide or lose an authorization').to.deep.equal([])
      const byStatus: Record<string, number> = {}
      for (const r of final.values()) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1
      const voidedUnknown = [...final.values()].filter((r) => r.attempts.some((a) => a.outcome === 'unknown' && a.voided)).length
      console.log(
        `      ${final.size} transactions, ${JSON.stringify(byStatus)}; ${voidedUnknown} attempts of unknown outcome voided at the service`,
      )

      // --- no card number and no security code in any log line of the three processes ---
      const logs = processes.map((p) => p.out()).join('')
      const leaked = numbers.filter((x) => logs.includes(x))
      expect(leaked, 'card numbers in log lines').to.deep.equal([])
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
