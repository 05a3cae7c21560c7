import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { MongoClient } from 'mongodb'
import { Bench } from '../bench'
import { load } from '../load'
import { LoadResult, LoadSpec, numbersIn } from '../load-spec'
import { call, mongoEnv, startOrka, withMongoDatabase } from '../orka'
import { BENCH_DIR, BenchFailure, freePort, Server, sleep, startServer } from '../processes'
import { int, judge, ms, Row } from '../table'
import { difference, startWireCounter, WireCounter } from '../wire-counter'
import { guarded, using, WARM_UP_S } from './common'

const SESSION = '{"amount":1299,"currency":"USD"}'
/** The approving test card, sent as Secure Fields do (no token). */
const FIELDS = '{"payment_method":{"method":"card","number":"4111111111111111","expiration_date":"12/35","security_code":"123"}}'
const PAYMENT = '{"amount":1299,"currency":"USD","intent":"authorize","payment_method":{"method":"checkout-session","id":"{{id}}"}}'
/** A 201 is not enough: every answer must be an authorized transaction. */
const AUTHORIZED = '"status":"authorization_succeeded"'
/** Sessions of the run must be paid before their card's 5 minutes are up: their preparation is bounded. */
const PREPARE_S = 150

/** `count` checkout sessions with the approving card on them, 16 at a time; their ids (one per line) in `file`, the seconds it took. */
const prepareSessions = async (bench: Bench, orka: Server, count: number, file: string): Promise<{ seconds: number; ids: string[] }> => {
  const started = performance.now()
  const ids: string[] = []
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const created = await call(orka, 'POST', '/checkout/sessions', 201, { token: bench.token, body: SESSION })
      const { id } = JSON.parse(created.toString('utf8')) as { id: string }
      await call(orka, 'PUT', `/checkout/sessions/${id}/fields`, 204, { body: FIELDS })
      ids[i] = id
    }
  }
  await Promise.all(Array.from({ length: 16 }, worker))
  writeFileSync(file, ids.join('\n'))
  return { seconds: (performance.now() - started) / 1000, ids }
}

let files = 0

/**
 * Sessions for a warm-up of `warmUp` payments and a second of about WARM_UP_S (sent and not
 * counted), then for a measured run of about `bench.seconds` at the second's rate (fewer when
 * preparing them would take longer than PREPARE_S); `beforeRun` runs between the preparation
 * and the measured run.
 */
const payments = async (
  bench: Bench,
  orka: Server,
  warmUp: number,
  beforeRun: () => Promise<void> = () => Promise.resolve(),
  idempotencyKeys = true,
): Promise<{ readonly run: LoadResult; readonly spec: LoadSpec; readonly prepared: string }> => {
  const spec = (file: string, count: number): LoadSpec => ({
    url: `${orka.url}/transactions`,
    method: 'POST',
    headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' },
    body: PAYMENT,
    ids: { file, from: 0, count },
    bodyIncludes: AUTHORIZED,
    // As merchants' servers send payments: each with an idempotency key of its own (case 11 sends none).
    idempotencyKeys,
    connections: bench.connections,
    seconds: bench.seconds,
  })
  /** Sessions for `n` payments, then the payments; the seconds the preparation took, and the run. */
  const round = async (n: number, what: string) => {
    const file = join(bench.dir, `sessions-${++files}.txt`)
    const prep = (await prepareSessions(bench, orka, n, file)).seconds
    return { prep, file, run: await runLoad(bench, `${orka.name} ${what}`, spec(file, n)) }
  }
  // The first warm-up is slower than what follows (compilation): a second one, of about
  // WARM_UP_S, gives the rate the measured run's size is drawn from.
  const first = await round(warmUp, 'payments (warm-up)')
  const second = await round(Math.max(100, Math.ceil(first.run.rps * WARM_UP_S)), 'payments (second warm-up)')
  const prepRate = warmUp / first.prep
  const count = Math.max(warmUp, Math.min(Math.ceil(second.run.rps * bench.seconds), Math.floor(prepRate * PREPARE_S)))
  const file = join(bench.dir, `sessions-${++files}.txt`)
  const prep = (await prepareSessions(bench, orka, count, file)).seconds
  await beforeRun()
  const run = await runLoad(bench, `${orka.name} payments`, spec(file, count))
  return { run, spec: spec(file, count), prepared: `${int(count)} sessions with a card prepared in ${prep.toFixed(0)} s (not counted)` }
}

