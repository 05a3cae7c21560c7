import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Bench } from '../bench'
import { call, mongoEnv, startOrka, withMongoDatabase } from '../orka'
import { BENCH_DIR, runJsonChild } from '../processes'
import { int, judge, ms, Row } from '../table'
import { guarded, measure, using } from './common'

const STORED = '{"number":"{{card}}","pin":"1234","amount":5000,"currency":"USD","store":true}'

/**
 * Case 5: activations that store the card, each with its own idempotency key, Orka on MongoDB,
 * against the raw driver inserting documents as fast as it can with Orka's write concern,
 * 32 in flight, from its own process on the servers' CPUs.
 */
export const mongoWritesCase = (bench: Bench): Promise<Row> =>
  guarded('5', 'POST activations, store: true + idempotency-key, MongoDB', () =>
    withMongoDatabase(bench, async (uri, db) => {
      const { orka, card } = await using(startOrka(bench, 'Orka (MongoDB)', { env: mongoEnv(uri, db) }), async (server) => {
        const sample = await call(server, 'POST', '/gift-cards/activations', 201, {
          token: bench.token,
          body: STORED.replace('{{card}}', '4123455599999999991'),
          headers: { 'idempotency-key': 'bench-sample' },
        })
        const r = await measure(
          bench,
          'Orka stored activations on MongoDB',
          {
            url: `${server.url}/gift-cards/activations`,
            method: 'POST',
            headers: { authorization: `Bearer ${bench.token}`, 'content-type': 'application/json' },
            body: STORED,
            cardBase: 3_000_000,
            idempotencyKeys: true,
            connections: bench.connections,
            seconds: bench.seconds,
          },
          { expect: 201 },
        )
        return { orka: r, card: JSON.parse(sample.toString('utf8')) as Record<string, unknown> }
      })
      const specFile = join(bench.dir, 'mongo-insert.json')
      // The document written is Orka's answer for a stored card (its size and shape), under a new _id.
      const document = { ...card }
      delete document.id
      writeFileSync(specFile, JSON.stringify({ uri, db, seconds: bench.seconds, inFlight: bench.connections, document }))
      const raw = await runJsonChild<{ perSecond: number; p50: number; p99: number }>(
        'the MongoDB insert reference',
        join(BENCH_DIR, 'reference-mongo-insert.js'),
        [specFile],
        { cpus: bench.machine.serverCpus, timeoutMs: (bench.seconds + 60) * 1000 },
      )
      return {
        rps: orka.rps,
        p50: orka.p50,
        p99: orka.p99,
        reference: `driver insertOne, ${bench.connections} in flight: ${int(raw.perSecond)}/s`,
        notes: [
          `the driver loop: insertOne of Orka's answer as a document, write concern majority + journal (Orka's), pool of 20, on the servers' CPUs; its p50 ${ms(raw.p50)}, p99 ${ms(raw.p99)}`,
        ],
        ...judge(orka.rps / raw.perSecond, { atLeast: 0.4 }),
      }
    }),
  )
