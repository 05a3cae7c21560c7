import { mintToken } from '../../src/mint-token'
import { Bench } from '../bench'
import { load } from '../load'
import { LoadSpec } from '../load-spec'
import { mongoEnv, startOrka, withMongoDatabase } from '../orka'
import { BenchFailure, sleep } from '../processes'
import { int, ms, Row } from '../table'
import { guarded, using, WARM_UP_S } from './common'

const FLOOD_CONNECTIONS = 300
const PROBE_CONNECTIONS = 4
const LIMIT = 50
const ACME_BUYER = '22222222-2222-4222-8222-222222222222'

/**
 * Case 10: one embed token floods `POST /gift-cards/balances` with 300 connections on MongoDB,
 * while a second client reads another account's buyer; the same reads with no flood are the
 * reference. The flood must be exactly 50 x 200 then 429s (no 5xx), the reads all 200. Row 10
 * is Orka as shipped; row 10b the same with `RATE_LIMIT_HOLD_MS=0` (429s sent at once).
 */
export const embedFloodCases = async (bench: Bench): Promise<Row[]> => [
  await embedFloodCase(bench, '10', null),
  await embedFloodCase(bench, '10b', 0),
]

const embedFloodCase = (bench: Bench, id: string, holdMs: number | null): Promise<Row> =>
  guarded(
    id,
    `another account's GET /buyers/{id} under an embed flood, MongoDB${holdMs === null ? '' : `, RATE_LIMIT_HOLD_MS=${holdMs}`}`,
    () =>
      withMongoDatabase(bench, (uri, db) => {
        const seed = {
          merchant_accounts: [{ id: 'acme', display_name: 'Acme' }],
          buyers: [{ id: ACME_BUYER, merchant_account_id: 'acme', external_identifier: 'buyer-1', display_name: 'Acme Buyer' }],
        }
        const env = { ...mongoEnv(uri, db), ...(holdMs === null ? {} : { RATE_LIMIT_HOLD_MS: String(holdMs) }) }
        return using(startOrka(bench, 'Orka (MongoDB)', { env, seed }), async (orka) => {
          const probe: LoadSpec = {
            url: `${orka.url}/buyers/${ACME_BUYER}`,
            method: 'GET',
            headers: { authorization: `Bearer ${bench.token}`, 'x-orka-merchant-account-id': 'acme' },
            connections: PROBE_CONNECTIONS,
            seconds: bench.seconds,
          }
          await load(bench, 'buyer reads (warm-up)', { ...probe, seconds: WARM_UP_S }, { expect: 200 })
          const quiet = await load(bench, 'buyer reads, no flood', probe, { expect: 200 })

          const embed = mintToken(bench.key.privateKeyPem, { scopes: ['embed'], expiresInS: 3600 })
          // The flood starts first and outlasts the reads by a second at each end.
          const floodSeconds = bench.seconds + 3
          const flooding = load(
            bench,
            'embed flood',
            {
              url: `${orka.url}/gift-cards/balances`,
              method: 'POST',
              headers: { authorization: `Bearer ${embed}`, 'content-type': 'application/json' },
              body: '{"items":[]}',
              connections: FLOOD_CONNECTIONS,
              seconds: floodSeconds,
            },
            { expect: [200, 429] },
          )
          await sleep(2000)
          const [flood, reads] = await Promise.all([flooding, load(bench, 'buyer reads during the flood', probe, { expect: 200 })])
          if (floodSeconds >= 60) throw new BenchFailure('the flood must stay within one rate-limit window (BENCH_SECONDS under 57)')
          if (flood.statuses['200'] !== LIMIT)
            throw new BenchFailure(`embed flood: ${flood.statuses['200'] ?? 0} requests admitted in one window, expected exactly ${LIMIT}`)
          return {
            rps: reads.rps,
            p50: reads.p50,
            p99: reads.p99,
            reference: `no flood: p50 ${ms(quiet.p50)}, p99 ${ms(quiet.p99)}`,
            ratio: reads.p50 / quiet.p50,
            target: 'no error',
            result: 'met',
            notes: [
              `the flood: ${FLOOD_CONNECTIONS} connections for ${floodSeconds} s, ${int(flood.requests)} requests (${int(flood.rps)} req/s, p50 ${ms(flood.p50)}, p99 ${ms(flood.p99)}): exactly ${LIMIT} x 200, the rest 429, no 5xx and no connection error`,
              `the reads: ${PROBE_CONNECTIONS} connections, ${bench.seconds} s, another merchant account; ${int(quiet.rps)} req/s with no flood; ratio of the medians (recorded, no target: Orka is one process on one CPU for both)`,
            ],
          }
        })
      }),
  )
