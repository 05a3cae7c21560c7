import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import {
  CheckoutSession,
  CheckoutSessionFields,
  invalidRequest,
  makeCreateCheckoutSession,
  makeGetCheckoutSession,
  makeUpdateCheckoutSession,
  makeDeleteCheckoutSession,
  makePutCheckoutSessionFields,
  makeSweepCheckoutSessions,
  notFound,
  openSessionCard,
  problem,
  UNSET_SESSION_FIELDS,
  makeRecordAudited,
} from '@orka/domain'
import { left, ManualClock, MERCHANT_A, MERCHANT_B, right, SequentialIds, uuidFor } from '@orka/domain/testing'
import { MemoryCheckoutSessionStore, MemoryPaymentMethodVault, MemoryAuditLog } from '../../src'
import { START, testBox, testMac, ACTOR } from './support'

const VISA = '4111111111111111'
const UNKNOWN = uuidFor(0xcff)
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const iso = (offsetMs: number) => new Date(START.getTime() + offsetMs).toISOString()
const card = (o: Partial<{ number: string; expiration_date: string; security_code: string | null }> = {}): CheckoutSessionFields => ({
  payment_method: { method: 'card', number: VISA, expiration_date: '12/35', security_code: '123', ...o },
})
const notSupported = (...path: string[]) => problem('input', path, `\`${path.join('.')}\` is not supported`, 'not_supported')

