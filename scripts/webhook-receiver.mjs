// A webhook receiver for trying Orka out: `node scripts/webhook-receiver.mjs PORT SECRET`.
// Prints one line per event (its name, its target's id, whether the signature verifies) and
// answers 204, or 401 to a delivery whose signature does not verify. Deduplicates by event id,
// as a receiver must: an event may come more than once.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'

const [port = '9000', secret = ''] = process.argv.slice(2)
const seen = new Set()

const verifies = (timestamp, body, signatures) => {
  const expected = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest()
  return signatures.split(',').some((sig) => {
    const given = Buffer.from(sig, 'hex')
    return given.length === expected.length && timingSafeEqual(given, expected)
  })
}

createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    // The exact bytes: verify before parsing.
    const body = Buffer.concat(chunks).toString('utf8')
    const timestamp = String(req.headers['x-orka-webhook-timestamp'] ?? '')
    const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) < 300
    if (!fresh || !verifies(timestamp, body, String(req.headers['x-orka-webhook-signatures'] ?? ''))) {
      console.log(`delivery refused: signature or timestamp does not verify`)
      res.writeHead(401).end()
      return
    }
    const event = JSON.parse(body)
    if (!seen.has(event.id)) console.log(`${event.name} ${event.target?.id ?? ''} signature ok`)
    seen.add(event.id)
    res.writeHead(204).end()
  })
}).listen(Number(port), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${port}`))
