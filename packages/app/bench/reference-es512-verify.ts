import { createPublicKey, verify } from 'node:crypto'
import { readFileSync } from 'node:fs'

/**
 * Reference: how many ES512 signatures Node verifies per second with its async `crypto.verify`
 * (libuv thread pool, every core it may use), over the bench's own tokens, for a few seconds.
 * argv: tokens file, token count, public key PEM file, seconds. Prints one JSON line.
 */
const [tokensFile, countArg, publicKeyFile, secondsArg] = process.argv.slice(2)
const key = createPublicKey(readFileSync(publicKeyFile ?? ''))
const tokens = readFileSync(tokensFile ?? '', 'utf8')
  .split('\n')
  .slice(0, Number(countArg))
  .map((t) => {
    const dot = t.lastIndexOf('.')
    return { data: Buffer.from(t.slice(0, dot), 'ascii'), signature: Buffer.from(t.slice(dot + 1), 'base64url') }
  })
const seconds = Number(secondsArg)
// Enough in flight that the thread pool never waits for the event loop.
const IN_FLIGHT = 4 * Number(process.env.UV_THREADPOOL_SIZE ?? 4)

let done = 0
let next = 0
let failed = 0
const started = process.hrtime.bigint()
const end = started + BigInt(Math.round(seconds * 1e9))

const one = () => {
  const t = tokens[next++ % tokens.length]
  if (t === undefined) throw new Error('no tokens')
  verify('sha512', t.data, { key, dsaEncoding: 'ieee-p1363' }, t.signature, (err, ok) => {
    if (err !== null || !ok) failed++
    done++
    if (process.hrtime.bigint() < end) one()
    else if (done === next) {
      const elapsed = Number(process.hrtime.bigint() - started) / 1e9
      if (failed > 0) {
        console.error(`${failed} of ${done} signatures did not verify`)
        process.exit(1)
      }
      console.log(
        JSON.stringify({
          verifications: done,
          seconds: elapsed,
          perSecond: done / elapsed,
          threads: Number(process.env.UV_THREADPOOL_SIZE ?? 4),
        }),
      )
    }
  })
}
for (let i = 0; i < IN_FLIGHT; i++) one()