const runLoad = (bench: Bench, what: string, spec: LoadSpec) => load(bench, what, spec, { expect: 201 })

/** One session paid by hand: the answer the reference sends, checked first. */
const sample = async (bench: Bench, orka: Server): Promise<Buffer> => {
  const [id] = (await prepareSessions(bench, orka, 1, join(bench.dir, `sessions-${++files}.txt`))).ids
  const answer = await call(orka, 'POST', '/transactions', 201, { token: bench.token, body: PAYMENT.replace('{{id}}', id ?? '') })
  if (!answer.toString('utf8').includes(AUTHORIZED)) throw new BenchFailure(`a payment did not authorize: ${answer.toString('utf8')}`)
  return answer
}

/**
 * Case 11: `POST /transactions` paying with a checkout session (each request its own, prepared
 * beforehand), the embedded store, against the bare Koa app parsing a body of the same size and
 * answering 201 with the bytes of Orka's answer, in the same run.
 */
export const memoryTransactionsCase = (bench: Bench): Promise<Row> =>
  guarded('11', 'POST /transactions, checkout session, memory', () =>
    using(startOrka(bench, 'Orka (memory)'), async (orka) => {
      const answer = await sample(bench, orka)
      const roles = await call(orka, 'GET', '/roles', 200, { token: bench.token })
      const answerFile = join(bench.dir, 'transaction.json')
      const rolesFile = join(bench.dir, 'roles-11.json')
      writeFileSync(answerFile, answer)
      writeFileSync(rolesFile, roles)
      const { run, spec, prepared } = await payments(bench, orka, 2000, undefined, false)
      const port = await freePort()
      const koa = await using(
        startServer({
          name: 'bare Koa',
          script: join(BENCH_DIR, 'reference-koa.js'),
          args: [String(port), rolesFile, answerFile, answerFile],
          env: {},
          port,
          cpus: bench.machine.serverCpus,
          logFile: join(bench.dir, 'reference-koa-11.log'),
          readyPath: '/roles',
        }),
        async (s) => {
          // The same bodies (the run's session ids, again and again: it stores nothing), for as long as a timed run.
          const ref = { ...spec, url: `${s.url}/transactions`, ids: { ...(spec.ids ?? { file: '', from: 0, count: 0 }), reuse: true } }
          await runLoad(bench, 'bare Koa transactions (warm-up)', { ...ref, seconds: 2 })
          return runLoad(bench, 'bare Koa transactions', ref)
        },
      )
      return {
        rps: run.rps,
        p50: run.p50,
        p99: run.p99,
        reference: `bare Koa, parses JSON, ${int(answer.length)} B: ${int(koa.rps)} req/s`,
        ...judge(run.rps / koa.rps, { atLeast: 0.3 }),
        notes: [
          `${prepared}; ${int(run.requests)} payments in ${run.seconds.toFixed(1)} s, each session once, every answer 201 authorization_succeeded (after warm-ups of 2,000 and about 2 s)`,
        ],
      }
    }),
  )

/** Storage round trips per transaction of a run, counted by the wire proxy. */
interface RoundTrips {
  /** By `command collection`, most first. */
  readonly perTx: readonly (readonly [string, number])[]
  readonly total: number
  /** Commands per second of an idle Orka. */
  readonly idleRate: number
  /** The breakdown and how it was counted, as notes. */
  readonly notes: readonly string[]
}

/**
 * Runs `measure` with a `beforeRun` that counts what an idle Orka sends for `bench.seconds`
 * (called just before the measured run), then counts the commands of the run and 1 s after (for
 * the writes a run leaves behind), less the idle rate over as long, per transaction answered.
 */
