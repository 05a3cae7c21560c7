import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { CheckoutSessionStore, openSessionCard, SecretBox } from '@orka/domain'
import { right } from '@orka/domain/testing'
import { get, SessionSweeper } from '../../src/container'
import { errorBody, Harness, recordedResponses, Resource, startHarness, ValidationErrorBody } from '../support/harness'
import { emptySession } from './checkout-session-support'

type Session = Resource & { readonly expires_at: string }

const NUMBER = '4111111111111111'
// Four digits, matched as a whole word: a shorter run turns up inside timestamps.
const CVV = '7373'
const card = (o: Record<string, unknown> = {}) => ({
  payment_method: { method: 'card', number: NUMBER, expiration_date: '12/35', security_code: CVV, ...o },
})
const MINUTE = 60_000

describe('checkout session fields (Secure Fields)', () => {
  let h: Harness
  let seenFrom: number
  beforeEach(async () => {
    h = await startHarness()
    seenFrom = recordedResponses.length
  })
  afterEach(async () => {
    // Whatever a test did, no response and no log line carried the card.
    const answers = recordedResponses
      .slice(seenFrom)
      .map((r) => r.text)
      .join('\n')
    for (const secret of [NUMBER, CVV, '4111111111111112']) {
      const word = new RegExp(`\\b${secret}\\b`)
      expect(answers, 'a response').not.to.match(word)
      expect(h.logs.join('\n'), 'the log').not.to.match(word)
    }
    await h.close()
  })
  const inFromNow = (ms: number) => new Date(h.clock.now().getTime() + ms).toISOString()
  const create = async (merchantAccount?: string) =>
    (await h.request<Session>('POST', '/checkout/sessions', merchantAccount === undefined ? {} : { merchantAccount })).body
  const fields = (id: string, body: unknown, o: { auth?: string | null; method?: 'PUT' | 'POST' } = {}) =>
    h.request(o.method ?? 'PUT', `/checkout/sessions/${id}/fields`, { auth: o.auth === undefined ? null : o.auth, body })
  const takeCard = async (merchantAccountId: string, id: string) => {
    const taken = await right(get(h.container, CheckoutSessionStore).takeCard(merchantAccountId, id, h.clock.now()))
    if (O.isNone(taken) || taken.value.card === null) return expect.fail('no card on the session')
    return openSessionCard(get(h.container, SecretBox), taken.value.card)
  }

  it('takes a card without a token (PUT and POST): 204, then the session shows scheme, BIN, last 4 and fingerprint for 5 minutes', async () => {
    const s = await create()
    h.clock.advance(MINUTE)
    const put = await fields(s.id, card())
    expect([put.status, put.text, put.headers.get('content-type')]).to.deep.equal([204, '', null])
    expect(put.headers.get('ratelimit-policy')).to.equal('"checkout-session";q=50;w=60')
    const read = await h.request<Session & { payment_method: { fingerprint: string } }>('GET', `/checkout/sessions/${s.id}`)
    expect(read.body.payment_method.fingerprint).to.match(/^[A-Za-z0-9_-]{43}$/)
    const shown = {
      type: 'payment-method',
      method: 'card',
      id: null,
      label: '1111',
      scheme: 'visa',
      fingerprint: read.body.payment_method.fingerprint,
      details: { bin: '411111', card_type: null },
    }
    expect([read.status, read.body]).to.deep.equal([200, emptySession(s.id, inFromNow(5 * MINUTE), { payment_method: shown })])
    // POST is the same operation; the same number has the same fingerprint.
    const other = await create()
    expect((await fields(other.id, card({ security_code: null }), { method: 'POST' })).status).to.equal(204)
    const again = await h.request<{ payment_method: unknown }>('GET', `/checkout/sessions/${other.id}`)
    expect(again.body.payment_method).to.deep.equal(shown)
    expect(await takeCard('default', s.id)).to.deep.equal({ number: NUMBER, expiration_date: '12/35', security_code: CVV })
    h.clock.advance(5 * MINUTE)
    expect((await h.request('GET', `/checkout/sessions/${s.id}`)).body).to.deep.equal(errorBody(404))
  })

  it('names the session by its id alone: another merchant account’s session takes a card too', async () => {
    const theirs = await create('acme')
    expect((await fields(theirs.id.toUpperCase(), card())).status).to.equal(204)
    expect(await takeCard('acme', theirs.id)).to.include({ number: NUMBER })
  })

  it('accepts an embed or checkout-sessions.write token; a bad token is 401, one without the scope 403', async () => {
    const s = await create()
    expect((await fields(s.id, card(), { auth: h.token('admin', { scopes: ['embed'] }) })).status).to.equal(204)
    expect((await fields(s.id, card(), { auth: h.token('admin', { scopes: ['checkout-sessions.write'] }) })).status).to.equal(204)
    const bad = await fields(s.id, card(), { auth: `${h.token()}x` })
    expect([bad.status, bad.body, bad.headers.get('www-authenticate')]).to.deep.equal([401, errorBody(401), 'Bearer'])
    const expired = await fields(s.id, card(), {
      auth: h.token('admin', { now: new Date(h.clock.now().getTime() - 120_000), expiresInS: 30 }),
    })
    expect(expired.status).to.equal(401)
    const narrow = await fields(s.id, card(), { auth: h.token('admin', { scopes: ['buyers.read'] }) })
    expect([narrow.status, narrow.body]).to.deep.equal([403, errorBody(403)])
  })

  it('answers 404 for an unknown, deleted or expired session', async () => {
    expect((await fields('99999999-9999-4999-8999-999999999999', card())).body).to.deep.equal(errorBody(404))
    const deleted = await create()
    await h.request('DELETE', `/checkout/sessions/${deleted.id}`)
    expect((await fields(deleted.id, card())).status).to.equal(404)
    const expired = await create()
    h.clock.advance(60 * MINUTE)
    expect((await fields(expired.id, card())).body).to.deep.equal(errorBody(404))
  })

  it('refuses a card past its expiry month with 400 on payment_method.expiration_date, and an unknown stored method on payment_method.id', async () => {
    const s = await create()
    const past = new Date(h.clock.now().getTime() - 40 * 24 * 3_600_000)
    const mmYY = `${String(past.getUTCMonth() + 1).padStart(2, '0')}/${String(past.getUTCFullYear() % 100).padStart(2, '0')}`
    const r = await fields(s.id, card({ expiration_date: mmYY }))
    expect([r.status, r.body]).to.deep.equal([
      400,
      errorBody(400, [
        { location: 'body', pointer: '/payment_method/expiration_date', message: 'the card has expired', type: 'expired_card' },
      ]),
    ])
    expect(r.text).not.to.include(mmYY)
    const stored = await fields(s.id, { payment_method: { method: 'id', id: 'pm-1', security_code: CVV } })
    expect([stored.status, stored.body]).to.deep.equal([
      400,
      errorBody(400, [
        {
          location: 'body',
          pointer: '/payment_method/id',
          message: 'No stored payment method with this id can pay',
          type: 'unknown_payment_method',
        },
      ]),
    ])
    expect((await h.request('GET', `/checkout/sessions/${s.id}`)).body).to.deep.include({ payment_method: null })
  })

  it('refuses a malformed card with 422 that never echoes the number, the code or the date', async () => {
    const s = await create()
    for (const [o, loc, type] of [
      [{ number: '4111111111111112' }, 'number', 'value_error'],
      [{ number: '41111111' }, 'number', 'string_pattern_mismatch'],
      [{ security_code: '73' }, 'security_code', 'string_pattern_mismatch'],
      [{ expiration_date: '13/35' }, 'expiration_date', 'string_pattern_mismatch'],
      [{ method: 'cash' }, 'method', 'enum'],
    ] as const) {
      const r = await fields(s.id, card(o))
      expect(r.status, JSON.stringify(o)).to.equal(422)
      const [d] = (r.body as ValidationErrorBody).detail
      expect([d?.loc, d?.type, d && 'input' in d]).to.deep.equal([['body', 'payment_method', loc], type, loc === 'method'])
    }
    const missing = await fields(s.id, undefined)
    expect([missing.status, (missing.body as ValidationErrorBody).detail.map((d) => d.type)]).to.deep.equal([422, ['missing']])
  })

  it('limits each session to 50 requests a minute, with or without a token, in any case of the id; another session is not limited', async () => {
    const s = await create()
    const other = await create()
    for (let i = 0; i < 50; i++) {
      const r = await fields(i % 2 ? s.id : s.id.toUpperCase(), card(), {
        auth: i % 5 === 0 ? h.token('admin', { scopes: ['embed'] }) : null,
      })
      expect(r.status, `request ${i + 1}`).to.equal(204)
    }
    const over = await fields(s.id, card())
    expect([over.status, over.body, over.headers.get('retry-after')]).to.deep.equal([429, errorBody(429), '60'])
    expect(over.headers.get('ratelimit')).to.equal('"checkout-session";r=0;t=60')
    // Refused requests are 429 whatever they send: the limit comes first.
    expect((await fields(s.id, { nonsense: true })).status).to.equal(429)
    expect((await fields(other.id, card())).status).to.equal(204)
    // Server-to-server tokens are never limited.
    expect((await fields(s.id, card(), { auth: h.token() })).status).to.equal(204)
    h.clock.advance(MINUTE)
    expect((await fields(s.id, card())).status).to.equal(204)
  })

  it('purges expired sessions, card data and all, in the periodic sweep', async () => {
    const s = await create()
    await fields(s.id, card())
    const store = get(h.container, CheckoutSessionStore)
    const earlier = h.clock.now()
    h.clock.advance(5 * MINUTE)
    await get(h.container, SessionSweeper).tick()
    // Gone, not hidden: even a reader from before its expiry finds nothing.
    expect(await right(store.find('default', s.id, earlier))).to.deep.equal(O.none)
  })
})
