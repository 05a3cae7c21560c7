import * as fc from 'fast-check'

/**
 * Requests that are not valid HTTP/1.1, or that the HTTP parser refuses before the application
 * sees them: control bytes in header values, bad header names, unknown methods, framing that
 * contradicts itself, heads over the parser's limit. Each is written byte for byte; the
 * request line and the token are otherwise those of an ordinary request, so that a parser that
 * lets it through gets an error from the application instead (a path id that is no UUID, a
 * body that is no subscription).
 */
export interface Malformed {
  readonly what: string
  readonly method: string
  readonly head: readonly string[]
  readonly body: string
  /** The client closes its side (FIN) once it has written the bytes. */
  readonly halfClose?: boolean
}

export const MALFORMED_TARGET = '/webhook-subscriptions/not-a-uuid'
/** Where bodies go: an operation that reads its body (the bodies sent are never a valid subscription). */
export const MALFORMED_POST_TARGET = '/webhook-subscriptions'

const controls = fc.constantFrom('\x00', '\x01', '\x08', '\x0b', '\x0c', '\x1b', '\x7f', '\r', 'a\rb', '\x00\x00')

export const malformedRequest: fc.Arbitrary<Malformed> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('X-Fuzz', 'Authorization', 'X-Orka-Merchant-Account-Id', 'Content-Type', 'Idempotency-Key', 'X-Request-Id'),
        controls,
        fc.nat(3),
      )
      .map(([name, c, at]) => ({
        what: `a control byte in the value of ${name}`,
        method: 'GET',
        head: [`GET ${MALFORMED_TARGET} HTTP/1.1`, `${name}: ${'abc'.slice(0, at)}${c}${'abc'.slice(at)}`],
        body: '',
      })),
  },
  fc
    .constantFrom('X Fuzz', 'X:Fuzz', '(x)', 'X-F\u00fczz', 'X-Fuzz\x00', '', ' X-Fuzz', 'X-Fuzz ', 'X\tFuzz', '"x"', 'X-Fuzz{}')
    .map((name) => ({
      what: `the header name ${JSON.stringify(name)}`,
      method: 'GET',
      head: [`GET ${MALFORMED_TARGET} HTTP/1.1`, `${name}: 1`],
      body: '',
    })),
  fc.constantFrom('FOO', 'get', 'G\u00ffT', 'PRI', 'GET\x00', 'BREW', 'PROPFIND', 'M-SEARCH', 'LINK').map((method) => ({
    what: `the method ${JSON.stringify(method)}`,
    method,
    head: [`${method} ${MALFORMED_TARGET} HTTP/1.1`],
    body: '',
  })),
  fc.constantFrom('HTTP/2.0', 'HTTP/1.2', 'HTTP/0.9', 'http/1.1', 'HTTP/1', 'HTTP/11', 'HTTP/1.1 x', '').map((version) => ({
    what: `the version ${JSON.stringify(version)}`,
    method: 'GET',
    head: [`GET ${MALFORMED_TARGET}${version === '' ? '' : ` ${version}`}`],
    body: '',
  })),
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(
        ...[
          {
            what: 'Content-Length and Transfer-Encoding',
            head: ['Content-Length: 4', 'Transfer-Encoding: chunked'],
            body: '2\r\n{}\r\n0\r\n\r\n',
          },
          { what: 'two different Content-Lengths', head: ['Content-Length: 2', 'Content-Length: 3'], body: '{}' },
          { what: 'a negative Content-Length', head: ['Content-Length: -1'], body: '{}' },
          { what: 'a non-numeric Content-Length', head: ['Content-Length: 2x'], body: '{}' },
          { what: 'a huge Content-Length', head: ['Content-Length: 99999999999999999999'], body: '{}' },
          { what: 'a bad chunk size', head: ['Transfer-Encoding: chunked'], body: 'zz\r\n{}\r\n0\r\n\r\n' },
          { what: 'a chunk size with no chunk', head: ['Transfer-Encoding: chunked'], body: '5\r\n{}\r\n\r\n0\r\n\r\n' },
          { what: 'Transfer-Encoding gzip, chunked', head: ['Transfer-Encoding: gzip, chunked'], body: '2\r\n{}\r\n0\r\n\r\n' },
          { what: 'Transfer-Encoding chunked, identity', head: ['Transfer-Encoding: chunked, identity'], body: '2\r\n{}\r\n0\r\n\r\n' },
          { what: 'an unknown Transfer-Encoding', head: ['Transfer-Encoding: x-fuzz'], body: '{}' },
          { what: 'an obs-folded header', head: ['X-Fuzz: a', ' b'], body: '' },
          { what: 'no Host header', head: ['__NO_HOST__'], body: '' },
          { what: 'two Host headers', head: ['Host: a.example'], body: '' },
          { what: 'a bare LF line ending', head: ['X-Fuzz: a\nX-Other: b'], body: '' },
          { what: 'a Content-Length over 2^32', head: ['Content-Length: 4294967298'], body: '{}', halfClose: true },
          {
            what: 'a body shorter than its Content-Length, then the client closes its side',
            head: ['Content-Length: 100'],
            body: '{"url":"h',
            halfClose: true,
          },
          {
            what: 'a chunked body without its last chunk, then the client closes its side',
            head: ['Transfer-Encoding: chunked'],
            body: '2\r\n{}\r\n',
            halfClose: true,
          },
          { what: 'headers only, then the client closes its side', head: ['Content-Length: 10'], body: '', halfClose: true },
        ].map((c): { what: string; head: string[]; body: string; halfClose?: boolean } => c),
      )
      .map((c) => ({
        what: c.what,
        method: 'POST',
        head: [`POST ${MALFORMED_POST_TARGET} HTTP/1.1`, ...c.head],
        body: c.body,
        ...(c.halfClose === undefined ? {} : { halfClose: c.halfClose }),
      })),
  },
  fc.constantFrom(17000, 40000, 70000).map((n) => ({
    what: `a ${n}-byte header`,
    method: 'GET',
    head: [`GET ${MALFORMED_TARGET} HTTP/1.1`, `X-Fuzz: ${'a'.repeat(n)}`],
    body: '',
  })),
  fc.constantFrom(17000, 40000).map((n) => ({
    what: `a ${n}-byte request target`,
    method: 'GET',
    head: [`GET ${MALFORMED_TARGET}?q=${'a'.repeat(n)} HTTP/1.1`],
    body: '',
  })),
  fc.constantFrom(120, 300).map((n) => ({
    what: `${n} headers`,
    method: 'GET',
    head: [`GET ${MALFORMED_TARGET} HTTP/1.1`, ...Array.from({ length: n }, (_, i) => `X-Fuzz-${i}: ${'a'.repeat(100)}`)],
    body: '',
  })),
  fc
    .constantFrom(' a b', 'webhook-subscriptions/x', '\x00', '\u00e9', '\x7f', '"', '<x>', '\\', '^', '`', '{x}', '|', '#x')
    .map((suffix) => `GET ${suffix.startsWith(' ') || !suffix.includes('/') ? MALFORMED_TARGET + suffix : suffix} HTTP/1.1`)
    .map((line) => ({
      what: `the request line ${JSON.stringify(line)}`,
      method: 'GET',
      head: [line],
      body: '',
    })),
)

/** The bytes of a malformed request, with a token, the server's host and a request id (to find its log lines). */
export const malformedBytes = (m: Malformed, host: string, token: string, requestId: string): Buffer => {
  const [line, ...rest] = m.head
  const host_ = rest.includes('__NO_HOST__') ? [] : [`Host: ${host}`]
  const lines = [
    line!,
    ...host_,
    `Authorization: Bearer ${token}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    ...rest.filter((l) => l !== '__NO_HOST__'),
  ]
  const hasLength = rest.some((l) => /^(content-length|transfer-encoding):/i.test(l))
  if (m.body !== '' && !hasLength) lines.push(`Content-Length: ${Buffer.byteLength(m.body, 'latin1')}`)
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${m.body}`, 'latin1')
}