const countRoundTrips = async <A extends { readonly run: LoadResult }>(
  bench: Bench,
  counter: WireCounter,
  measure: (beforeRun: () => Promise<void>) => Promise<A>,
): Promise<A & { readonly trips: RoundTrips }> => {
  let idle = new Map<string, number>()
  let idleS = 0
  let before = new Map<string, number>()
  const measured = await measure(async () => {
    await sleep(1000)
    const a = counter.counts()
    const t = performance.now()
    await sleep(bench.seconds * 1000)
    idle = difference(counter.counts(), a)
    idleS = (performance.now() - t) / 1000
    before = counter.counts()
  })
  const { run } = measured
  const t = performance.now()
  // Writes a run leaves behind finish within this.
  await sleep(1000)
  const windowS = run.seconds + (performance.now() - t) / 1000
  const during = difference(counter.counts(), before)
  const keys = [...new Set([...during.keys(), ...idle.keys()])]
  const perTx = keys
    .map((k) => [k, ((during.get(k) ?? 0) - ((idle.get(k) ?? 0) * windowS) / idleS) / run.requests] as const)
    .filter(([, n]) => Math.abs(n) >= 0.005)
    .sort((a, b) => b[1] - a[1])
  const idleAll = [...idle.values()].reduce((s, n) => s + n, 0)
  return {
    ...measured,
    trips: {
      perTx,
      total: perTx.reduce((s, [, n]) => s + n, 0),
      idleRate: idleAll / idleS,
      notes: [
        `storage commands per transaction: ${perTx.map(([k, n]) => `${k} ${n.toFixed(2)}`).join(', ')}`,
        `counted by a MongoDB-wire proxy in the bench's process (not pinned) between Orka and the server: ${int([...during.values()].reduce((s, n) => s + n, 0))} commands in ${windowS.toFixed(1)} s (the run and 1 s after), less an idle Orka's ${int(idleAll)} in ${idleS.toFixed(1)} s; p50 ${ms(run.p50)} includes the proxy's hop`,
      ],
    },
  }
}

const roundTripsReference = (trips: RoundTrips) => `round trips per transaction (idle: ${trips.idleRate.toFixed(1)}/s, less)`

/**
 * Case 12: the same on MongoDB, Orka's storage commands counted by a MongoDB-wire proxy between
 * it and the server (in the bench's process): those of the measured run, less those an idle
 * Orka sends in as long (measured just before), per transaction.
 */
export const mongoTransactionsCase = (bench: Bench): Promise<Row> =>
  guarded('12', 'POST /transactions, checkout session, MongoDB', () =>
    withMongoDatabase(bench, async (uri, db) =>
      using(startWireCounter(uri), async (counter) =>
        using(startOrka(bench, 'Orka (MongoDB)', { env: mongoEnv(counter.uri, db) }), async (orka) => {
          await sample(bench, orka)
          const { run, prepared, trips } = await countRoundTrips(bench, counter, (beforeRun) => payments(bench, orka, 200, beforeRun))
          const [breakdown, counted] = trips.notes
          return {
            rps: run.rps,
            p50: run.p50,
            p99: run.p99,
            reference: roundTripsReference(trips),
            ...judge(trips.total, { atMost: 4 }),
            notes: [
              `${prepared}; ${int(run.requests)} payments in ${run.seconds.toFixed(1)} s, each session once and with an idempotency key of its own, every answer 201 authorization_succeeded (after warm-ups of 200 and about 2 s)`,
              breakdown ?? '',
              counted ?? '',
            ],
          }
        }),
      ),
    ),
  )

/** The approving test card by number, in the request itself (no checkout session). */
const CARD = '{"method":"card","number":"4111111111111111","expiration_date":"12/35","security_code":"123"}'
/** Case 13: the card alone pays. */
const CARD_PAYMENT = `{"amount":10000,"currency":"USD","intent":"authorize","payment_method":${CARD}}`
/** Case 14: two gift cards pay 2500 and 1500 (fresh numbers per request, from the load generator), the card the other 6000. */
const SPLIT_PAYMENT = `{"amount":10000,"currency":"USD","intent":"authorize","payment_method":${CARD},"gift_cards":[{"number":"{{gift:1}}","pin":"8642","amount":2500},{"number":"{{gift:2}}","pin":"8642","amount":1500}]}`
const GIFT_CARDS_PER_PAYMENT = 2

/** Each run's numbers start here: no gift card is used twice within a case (the sandbox funds each with 10000 USD once). */
let cardBases = 0
const nextCardBase = () => ++cardBases * 10_000_000