describe('checkout session use cases', () => {
  const setup = () => {
    const clock = new ManualClock(START)
    const ids = new SequentialIds()
    const w = {
      sessions: new MemoryCheckoutSessionStore(),
      paymentMethods: new MemoryPaymentMethodVault(),
      clock,
      ids,
      box: testBox(),
      mac: testMac(),
      audited: makeRecordAudited({ audit: new MemoryAuditLog(), ids, clock }),
    }
    return {
      ...w,
      create: makeCreateCheckoutSession(w),
      get: makeGetCheckoutSession(w),
      update: makeUpdateCheckoutSession(w),
      remove: makeDeleteCheckoutSession(w),
      putFields: makePutCheckoutSessionFields(w),
      sweep: makeSweepCheckoutSessions(w),
    }
  }
  type World = ReturnType<typeof setup>
  const created = (s: World, input: Parameters<World['create']>[0]['input'] = {}) =>
    right(s.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input }))
  const read = (s: World, id: string) => right(s.get({ merchantAccountId: MERCHANT_A, id }))

  describe('create and get', () => {
    it('creates an empty session that expires in an hour by default', async () => {
      const s = setup()
      const session = await created(s)
      const expected: CheckoutSession = {
        type: 'checkout-session',
        id: uuidFor(1),
        expires_at: iso(HOUR),
        ...UNSET_SESSION_FIELDS,
        airline: null,
        payment_method: null,
      }
      expect(session).to.deep.equal(expected)
      expect(await read(s, session.id)).to.deep.equal(expected)
    })

    it('keeps what it is given, and expires_in seconds from now', async () => {
      const s = setup()
      const input = { amount: 1299, currency: 'USD', metadata: { order: 'o-1' }, buyer: { display_name: 'Ada' }, expires_in: 86_400 }
      const session = await created(s, input)
      expect(session).to.include({ amount: 1299, currency: 'USD', expires_at: iso(24 * HOUR) })
      expect(session.metadata).to.deep.equal({ order: 'o-1' })
      expect(session.buyer).to.deep.equal({ display_name: 'Ada' })
    })

    it('refuses a buyer with shipping details and airline data with a 400 naming each, and stores nothing', async () => {
      const s = setup()
      const input = { buyer: { display_name: 'Ada', shipping_details: { first_name: 'Ada' } }, airline: { pnr: 'X' } }
      expect(await left(s.create({ merchantAccountId: MERCHANT_A, actor: ACTOR, input }))).to.deep.equal(
        invalidRequest(notSupported('airline'), notSupported('buyer', 'shipping_details')),
      )
      // null is "not used": accepted
      expect(await created(s, { buyer: { shipping_details: null }, airline: null })).to.include({ id: uuidFor(1) })
    })

    it("is NotFound once expired, and for another account's or an unknown session", async () => {
      const s = setup()
      const session = await created(s)
      expect(await left(s.get({ merchantAccountId: MERCHANT_B, id: session.id }))).to.deep.equal(notFound('CheckoutSession', session.id))
      expect(await left(s.get({ merchantAccountId: MERCHANT_A, id: UNKNOWN }))).to.deep.equal(notFound('CheckoutSession', UNKNOWN))
      s.clock.advance(HOUR - 1)
      expect(await read(s, session.id)).to.deep.equal(session)
      s.clock.advance(1)
      expect(await left(s.get({ merchantAccountId: MERCHANT_A, id: session.id }))).to.deep.equal(notFound('CheckoutSession', session.id))
    })
  })

  describe('update', () => {
    it('merges: the fields given replace (null clears), the others stay; expires_in moves expires_at from now', async () => {
      const s = setup()
      const session = await created(s, {
        amount: 1000,
        currency: 'EUR',
        metadata: { a: '1' },
        cart_items: [{ name: 'Bag', quantity: 1, unit_amount: 1000 }],
      })
      s.clock.advance(10 * MINUTE)
      const merged = await right(
        s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: session.id, input: { metadata: { a: '2' }, currency: null } }),
      )
      expect(merged).to.deep.equal({ ...session, metadata: { a: '2' }, currency: null })
      const moved = await right(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: session.id, input: { expires_in: 7200 } }))
      expect(moved).to.deep.equal({ ...merged, expires_at: iso(10 * MINUTE + 2 * HOUR) })
      expect(await read(s, session.id)).to.deep.equal(moved)
    })

    it('refuses unsupported fields before reading, and is NotFound for a gone session', async () => {
      const s = setup()
      const session = await created(s)
      expect(await left(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: UNKNOWN, input: { airline: {} } }))).to.deep.equal(
        invalidRequest(notSupported('airline')),
      )
      expect(await left(s.update({ merchantAccountId: MERCHANT_B, actor: ACTOR, id: session.id, input: {} }))).to.deep.equal(
        notFound('CheckoutSession', session.id),
      )
      await right(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: session.id }))
      expect(await left(s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: session.id, input: { amount: 1 } }))).to.deep.equal(
        notFound('CheckoutSession', session.id),
      )
    })

    it('keeps the card and never moves expires_at past the 5 minutes card data has', async () => {
      const s = setup()
      const session = await created(s)
      await right(s.putFields({ id: session.id, input: card() }))
      const withCard = await read(s, session.id)
      const updated = await right(
        s.update({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: session.id, input: { amount: 5, expires_in: 3600 } }),
      )
      expect(updated).to.deep.equal({ ...withCard, amount: 5, expires_at: iso(5 * MINUTE) })
    })
  })

  describe('delete', () => {
    it('deletes the session with its card data; a second delete is NotFound', async () => {
      const s = setup()
      const session = await created(s)
      await right(s.putFields({ id: session.id, input: card() }))
      await right(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: session.id }))
      expect(await left(s.remove({ merchantAccountId: MERCHANT_A, actor: ACTOR, id: session.id }))).to.deep.equal(
        notFound('CheckoutSession', session.id),
      )
      expect(await right(s.sessions.takeCard(MERCHANT_A, session.id, s.clock.now()))).to.deep.equal(O.none)
      expect(await left(s.putFields({ id: session.id, input: card() }))).to.deep.equal(notFound('CheckoutSession', session.id))
    })

    it("is NotFound for another account's session, which stays", async () => {
      const s = setup()
      const session = await created(s)
      expect(await left(s.remove({ merchantAccountId: MERCHANT_B, actor: ACTOR, id: session.id }))).to.deep.equal(
        notFound('CheckoutSession', session.id),
      )
      expect(await read(s, session.id)).to.deep.equal(session)
    })
  })

  describe('put fields', () => {
    it('seals the card, shows only scheme, BIN, last 4 and fingerprint, and moves expires_at to 5 minutes from now', async () => {
      const s = setup()
      const session = await created(s, { expires_in: 7200 })
      s.clock.advance(MINUTE)
      await right(s.putFields({ id: session.id, input: card() }))
      const shown = await read(s, session.id)
      expect(shown).to.deep.equal({
        ...session,
        expires_at: iso(6 * MINUTE),
        payment_method: {
          type: 'payment-method',
          method: 'card',
          id: null,
          label: '1111',
          scheme: 'visa',
          fingerprint: testMac().mac('payment-card-fingerprint', VISA),
          details: { bin: '411111', card_type: null },
        },
      })
      expect(JSON.stringify(shown)).not.to.include(VISA).and.not.to.include('12/35')
      const taken = await right(s.sessions.takeCard(MERCHANT_A, session.id, s.clock.now()))
      if (O.isNone(taken) || taken.value.card === null) return expect.fail('the card was not on the session')
      expect(taken.value.card.sealed).not.to.include(VISA)
      expect(openSessionCard(s.box, taken.value.card)).to.deep.equal({ number: VISA, expiration_date: '12/35', security_code: '123' })
    })

    it('takes no account: the session id alone names the session', async () => {
      const s = setup()
      const theirs = await right(s.create({ merchantAccountId: MERCHANT_B, actor: ACTOR, input: {} }))
      await right(s.putFields({ id: theirs.id, input: card({ security_code: null }) }))
      const taken = await right(s.sessions.takeCard(MERCHANT_B, theirs.id, s.clock.now()))
      if (O.isNone(taken) || taken.value.card === null) return expect.fail('the card was not on the session')
      expect(openSessionCard(s.box, taken.value.card)).to.deep.equal({ number: VISA, expiration_date: '12/35', security_code: null })
    })

    it('gives one number the same fingerprint on every session, another number another', async () => {
      const s = setup()
      const fingerprintOf = async (number: string) => {
        const session = await created(s)
        await right(s.putFields({ id: session.id, input: card({ number }) }))
        return (await read(s, session.id)).payment_method?.fingerprint
      }
      const first = await fingerprintOf(VISA)
      expect(await fingerprintOf(VISA)).to.equal(first)
      expect(await fingerprintOf('4242424242424242'))
        .to.be.a('string')
        .and.not.equal(first)
    })

    it('replaces the card sent before, and moves expires_at again', async () => {
      const s = setup()
      const session = await created(s)
      await right(s.putFields({ id: session.id, input: card() }))
      s.clock.advance(4 * MINUTE)
      await right(s.putFields({ id: session.id, input: card({ number: '5555555555554444', expiration_date: '01/30' }) }))
      expect(await read(s, session.id)).to.deep.include({ expires_at: iso(9 * MINUTE) })
      expect((await read(s, session.id)).payment_method).to.deep.include({ label: '4444', scheme: 'mastercard' })
      s.clock.advance(5 * MINUTE)
      expect(await left(s.get({ merchantAccountId: MERCHANT_A, id: session.id }))).to.deep.equal(notFound('CheckoutSession', session.id))
    })

    it('refuses a card past its expiry month with a 400 on payment_method.expiration_date that quotes nothing of the card', async () => {
      const s = setup()
      const session = await created(s)
      // START is 2025-01-15: 12/24 ended last month, 01/25 is still good.
      const refused = await left(s.putFields({ id: session.id, input: card({ expiration_date: '12/24' }) }))
      expect(refused).to.deep.equal(
        invalidRequest(problem('input', ['payment_method', 'expiration_date'], 'the card has expired', 'expired_card')),
      )
      expect(JSON.stringify(refused)).not.to.include(VISA).and.not.to.include('12/24')
      expect(await read(s, session.id)).to.deep.equal(session)
      await right(s.putFields({ id: session.id, input: card({ expiration_date: '01/25' }) }))
    })

    it('refuses a stored payment method the account does not hold with a 400 on payment_method.id, leaving the session as it was', async () => {
      const s = setup()
      const session = await created(s)
      const input: CheckoutSessionFields = { payment_method: { method: 'id', id: 'pm-1', security_code: '123' } }
      expect(await left(s.putFields({ id: session.id, input }))).to.deep.equal(
        invalidRequest(
          problem('input', ['payment_method', 'id'], 'No stored payment method with this id can pay', 'unknown_payment_method'),
        ),
      )
      expect(await read(s, session.id)).to.deep.equal(session)
    })

    it('is NotFound for an unknown or expired session', async () => {
      const s = setup()
      const session = await created(s)
      expect(await left(s.putFields({ id: UNKNOWN, input: card() }))).to.deep.equal(notFound('CheckoutSession', UNKNOWN))
      s.clock.advance(HOUR)
      expect(await left(s.putFields({ id: session.id, input: card() }))).to.deep.equal(notFound('CheckoutSession', session.id))
    })
  })

  describe('sweep', () => {
    it('purges expired sessions, card data and all, and is idempotent', async () => {
      const s = setup()
      const short = await created(s)
      const long = await created(s, { expires_in: 7200 })
      await right(s.putFields({ id: short.id, input: card() }))
      expect(await right(s.sweep())).to.equal(0)
      s.clock.advance(5 * MINUTE)
      expect(await right(s.sweep())).to.equal(1)
      expect(await right(s.sweep())).to.equal(0)
      expect(await read(s, long.id)).to.deep.equal(long)
      s.clock.advance(2 * HOUR)
      expect(await right(s.sweep())).to.equal(1)
    })
  })
})
