import http from 'node:http'
import https from 'node:https'

export interface Agents {
  readonly http: http.Agent
  readonly https: https.Agent
}

/**
 * Kept-alive connections, at most 8 per host (pool key: host name and port, plus TLS options).
 * Pooling is safe with the pinned lookup: an agent calls the request's `lookup` for each new
 * connection, and a pooled connection was opened to an address vetted when it was made (every
 * request still vets its host first, so a host that turned private is refused before reuse).
 * Idle connections close after 4 s, before common servers' keep-alive timeouts (Node's is 5 s),
 * so we rarely reuse one the server is closing; idle sockets are unref'd and keep no process alive.
 */
const OPTIONS = { keepAlive: true, maxSockets: 8, maxFreeSockets: 8, timeout: 4000, scheduling: 'lifo' } as const

export const makeAgents = (): Agents => ({ http: new http.Agent(OPTIONS), https: new https.Agent(OPTIONS) })

export const destroyAgents = (a: Agents): void => {
  a.http.destroy()
  a.https.destroy()
}