/**
 * Payments whose body is complete but for the numbers the load generator puts in (no
 * preparation): a warm-up of `warmUp` and a second of about WARM_UP_S (not counted), then about
 * `bench.seconds` at the second's rate. Each run is a set number of requests, so that every
 * transaction made is answered (and counted); `beforeRun` runs just before the measured run.
 */
const numberPayments = async (
  bench: Bench,
  orka: Server,
  body: string,
  warmUp: number,
  beforeRun: () => Promise<void>,
): Promise<{ readonly run: LoadResult; readonly made: number }> => {
  const spec = (amount: number): LoadSpec => ({
    url: `${orka.url}/transactions`,
    method: 'POST',
    headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' },
    body,
    cardBase: nextCardBase(),
    amount,
    bodyIncludes: AUTHORIZED,
    // As merchants' servers send payments: each with an idempotency key of its own.
    idempotencyKeys: true,
    connections: bench.connections,
    seconds: bench.seconds,
  })
  const first = await runLoad(bench, `${orka.name} payments (warm-up)`, spec(warmUp))
  const second = await runLoad(bench, `${orka.name} payments (second warm-up)`, spec(Math.max(100, Math.ceil(first.rps * WARM_UP_S))))
  const count = Math.max(warmUp, Math.ceil(second.rps * bench.seconds))
  await beforeRun()
  const run = await runLoad(bench, `${orka.name} payments`, spec(count))
  return { run, made: first.requests + second.requests + run.requests }
}

/** What case 13 measured, for case 14's row when both run. */
export interface CardOnly {
  readonly run: LoadResult
  readonly trips: RoundTrips
}

/**
 * Case 13: `POST /transactions` paying by card number (no checkout session), each request its
 * own transaction, on MongoDB, its round trips counted as in case 12: what case 14 adds gift
 * cards to.
 */
export const mongoCardTransactionsCase = async (bench: Bench): Promise<{ readonly row: Row; readonly cardOnly?: CardOnly }> => {
  let cardOnly: CardOnly | undefined
  const row = await guarded('13', 'POST /transactions, card number, MongoDB', () =>
    withMongoDatabase(bench, async (uri, db) =>
      using(startWireCounter(uri), async (counter) =>
        using(startOrka(bench, 'Orka (MongoDB)', { env: mongoEnv(counter.uri, db) }), async (orka) => {
          const answer = await call(orka, 'POST', '/transactions', 201, { token: bench.token, body: CARD_PAYMENT })
          if (!answer.toString('utf8').includes(AUTHORIZED))
            throw new BenchFailure(`a payment did not authorize: ${answer.toString('utf8')}`)
          const { run, trips } = await countRoundTrips(bench, counter, (beforeRun) =>
            numberPayments(bench, orka, CARD_PAYMENT, 200, beforeRun),
          )
          cardOnly = { run, trips }
          const [breakdown, counted] = trips.notes
          return {
            rps: run.rps,
            p50: run.p50,
            p99: run.p99,
            reference: roundTripsReference(trips),
            ratio: trips.total,
            result: 'recorded',
            notes: [
              `${int(run.requests)} payments in ${run.seconds.toFixed(1)} s, card 4111111111111111 and an idempotency key in each request (no session), every answer 201 authorization_succeeded (after warm-ups of 200 and about 2 s)`,
              breakdown ?? '',
              counted ?? '',
            ],
          }
        }),
      ),
    ),
  )
  return { row, ...(cardOnly === undefined ? {} : { cardOnly }) }
}

/** A split payment's answer, checked by hand: authorized, both gift cards redeemed. */
const splitSample = async (bench: Bench, orka: Server): Promise<void> => {
  const base = nextCardBase()
  const body = numbersIn(SPLIT_PAYMENT, base, 0)
  const answer = (await call(orka, 'POST', '/transactions', 201, { token: bench.token, body })).toString('utf8')
  const t = JSON.parse(answer) as { status?: string; gift_card_redemptions?: { status?: string }[] }
  const redeemed = (t.gift_card_redemptions ?? []).filter((x) => x.status === 'succeeded').length
  if (t.status !== 'authorization_succeeded' || redeemed !== GIFT_CARDS_PER_PAYMENT)
    throw new BenchFailure(`a split payment did not authorize with ${GIFT_CARDS_PER_PAYMENT} gift cards redeemed: ${answer.slice(0, 600)}`)
}

