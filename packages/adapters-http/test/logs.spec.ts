import { expect } from 'chai'
import fc from 'fast-check'
import * as TE from 'fp-ts/TaskEither'
import { makeAuthorize, makeCheckRateLimit, serviceFailed, serviceTimeout, unavailable } from '@orka/domain'
import { containsCardNumber, createHttpApp, HttpDeps, redactCardNumbers, redactJsonLine, redactLogFields } from '../src'
import { requestIdFor } from '../src/context'
import { serializeError } from '../src/respond'
import {
  AdmitAll,
  CaptureLog,
  catalogueRoles,
  clockAtT0,
  FakeKeys,
  fakeMac,
  fakeMerchantAccounts,
  keyPair,
  listen,
  mint,
  newP521Key,
  T0,
  TestKey,
  useCasesWith,
  omit,
} from './support'

const PAN = '4123455566667777'
const IDS_CAPTURED = '0b6f7c1e-3d2a-4f5b-9c8d-7e6f5a4b3c2d'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/**
 * Independent of the redaction under test: whether `pan` can be read back out of `text` by
 * undoing percent-encoding (repeatedly), folding other scripts' digits to ASCII and dropping
 * everything that is not a digit.
 */
const leaks = (text: string, pan: string = PAN): boolean => {
  let t = text
  for (let i = 0; i < 5; i++) t = t.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
  return t
    .normalize('NFKC')
    .replace(/[^0-9]/g, '')
    .includes(pan)
}

