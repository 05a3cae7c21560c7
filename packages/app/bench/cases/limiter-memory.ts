import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TOKEN_CACHE_IDLE_MS } from '@orka/adapters-http'
import { mintToken } from '../../src/mint-token'
import { Bench } from '../bench'
import { load } from '../load'
import { startOrka } from '../orka'
import { rssOf, sleep } from '../processes'
import { int, mb, Row } from '../table'
import { guarded, using, WARM_UP_S } from './common'
import { ACTIVATION } from './memory-http'

/** The limiter's window for this case (instead of 60 s), so that it can be waited out. */
export const LIMITER_WINDOW_S = 5
const TARGET_GROWTH_MB = 150
const TARGET_TOKENS = 100_000
/** Below this, a growth not given back is noise (heap sizing), not the limiter's memory. */
const BACK_DOWN_SLACK_MB = 20
/** Waited after the burst: the window, and the verified-token cache's idle bound (it holds each token until then). */
const AFTER_MS = Math.max(LIMITER_WINDOW_S * 1000, TOKEN_CACHE_IDLE_MS) + 1000
/** Requests from one token after the window: the memory store sweeps expired keys every 1,000 admissions. */
const AFTER_WINDOW_REQUESTS = 2_000

/**
 * Case 7: distinct embed tokens (distinct `jti`), each used once for an activation (`store:
 * false`), through the limiter of the embedded store. Resident memory of Orka's process before,
 * right after, and after the window once traffic goes on (one token, 2,000 requests, so the
 * store's sweep runs). `RATE_LIMIT_WINDOW_S=5`; `EMBED_RATE_LIMIT` raised so that the one token of
 * the warm-up and of the traffic after the window is never refused (each other token makes one
 * request, far below any limit).
 */
export const limiterMemoryCase = (bench: Bench): Promise<Row> => {
  const n = Math.min(bench.limiterTokenRun, bench.freshTokens.count)
  return guarded('7', `${int(n)} distinct embed tokens, limiter memory`, () =>
    using(
      startOrka(bench, 'Orka (memory, limiter)', { env: { RATE_LIMIT_WINDOW_S: String(LIMITER_WINDOW_S), EMBED_RATE_LIMIT: '1000000' } }),
      async (orka) => {
        // One embed token for the warm-up and for the traffic after the window (a file of it, repeated, for an exact count).
        const embed = mintToken(bench.key.privateKeyPem, { scopes: [], embed: true, expiresInS: 3600 })
        const repeated = join(bench.dir, 'one-embed-token.txt')
        writeFileSync(repeated, Array.from({ length: AFTER_WINDOW_REQUESTS }, () => embed).join('\n'))
        const activations = (cardBase: number, tokens: { file: string; from: number; count: number }) =>
          ({
            url: `${orka.url}/gift-cards/activations`,
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: ACTIVATION,
            cardBase,
            connections: bench.connections,
            seconds: WARM_UP_S,
            tokens,
          }) as const
        await load(bench, 'limiter warm-up', activations(4_000_000, { file: repeated, from: 0, count: AFTER_WINDOW_REQUESTS }), {
          expect: 201,
        })
        await sleep((LIMITER_WINDOW_S + 1) * 1000)
        const before = rssOf(orka.pid)
        const r = await load(bench, 'distinct embed tokens', activations(5_000_000, { file: bench.freshTokens.file, from: 0, count: n }), {
          expect: 201,
        })
        const right = rssOf(orka.pid)
        await sleep(AFTER_MS)
        await load(bench, 'traffic after the window', activations(6_000_000, { file: repeated, from: 0, count: AFTER_WINDOW_REQUESTS }), {
          expect: 201,
        })
        await sleep(2000)
        const after = rssOf(orka.pid)
        const growth = right - before
        const grewOk = growth <= TARGET_GROWTH_MB * 1024 * 1024
        const backDown = after - before <= Math.max(growth / 2, BACK_DOWN_SLACK_MB * 1024 * 1024)
        const full = n >= TARGET_TOKENS
        const notes = [
          `RATE_LIMIT_WINDOW_S=${LIMITER_WINDOW_S} and EMBED_RATE_LIMIT=1000000 for this case; each token makes one activation (store: false); ` +
            `"after the window": ${AFTER_MS / 1000} s later (the window, and the token cache's ${TOKEN_CACHE_IDLE_MS / 1000} s idle bound), ` +
            `then ${int(AFTER_WINDOW_REQUESTS)} requests from one token (the store sweeps every 1,000 admissions, the cache at each request), then 2 s; ` +
            `"back down": at least half the growth released (or within ${BACK_DOWN_SLACK_MB} MB of the start)`,
        ]
        const mintRate = bench.freshTokens.count / Math.max(bench.freshTokens.mintSeconds, 0.001)
        if (!full)
          notes.push(
            `${int(n)} tokens, not ${int(TARGET_TOKENS)}, to keep the case near 3 min: each is an ES512 signature to mint ` +
              `(${int(mintRate)}/s here, all cores) and to verify (${int(r.rps)}/s here); BENCH_LIMITER_TOKENS=${TARGET_TOKENS} runs the full count`,
          )
        return {
          notes,
          rps: r.rps,
          p50: r.p50,
          p99: r.p99,
          reference: `RSS ${mb(before)} -> ${mb(right)} (+${mb(Math.max(0, growth))}) -> ${mb(after)} after the window`,
          target: `+${TARGET_GROWTH_MB} MB, back down`,
          result:
            grewOk && backDown
              ? full
                ? 'met'
                : `met for ${int(n)} tokens (target is for ${int(TARGET_TOKENS)})`
              : `not met${grewOk ? '' : ', grew too much'}${backDown ? '' : ', not back down'}`,
        }
      },
    ),
  )
}