/**
 * Case 14: `POST /transactions` with a card and two gift cards (split payments, issue 25), each
 * request with two fresh gift card numbers, on MongoDB, round trips counted as in case 12;
 * beside it, case 13 (the same card alone) when it ran. Afterwards the sandbox's ledger must
 * hold exactly one debit per gift card paid with, and nothing else.
 */
export const mongoSplitTransactionsCase = (bench: Bench, cardOnly: CardOnly | undefined): Promise<Row> =>
  guarded('14', 'POST /transactions, card + two gift cards, MongoDB', () =>
    withMongoDatabase(bench, async (uri, db) =>
      using(startWireCounter(uri), async (counter) =>
        using(startOrka(bench, 'Orka (MongoDB)', { env: mongoEnv(counter.uri, db) }), async (orka) => {
          await splitSample(bench, orka)
          const { run, made, trips } = await countRoundTrips(bench, counter, (beforeRun) =>
            numberPayments(bench, orka, SPLIT_PAYMENT, 200, beforeRun),
          )
          const paid = 1 + made
          const ledger = await ledgerEntries(uri, db)
          if (ledger.all !== paid * GIFT_CARDS_PER_PAYMENT || ledger.firstDebits !== ledger.all)
            throw new BenchFailure(
              `the gift card ledger holds ${int(ledger.all)} entries (${int(ledger.firstDebits)} first debits of a card) for ${int(paid)} split payments: expected ${int(paid * GIFT_CARDS_PER_PAYMENT)} of each`,
            )
          const [breakdown, counted] = trips.notes
          const extra = cardOnly === undefined ? [] : [`over the card alone (13): ${beyond(trips, cardOnly.trips)}`]
          return {
            rps: run.rps,
            p50: run.p50,
            p99: run.p99,
            reference:
              cardOnly === undefined
                ? roundTripsReference(trips)
                : `${roundTripsReference(trips)}; card alone (13): ${cardOnly.trips.total.toFixed(2)} at ${int(cardOnly.run.rps)} req/s`,
            ratio: trips.total,
            result: 'recorded',
            notes: [
              `${int(run.requests)} payments in ${run.seconds.toFixed(1)} s, card 4111111111111111 and two gift card numbers the load generator makes fresh for each request (2500 + 1500 of 10000), every answer 201 authorization_succeeded (after warm-ups of 200 and about 2 s)`,
              `the gift card ledger afterwards: ${int(ledger.all)} entries, each the first debit of its card, for ${int(paid)} split payments (warm-ups and a first one checked by hand included): one per gift card, nothing reversed`,
              breakdown ?? '',
              ...extra,
              counted ?? '',
            ],
          }
        }),
      ),
    ),
  )

const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(2)}`

/** What `a` sends per transaction beyond `b`: in all, then by command, most first. */
const beyond = (a: RoundTrips, b: RoundTrips): string => {
  const of = (t: RoundTrips, k: string) => t.perTx.find(([x]) => x === k)?.[1] ?? 0
  const keys = [...new Set([...a.perTx, ...b.perTx].map(([k]) => k))]
  const each = keys
    .map((k) => [k, of(a, k) - of(b, k)] as const)
    .filter(([, n]) => Math.abs(n) >= 0.005)
    .sort((x, y) => y[1] - x[1])
  return `${signed(a.total - b.total)}: ${each.map(([k, n]) => `${k} ${signed(n)}`).join(', ')}`
}

/** The sandbox's gift card ledger in the case's database: all its entries, and those that are a card's first movement and a debit. */
const ledgerEntries = async (uri: string, db: string): Promise<{ readonly all: number; readonly firstDebits: number }> => {
  const client = await MongoClient.connect(uri, { serverSelectionTimeoutMS: 10_000 })
  try {
    const ledger = client.db(db).collection('gift_card_ledger')
    return { all: await ledger.countDocuments({}), firstDebits: await ledger.countDocuments({ seq: 1, amount: { $lt: 0 } }) }
  } finally {
    await client.close()
  }
}
