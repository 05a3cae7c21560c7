import type { ParameterizedContext } from 'koa'

/**
 * How long a connection refused this way stays open, not read, after its answer was sent:
 * time for the client to read the answer before the connection is reset.
 */
export const LINGER_MS = 1_000

/**
 * For a request whose body will not be read (declared too large) or could not be (too large
 * once streamed, malformed, cut short): answer, then close the connection without reading what
 * is left of the body.
 *
 * Left to itself Node would drain the rest of the body, up to any size, to reuse the connection
 * (and after a framing fault nothing that follows on it can be trusted anyway). And with
 * `Connection: close` Node destroys the socket as soon as the answer is flushed: with body
 * bytes still unread that is a TCP reset, which makes the client drop the answer it has not
 * read yet (a client still sending sees EPIPE and never reads the 422). So instead:
 *
 * 1. `Connection: close`, so neither side reuses the connection;
 * 2. the request counts as consumed but is never read: Node then does not dump (drain) it, and
 *    its stream's backpressure stops reading the socket once its small buffer is full;
 * 3. once the answer is written: the write side is ended (FIN after the answer), the socket is
 *    not read, Node's immediate destroy is called off, and the socket is destroyed after
 *    `LINGER_MS`, by which time the client has the answer. At most what sat in the socket's
 *    buffers is ever read.
 *
 * Safe to call more than once for one request.
 */
export const closeConnectionAfterResponse = (ctx: ParameterizedContext<unknown>): void => {
  const { req, res } = ctx
  // HTTP/2 has no `Connection` header (setting it throws), and a reset stream has no body to drain.
  if (req.httpVersionMajor >= 2) return
  const socket = req.socket
  if (socket.destroyed) return
  if (!ctx.headerSent) ctx.set('Connection', 'close')
  const marked = res as typeof res & { orkaCloseAfterResponse?: true }
  if (marked.orkaCloseAfterResponse) return
  marked.orkaCloseAfterResponse = true
  // A read marks the request as being consumed, so Node will not `_dump()` it after the answer;
  // nothing reads it further, so its buffer fills and Node stops reading the socket.
  if (!req.readableEnded && !req.destroyed) {
    req.pause()
    req.read(0)
  }
  // Runs after Node's own `finish` handler, which called `socket.destroySoon()`.
  res.once('finish', () => {
    if (socket.destroyed) return
    // eslint-disable-next-line @typescript-eslint/unbound-method -- the listener is found by identity, never called from here
    socket.removeListener('finish', socket.destroy)
    socket.pause()
    // Node may resume the socket on the next ticks (its dump of an unconsumed request): pause again after.
    setImmediate(() => {
      if (!socket.destroyed) socket.pause()
    })
    if (socket.writable) socket.end()
    const timer = setTimeout(() => socket.destroy(), LINGER_MS)
    timer.unref()
    socket.once('close', () => {
      clearTimeout(timer)
    })
  })
}
