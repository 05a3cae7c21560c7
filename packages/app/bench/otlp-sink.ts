import { once } from 'node:events'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'

/** An OpenTelemetry collector's OTLP/HTTP endpoint reduced to its answer: every export is read, counted and answered 200. */
export const startOtlpSink = async () => {
  let exports = 0
  let bytes = 0
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length))
    req.on('end', () => {
      exports++
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => ({ exports, bytes }),
    stop: async () => {
      server.closeAllConnections()
      server.close()
      await once(server, 'close')
    },
  }
}
