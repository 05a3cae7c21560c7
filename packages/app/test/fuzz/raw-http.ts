import { connect } from 'node:net'

/**
 * A request written byte for byte on its own TCP connection: fetch and http.request normalise
 * header names, merge or refuse duplicates and validate values, which is what the fuzzer needs
 * to get past. `Host` and `Connection: close` are always written first; `Content-Length` (or
 * chunked framing) follows the body, so that every request is well framed.
 */
export interface RawRequest {
  readonly method: string
  /** The request target as written: path and query string, already percent-encoded. */
  readonly target: string
  /** Name/value pairs in order, duplicates included; each character of a value is one byte (latin1). */
  readonly headers: readonly (readonly [string, string])[]
  readonly body?: Buffer
  /** `Transfer-Encoding: chunked` instead of `Content-Length` (the body is sent in a few chunks). */
  readonly chunked?: boolean
}

export interface RawResponse {
  readonly status: number
  /** Lower-case names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: Buffer
  /** The body as UTF-8. */
  readonly text: string
}

export class NoResponse extends Error {}

export const encodeRequest = (host: string, r: RawRequest): Buffer => {
  let head = `${r.method} ${r.target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n`
  for (const [name, value] of r.headers) head += `${name}: ${value}\r\n`
  const parts: Buffer[] = []
  if (r.body === undefined) {
    parts.push(Buffer.from(`${head}\r\n`, 'latin1'))
  } else if (r.chunked) {
    parts.push(Buffer.from(`${head}Transfer-Encoding: chunked\r\n\r\n`, 'latin1'))
    const size = Math.max(1, Math.ceil(r.body.length / 3))
    for (let i = 0; i < r.body.length; i += size) {
      const chunk = r.body.subarray(i, i + size)
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`, 'latin1'), chunk, Buffer.from('\r\n', 'latin1'))
    }
    parts.push(Buffer.from('0\r\n\r\n', 'latin1'))
  } else {
    parts.push(Buffer.from(`${head}Content-Length: ${r.body.length}\r\n\r\n`, 'latin1'), r.body)
  }
  return Buffer.concat(parts)
}

/** Parses one HTTP/1.1 response; undefined while it is incomplete. */
export const parseResponse = (buf: Buffer, method: string, closed: boolean): RawResponse | undefined => {
  const end = buf.indexOf('\r\n\r\n')
  if (end < 0) return undefined
  const lines = buf.subarray(0, end).toString('latin1').split('\r\n')
  const m = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(lines[0] ?? '')
  if (!m) throw new NoResponse(`not an HTTP response: ${JSON.stringify(buf.subarray(0, 80).toString('latin1'))}`)
  const status = Number(m[1])
  const headers: Record<string, string> = {}
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':')
    if (i <= 0) throw new NoResponse(`malformed response header line ${JSON.stringify(line)}`)
    const name = line.slice(0, i).trim().toLowerCase()
    const value = line.slice(i + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  const rest = buf.subarray(end + 4)
  const done = (body: Buffer): RawResponse => ({ status, headers, body, text: body.toString('utf8') })
  if (method === 'HEAD' || status === 204 || status === 304 || (status >= 100 && status < 200)) return done(Buffer.alloc(0))
  if (/\bchunked\b/i.test(headers['transfer-encoding'] ?? '')) {
    const chunks: Buffer[] = []
    let at = 0
    for (;;) {
      const eol = rest.indexOf('\r\n', at)
      if (eol < 0) return undefined
      const size = parseInt(rest.subarray(at, eol).toString('latin1').split(';')[0]!, 16)
      if (Number.isNaN(size)) throw new NoResponse('malformed chunk size in the response')
      if (size === 0) return done(Buffer.concat(chunks))
      if (rest.length < eol + 2 + size + 2) return undefined
      chunks.push(rest.subarray(eol + 2, eol + 2 + size))
      at = eol + 2 + size + 2
    }
  }
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length'])
    if (!Number.isInteger(length) || length < 0) throw new NoResponse(`bad Content-Length ${headers['content-length']}`)
    return rest.length >= length ? done(rest.subarray(0, length)) : undefined
  }
  return closed ? done(rest) : undefined
}

/**
 * Sends one request and reads its response until the server closes the connection. A
 * connection reset after a complete response is fine (a server may close without reading
 * the rest of an oversized body); no complete response in `timeoutMs` is a `NoResponse`.
 */
export const sendRaw = (url: string, r: RawRequest, timeoutMs = 20000): Promise<RawResponse> => {
  const { hostname, port } = new URL(url)
  return sendBytes(url, encodeRequest(`${hostname}:${port}`, r), r.method, timeoutMs)
}

/** Writes `bytes` (one request, however malformed) and reads the answer as `sendRaw` does. */
export const sendBytes = (url: string, bytes: Buffer, method: string, timeoutMs = 20000, halfClose = false): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const received: Buffer[] = []
    let settled = false
    const finish = (closed: boolean, why?: string) => {
      if (settled) return
      let res: RawResponse | undefined
      try {
        res = parseResponse(Buffer.concat(received), method, closed)
      } catch (e) {
        settled = true
        clearTimeout(timer)
        socket.destroy()
        reject(e instanceof Error ? e : new Error(String(e)))
        return
      }
      if (res !== undefined) {
        settled = true
        clearTimeout(timer)
        socket.destroy()
        resolve(res)
      } else if (closed) {
        settled = true
        clearTimeout(timer)
        const got = Buffer.concat(received)
        reject(
          new NoResponse(
            `${why ?? 'connection closed'} ${got.length === 0 ? 'before any response' : `after an incomplete response: ${JSON.stringify(got.subarray(0, 120).toString('latin1'))}`}`,
          ),
        )
      }
    }
    // `halfClose`: the client says it has sent everything (FIN) and waits for the answer.
    const socket = connect(Number(port), hostname, () => (halfClose ? socket.end(bytes) : socket.write(bytes, () => undefined)))
    const timer = setTimeout(() => {
      finish(true, `no complete response within ${timeoutMs} ms:`)
      socket.destroy()
    }, timeoutMs)
    socket.on('data', (d: Buffer) => {
      received.push(d)
      finish(false)
    })
    socket.on('error', (e: NodeJS.ErrnoException) => {
      finish(true, `connection error ${e.code ?? e.message}`)
    })
    socket.on('close', () => {
      finish(true)
    })
  })