describe('card numbers in logs', () => {
  describe('redactCardNumbers', () => {
    const masked: readonly (readonly [string, string])[] = [
      ['4123455566667777', '################'],
      ['4123-4555-6666-7777', '####-####-####-####'],
      ['4123 4555 6666 7777', '#### #### #### ####'],
      ['4123.4555.6666.7777', '####.####.####.####'],
      ['4123:4555:6666:7777', '####:####:####:####'],
      ['4123/4555/6666/7777', '####/####/####/####'],
      ['4123 - 4555 - 6666 - 7777', '#### - #### - #### - ####'],
      ['4123\n4555\t6666\r\n7777', '####\n####\t####\r\n####'],
      ['4123455566667777123', '###################'],
      ['4123-4555-6666-7777-123', '####-####-####-####-###'],
      ['412345556666', '############'],
      ['card4123455566667777x', 'card################x'],
      ['the card 4123 4555 6666 7777 was declined', 'the card #### #### #### #### was declined'],
      ['%34%31%32%33%34%35%35%35%36%36%36%36%37%37%37%37', '################'],
      ['/gift-cards/%34%31%32%33%2D%34%35%35%35%2d%36%36%36%36%2D%37%37%37%37', '/gift-cards/####%2D####%2d####%2D####'],
      ['%2534%2531%2532%2533%2534%2535%2535%2535%2536%2536%2536%2536', '############'],
      ['4123%204555%206666%207777', '####%20####%20####%20####'],
      ['４１２３４５５５６６６６７７７７', '################'],
      ['a 4123455566667777 b 4123-4555-6666-7777', 'a ################ b ####-####-####-####'],
    ]
    for (const [input, expected] of masked)
      it(`masks ${JSON.stringify(input)}`, () => {
        expect(redactCardNumbers(input)).to.equal(expected)
        expect(containsCardNumber(input)).to.equal(true)
        expect(leaks(redactCardNumbers(input), '4123')).to.equal(false)
      })

    const kept = [
      '41234555666',
      '4123-4555-666',
      '4123----4555----6666----7777', // four separators in a row break a run
      'ef9496d8-53a5-4aad-8ca2-00eb68334389',
      '2027-01-15T08:00:00.000Z',
      '/webhook-subscriptions/:subscription_id',
      'at handler (/srv/dist/src/routes/roles.js:107:30)',
      'req-7',
    ]
    for (const input of kept)
      it(`keeps ${JSON.stringify(input)}`, () => {
        expect(redactCardNumbers(input)).to.equal(input)
        expect(containsCardNumber(input)).to.equal(false)
      })

    it('takes a stricter minimum when asked (paths use 9)', () => {
      expect(redactCardNumbers('/x/123456789/y', 9)).to.equal('/x/#########/y')
      expect(redactCardNumbers('/x/12345678/y', 9)).to.equal('/x/12345678/y')
      expect(redactCardNumbers('/x/123456789/y')).to.equal('/x/123456789/y')
    })

    it('stays fast on long hostile input', () => {
      const started = Date.now()
      redactCardNumbers('12345678901 - '.repeat(5000))
      redactCardNumbers('1---'.repeat(10).concat('a').repeat(5000))
      redactCardNumbers('%25'.repeat(20000) + '3')
      expect(Date.now() - started).to.be.below(1000)
    })
  })

  describe('redactLogFields and redactJsonLine', () => {
    it('masks every string of a record, keys and nested values included, and keeps the rest', () => {
      const circular: Record<string, unknown> = { n: 'x 4123455566667777' }
      circular.self = circular
      expect(
        redactLogFields({
          requestId: '4123-4555-6666-7777',
          status: 404,
          ms: 1.5,
          ok: true,
          none: null,
          list: ['4123455566667777', 7],
          nested: { deeper: { reason: 'card 4123 4555 6666 7777 refused' } },
          '4123455566667777': 'key',
          circular,
        }),
      ).to.deep.equal({
        requestId: '####-####-####-####',
        status: 404,
        ms: 1.5,
        ok: true,
        none: null,
        list: ['################', 7],
        nested: { deeper: { reason: 'card #### #### #### #### refused' } },
        '################': 'key',
        circular: { n: 'x ################', self: '[Circular]' },
      })
    })

    it('turns an Error into its type, message and stack, masked', () => {
      const e = new TypeError('bad number 4123455566667777')
      const r = redactLogFields({ err: e }) as unknown as { err: { type: string; message: string; stack: string } }
      expect(r.err.type).to.equal('TypeError')
      expect(r.err.message).to.equal('bad number ################')
      expect(r.err.stack.split('\n')[0]).to.equal('TypeError: bad number ################')
      expect(leaks(JSON.stringify(r))).to.equal(false)
    })

    it('serializeError masks the message and the stack (which repeats the message)', () => {
      const s = serializeError(new Error('cannot parse 4123.4555.6666.7777'))
      expect(s.type).to.equal('Error')
      expect(s.message).to.equal('cannot parse ####.####.####.####')
      expect(String(s.stack).split('\n')[0]).to.equal('Error: cannot parse ####.####.####.####')
      expect(serializeError('thrown 4123455566667777')).to.deep.equal({ type: 'string', message: 'thrown ################' })
    })

    it('masks a serialised JSON line inside its strings only, so it stays valid JSON', () => {
      const line = JSON.stringify({
        level: 30,
        time: 1800000000000,
        big: 41234555666677770,
        msg: 'activation of 4123 4555 6666 7777 failed',
        err: { message: 'x\n4123\n4555\t6666\u00017777', stack: 'Error: 4123-4555-6666-7777\n    at f (file.js:1:2)' },
        path: '/gift-cards/%34%31%32%33%34%35%35%35%36%36%36%36%37%37%37%37',
      })
      const out = redactJsonLine(line)
      expect(JSON.parse(out)).to.deep.equal({
        level: 30,
        time: 1800000000000,
        big: 41234555666677770,
        msg: 'activation of #### #### #### #### failed',
        err: { message: 'x\n####\n####\t####\u0001####', stack: 'Error: ####-####-####-####\n    at f (file.js:1:2)' },
        path: '/gift-cards/################',
      })
      expect(redactJsonLine('{"msg":"plain \\"quoted\\" 123"}')).to.equal('{"msg":"plain \\"quoted\\" 123"}')
    })

    it('finds and masks the same runs in ASCII text (a shortcut) as in text the full Unicode rule must read', () => {
      // An "é" at the end changes no run, but sends the text the long way.
      const text = fc.string({ unit: fc.constantFrom(...'0123456789 -./:_+,a\t\n\r\u000b\f'.split('')), maxLength: 60, size: 'max' })
      fc.assert(
        fc.property(text, fc.integer({ min: 2, max: 20 }), (s, min) => {
          expect(containsCardNumber(s, min)).to.equal(containsCardNumber(`${s}é`, min))
          expect(`${redactCardNumbers(s, min)}é`).to.equal(redactCardNumbers(`${s}é`, min))
        }),
        { numRuns: 3000 },
      )
    })

    it('masks a line as every string of its record masked would serialise (plain ASCII lines take a shortcut)', () => {
      const chars = (alphabet: string) =>
        fc.string({ unit: fc.constantFrom(...alphabet.split('')), minLength: 8, maxLength: 40, size: 'max' })
      // Plain text (the shortcut) and text with quotes, percent signs, a newline, another script's digit (the long way).
      const text = fc.oneof(chars('0123456789 -./:a'), chars('0123456789 -./:a"%\n\u0663'))
      const record = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.constant(41234555666677770)), { maxKeys: 5 })
      fc.assert(
        fc.property(record, (o) => {
          expect(redactJsonLine(`${JSON.stringify(o)}\n`)).to.equal(`${JSON.stringify(redactLogFields(o))}\n`)
        }),
        { numRuns: 3000 },
      )
    })
  })

  describe('requestIdFor', () => {
    it('generates ids the log never has to mask (1 random UUID in 28 would be)', () => {
      for (let i = 0; i < 3000; i++) {
        const id = requestIdFor('')
        expect(id).to.match(UUID)
        expect(containsCardNumber(id), id).to.equal(false)
      }
    })

    it('refuses an id with a 12-digit run even when it is shaped like a UUID', () => {
      expect(requestIdFor('00000000-0000-4000-8000-412345556666')).not.to.equal('00000000-0000-4000-8000-412345556666')
      expect(requestIdFor('ef9496d8-53a5-4aad-8ca2-00eb68334389')).to.equal('ef9496d8-53a5-4aad-8ca2-00eb68334389')
    })
  })

  describe('through the app', () => {
    let key: TestKey
    before(() => {
      key = newP521Key()
    })

    const unexpected = () => (): never => {
      throw new Error('not expected in this test')
    }

    let log: CaptureLog
    let server: { url: string; close(): Promise<void> }
    beforeEach(async () => {
      log = new CaptureLog()
      const clock = clockAtT0()
      const deps: HttpDeps = {
        keys: new FakeKeys(keyPair(key)),
        clock,
        mac: fakeMac,
        log,
        config: {
          merchantAccountHeader: 'x-orka-merchant-account-id',
          defaultMerchantAccountId: 'default',
          maxBodyBytes: 1024,
          tokenCacheSize: 10,
        },
        useCases: useCasesWith(unexpected, {
          authorize: makeAuthorize({ merchantAccounts: fakeMerchantAccounts('default'), roles: catalogueRoles }),
          checkRateLimit: makeCheckRateLimit({ store: new AdmitAll(), clock, config: { limit: 100, windowS: 60 } }),
          activateGiftCard: () => TE.left(serviceFailed('upstream refused 4123 4555 6666 7777', 'gift-card')),
          captureTransaction: () => TE.left(serviceTimeout('card')),
          listRoles: () => {
            throw new Error(`no roles for card 4123-4555-6666-7777`)
          },
          createWebhookSubscription: () => TE.left(unavailable(new Error('store rejected 4123.4555.6666.7777'))),
        }),
      }
      server = await listen(createHttpApp(deps))
    })
    afterEach(() => server.close())

    const call = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
      const res = await fetch(`${server.url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
      await res.text()
      return res
    }
    const accessLines = () => log.lines.filter((l) => l.msg === 'request')
    const dump = () => JSON.stringify(log.lines)

    describe('x-request-id holding a card number is neither echoed nor logged', () => {
      const shapes = [
        '4123455566667777',
        '4123-4555-6666-7777',
        '4123.4555.6666.7777',
        '4123:4555:6666:7777',
        '4123_4555_6666_7777',
        '4123 4555 6666 7777',
        '4123455566667777123',
        'req-4123455566667777',
        'order.4123-4555-6666-7777.retry',
        '412345556666',
      ]
      for (const given of shapes)
        it(JSON.stringify(given), async () => {
          const r = await call('GET', '/nothing-here', { 'x-request-id': given })
          expect(r.status).to.equal(404)
          const echoed = r.headers.get('x-request-id')
          expect(echoed).to.match(UUID)
          const lines = accessLines()
          expect(lines).to.have.length(1)
          const { ms, ...rest } = lines[0]!.o
          expect(rest).to.deep.equal({ requestId: echoed, method: 'GET', path: '/nothing-here', status: 404 })
          expect(ms).to.be.a('number')
          expect(leaks(dump(), given.replace(/\D/g, ''))).to.equal(false)
        })

      it('still echoes ids with shorter digit runs', async () => {
        for (const given of ['req-7', '41234555666', 'order-2027-01-15', 'a1b2c3d4e5f6a7b8c9d0']) {
          const r = await call('GET', '/nothing-here', { 'x-request-id': given })
          expect(r.headers.get('x-request-id')).to.equal(given)
        }
        expect(accessLines().map((l) => l.o.requestId)).to.deep.equal(['req-7', '41234555666', 'order-2027-01-15', 'a1b2c3d4e5f6a7b8c9d0'])
      })
    })

    describe('an unknown route holding a card number is logged masked', () => {
      const paths: readonly (readonly [string, string, string])[] = [
        ['GET', '/gift-card/4123455566667777', '/gift-card/################'],
        ['GET', '/gift-card/4123-4555-6666-7777', '/gift-card/####-####-####-####'],
        ['GET', '/gift-card/4123.4555.6666.7777', '/gift-card/####.####.####.####'],
        ['GET', '/gift-card/4123%204555%206666%207777', '/gift-card/####%20####%20####%20####'],
        ['GET', '/gift-cards/4123/4555/6666/7777', '/gift-cards/####/####/####/####'],
        ['GET', '/gift-card/4123455566667777123', '/gift-card/###################'],
        ['GET', '/cards/abc4123455566667777def', '/cards/abc################def'],
        ['GET', '/gift-card/%34%31%32%33%34%35%35%35%36%36%36%36%37%37%37%37', '/gift-card/################'],
        ['GET', '/gift-card/%34%31%32%33-%34%35%35%35-%36%36%36%36-%37%37%37%37', '/gift-card/####-####-####-####'],
        [
          'GET',
          '/gift-card/%2534%2531%2532%2533%2534%2535%2535%2535%2536%2536%2536%2536%2537%2537%2537%2537',
          '/gift-card/################',
        ],
        ['DELETE', '/gift-cards/4123-4555-6666-7777/balance', '/gift-cards/####-####-####-####/balance'],
      ]
      for (const [method, path, logged] of paths)
        it(`${method} ${path}`, async () => {
          const r = await call(method, path)
          expect(r.status).to.equal(404)
          const lines = accessLines()
          expect(lines).to.have.length(1)
          const { requestId, ...rest } = lines[0]!.o
          expect(omit(rest, 'ms')).to.deep.equal({ method, path: logged, status: 404 })
          expect(requestId).to.equal(r.headers.get('x-request-id'))
          expect(leaks(dump())).to.equal(false)
        })

      it('masks before cutting a long path, so no part of a run survives the cut', async () => {
        const path = `/x/${'a'.repeat(190)}4123-4555-6666-7777`
        await call('GET', path)
        expect(accessLines()[0]!.o.path).to.equal(`/x/${'a'.repeat(190)}####-##`)
      })
    })

    describe('error logs mask what may quote input', () => {
      const token = (scopes: string[]) => mint(key, { scopes, exp: T0 + 30 })

      it('an unhandled exception: message and stack', async () => {
        const r = await call('GET', '/roles', { authorization: `Bearer ${token(['roles.read'])}` })
        expect(r.status).to.equal(500)
        const line = log.lines.find((l) => l.msg === 'unhandled exception')!
        expect(line.level).to.equal('error')
        const err = line.o.err as Record<string, string>
        expect(err.message).to.equal('no roles for card ####-####-####-####')
        expect(err.stack!.split('\n')[0]).to.equal('Error: no roles for card ####-####-####-####')
        expect(leaks(dump())).to.equal(false)
      })

      it('a failed gift card service: its reason', async () => {
        const r = await call(
          'POST',
          '/gift-cards/activations',
          { authorization: `Bearer ${token(['gift-cards.write'])}`, 'content-type': 'application/json' },
          JSON.stringify({ number: '4123455541234561234', amount: 5000, currency: 'USD' }),
        )
        expect(r.status).to.equal(502)
        const line = log.lines.find((l) => l.msg === 'gift card service failed')!
        expect(line).to.deep.include({ level: 'warn' })
        expect([line.o.service, line.o.reason]).to.deep.equal(['gift-card', 'upstream refused #### #### #### ####'])
        expect(leaks(dump())).to.equal(false)
        expect(leaks(dump(), '4123455541234561234')).to.equal(false)
      })

      it('a card service that did not answer: named as the card service, not a gift card service', async () => {
        const r = await call('POST', `/transactions/${IDS_CAPTURED}/capture`, {
          authorization: `Bearer ${token(['transactions.write'])}`,
        })
        expect(r.status).to.equal(504)
        const lines = log.lines.filter((l) => l.level === 'warn').map((l) => [l.msg, l.o.service])
        expect(lines).to.deep.equal([['card service timed out', 'card']])
      })

      it('an unavailable dependency: its cause', async () => {
        const r = await call(
          'POST',
          '/webhook-subscriptions',
          { authorization: `Bearer ${token(['webhook-subscriptions.write'])}`, 'content-type': 'application/json' },
          JSON.stringify({ url: 'https://example.test/hooks' }),
        )
        expect(r.status).to.equal(500)
        const line = log.lines.find((l) => l.msg === 'dependency unavailable')!
        expect(line.level).to.equal('error')
        expect((line.o.err as Record<string, string>).message).to.equal('store rejected ####.####.####.####')
        expect(leaks(dump())).to.equal(false)
      })
    })
  })
})
