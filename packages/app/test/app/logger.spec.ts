import { Writable } from 'node:stream'
import { expect } from 'chai'
import { createLogger, logFormatOf } from '../../src/logger'

/** Every line the logger writes, parsed. */
const capture = () => {
  const lines: Record<string, unknown>[] = []
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Record<string, unknown>)
      done()
    },
  })
  return { lines, stream }
}

const withoutTime = ({ time, ...rest }: Record<string, unknown>) => {
  expect(time).to.be.a('number')
  return rest
}

describe('createLogger', () => {
  it('censors secrets by key at the top of a record and one level down, and leaves the caller’s object alone', () => {
    const { lines, stream } = capture()
    const record = {
      authorization: 'Bearer abc',
      token: 'abc',
      ok: 'kept',
      req: { headers: { cookie: 'c' }, body: '{"pin":"1"}', number: '1', pin: '2', security_code: '123', path: '/roles' },
      deep: { inner: { pin: '3' } },
      list: [{ pin: '4' }],
    }
    const copy = structuredClone(record)
    createLogger('info', stream).info(record, 'm')
    expect(lines.map(withoutTime)).to.deep.equal([
      {
        level: 30,
        service: 'orka',
        authorization: '[redacted]',
        token: '[redacted]',
        ok: 'kept',
        req: {
          headers: '[redacted]',
          body: '[redacted]',
          number: '[redacted]',
          pin: '[redacted]',
          security_code: '[redacted]',
          path: '/roles',
        },
        // Two levels down and inside lists are not looked at (as pino's `key` and `*.key` paths): keep secrets out of those.
        deep: { inner: { pin: '3' } },
        list: [{ pin: '4' }],
        msg: 'm',
      },
    ])
    expect(record).to.deep.equal(copy)
  })

  it('masks card numbers in every string of a written line, child bindings and message included', () => {
    const { lines, stream } = capture()
    createLogger('info', stream)
      .child({ worker: 'w 4123 4555 6666 7777' })
      .warn({ reason: 'card 4123455566667777' }, 'for 4123-4555-6666-7777')
    expect(lines.map(withoutTime)).to.deep.equal([
      { level: 40, service: 'orka', worker: 'w #### #### #### ####', reason: 'card ################', msg: 'for ####-####-####-####' },
    ])
  })

  it('writes nothing below its level', () => {
    const { lines, stream } = capture()
    const log = createLogger('warn', stream)
    log.info({ a: 1 }, 'no')
    expect(log.isLevelEnabled('info')).to.equal(false)
    expect(lines).to.deep.equal([])
  })
})

describe('createLogger, pretty', () => {
  /** Every line written, as text. */
  const text = () => {
    const lines: string[] = []
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(
          ...chunk
            .toString('utf8')
            .split('\n')
            .filter((l) => l !== ''),
        )
        done()
      },
    })
    return { lines, stream }
  }

  it('writes one readable line per event, level, time and message first, with the same censoring and masking as JSON', () => {
    const { lines, stream } = text()
    const log = createLogger('info', stream, 'pretty')
    log.info({ route: 'POST /transactions', status: 201, pin: '8642', token: 'eyJh.secret' }, 'paid with 4111111111111111')
    log.warn('VAULT_KEY is not set')
    expect(lines).to.have.length(2)
    expect(lines[0]).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: paid with #{16} /)
    expect(lines[0]).to.include('"route":"POST /transactions"').and.include('"status":201').and.include('"pin":"[redacted]"')
    expect(lines[1]).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: VAULT_KEY is not set$/)
    for (const secret of ['4111111111111111', '8642', 'eyJh.secret']) expect(lines.join('\n')).to.not.include(secret)
  })

  it('reads an access line as one sentence, and leaves the fields of other lines as they are', () => {
    const { lines, stream } = text()
    const log = createLogger('info', stream, 'pretty')
    log.info({ requestId: 'r-1', method: 'GET', path: '/roles', status: 200, ms: 2.5 }, 'request')
    log.info({ code: 'HPE_INVALID_METHOD', status: 400 }, 'client connection error')
    expect(lines.map((l) => l.slice(l.indexOf(']') + 2))).to.deep.equal([
      'INFO: request GET /roles answered 200 in 2.5 ms {"requestId":"r-1"}',
      'INFO: client connection error {"code":"HPE_INVALID_METHOD","status":400}',
    ])
  })

  it('is chosen by LOG_FORMAT, else by whether standard output is a terminal', () => {
    expect([
      logFormatOf('json', true),
      logFormatOf('pretty', false),
      logFormatOf(undefined, true),
      logFormatOf(undefined, false),
    ]).to.deep.equal(['json', 'pretty', 'pretty', 'json'])
  })
})
