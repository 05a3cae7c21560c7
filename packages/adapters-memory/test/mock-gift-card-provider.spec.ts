import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { ActivationRequest, BalanceRequest, cardDeclined, serviceFailed, serviceTimeout } from '@orka/domain'
import { aGiftCardService, giftCardConnectorContract, ManualClock } from '@orka/domain/testing'
import { HmacMac, MockGiftCardConnector } from '@orka/adapters-node'
import { MemoryGiftCardLedger } from '../src'

/** The mock provider's state: its balances, on the embedded store, keyed by a MAC of the number. */
const provider = () => ({ ledger: new MemoryGiftCardLedger(), mac: new HmacMac(randomBytes(32)) })

const request = (number: string): ActivationRequest => ({
  service: aGiftCardService(),
  number,
  pin: '73915286',
  amount: 5000,
  currency: 'EUR',
  externalIdentifier: 'order-1042',
  idempotencyKey: null,
})

describe('MockGiftCardConnector', () => {
  const clock = new ManualClock(new Date('2025-01-15T10:00:00.000Z'))
  const connector = (o: { timeoutMs?: number; slowMs?: number } = {}) => new MockGiftCardConnector({ clock, ...provider(), ...o })

  it('activates any other number, expiring three years from now', async () => {
    expect(await connector().activate(request('6036280000001234'))()).to.deep.equal(E.right({ expirationDate: '2028-01-15T10:00:00.000Z' }))
  })

  it('takes the expiration date from the clock', async () => {
    const c = new ManualClock(new Date('2024-06-30T23:59:59.999Z'))
    expect(await new MockGiftCardConnector({ clock: c, ...provider() }).activate(request('6036280000001234'))()).to.deep.equal(
      E.right({ expirationDate: '2027-06-30T23:59:59.999Z' }),
    )
  })

  it('declines a number ending 0002', async () => {
    expect(await connector().activate(request('6036280000000002'))()).to.deep.equal(E.left(cardDeclined('The gift card was declined')))
  })

  it('fails as a provider for a number ending 0502', async () => {
    expect(await connector().activate(request('6036280000000502'))()).to.deep.equal(
      E.left(serviceFailed('The gift card service could not process the activation', 'gift-card')),
    )
  })

  it('times out on a number ending 0504, after the timeout and not before', async () => {
    const started = Date.now()
    expect(await connector({ timeoutMs: 60 }).activate(request('6036280000000504'))()).to.deep.equal(E.left(serviceTimeout('gift-card')))
    expect(Date.now() - started).to.be.within(55, 1000)
  })

  it('answers a number ending 0009 slowly, within the timeout', async () => {
    const started = Date.now()
    const result = await connector({ slowMs: 80, timeoutMs: 1000 }).activate(request('6036280000000009'))()
    expect(result).to.deep.equal(E.right({ expirationDate: '2028-01-15T10:00:00.000Z' }))
    expect(Date.now() - started).to.be.within(75, 1000)
  })

  it('times out a slow answer that takes longer than the timeout', async () => {
    const started = Date.now()
    expect(await connector({ slowMs: 5000, timeoutMs: 50 }).activate(request('6036280000000009'))()).to.deep.equal(
      E.left(serviceTimeout('gift-card')),
    )
    expect(Date.now() - started).to.be.below(1000)
  })

  it('answers immediately when nothing is slow', async () => {
    const started = Date.now()
    await connector().activate(request('6036280000001234'))()
    expect(Date.now() - started).to.be.below(50)
  })

  it('leaves no timer behind once it has answered', async () => {
    const active = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    // Mocha arms its own timer once the test's promise exists: count from after that.
    await new Promise((r) => setImmediate(r))
    const before = active()
    await connector({ timeoutMs: 60_000 }).activate(request('6036280000001234'))()
    await connector({ timeoutMs: 60_000 }).activate(request('6036280000000002'))()
    // Timed out: the slow answer's own timer must go too, or the process would linger.
    await connector({ timeoutMs: 20, slowMs: 60_000 }).activate(request('6036280000000009'))()
    await connector({ timeoutMs: 20 }).activate(request('6036280000000504'))()
    expect(active()).to.equal(before)
  })
})

describe('MockGiftCardConnector balances', () => {
  const clock = new ManualClock(new Date('2025-01-15T10:00:00.000Z'))
  const connector = (o: { timeoutMs?: number } = {}) => new MockGiftCardConnector({ clock, ...provider(), ...o })
  const check = (number: string): BalanceRequest => ({ service: aGiftCardService(), number, pin: '73915286' })

  it('answers 10000 USD expiring three years from now for any other number', async () => {
    expect(await connector().balance(check('6036280000001234'))()).to.deep.equal(
      E.right({ _tag: 'Balance', balance: 10000, currency: 'USD', expirationDate: '2028-01-15T10:00:00.000Z' }),
    )
  })

  it('answers a balance of 0 for a number ending 0004', async () => {
    expect(await connector().balance(check('6036280000000004'))()).to.deep.equal(
      E.right({ _tag: 'Balance', balance: 0, currency: 'USD', expirationDate: '2028-01-15T10:00:00.000Z' }),
    )
  })

  it('refuses a number ending 0002 as invalid_gift_card and one ending 0003 as expired_card', async () => {
    expect(await connector().balance(check('6036280000000002'))()).to.deep.equal(
      E.right({ _tag: 'Refused', errorCode: 'invalid_gift_card' }),
    )
    expect(await connector().balance(check('6036280000000003'))()).to.deep.equal(E.right({ _tag: 'Refused', errorCode: 'expired_card' }))
  })

  it('fails as a provider for a number ending 0502', async () => {
    expect(await connector().balance(check('6036280000000502'))()).to.deep.equal(
      E.left(serviceFailed('The gift card service could not check the balance', 'gift-card')),
    )
  })

  it('times out on a number ending 0504, after the timeout and not before', async () => {
    const started = Date.now()
    expect(await connector({ timeoutMs: 60 }).balance(check('6036280000000504'))()).to.deep.equal(E.left(serviceTimeout('gift-card')))
    expect(Date.now() - started).to.be.within(55, 1000)
  })
})

describe('MockGiftCardConnector idempotency keys', () => {
  const setup = () => {
    const clock = new ManualClock(new Date('2025-01-15T10:00:00.000Z'))
    return { clock, connector: new MockGiftCardConnector({ clock, ...provider() }) }
  }
  const keyed = (o: Partial<ActivationRequest> = {}): ActivationRequest => ({ ...request('6036280000001234'), idempotencyKey: 'k-1', ...o })
  const expiring = (iso: string) => E.right({ expirationDate: iso })

  it('answers a key it activated under with that answer for 24 hours, then activates anew', async () => {
    const { clock, connector } = setup()
    const req = keyed()
    expect(await connector.activate(req)()).to.deep.equal(expiring('2028-01-15T10:00:00.000Z'))
    clock.advance(86_399_999)
    expect(await connector.activate(req)()).to.deep.equal(expiring('2028-01-15T10:00:00.000Z'))
    clock.advance(1)
    expect(await connector.activate(req)()).to.deep.equal(expiring('2028-01-16T10:00:00.000Z'))
    expect(connector.activations).to.equal(2)
  })

  it('keeps keys of different services and numbers apart, and remembers nothing without a key', async () => {
    const { clock, connector } = setup()
    const service = aGiftCardService()
    await connector.activate(keyed({ service }))()
    clock.advance(60_000)
    const later = expiring('2028-01-15T10:01:00.000Z')
    expect(await connector.activate(keyed())()).to.deep.equal(later)
    expect(await connector.activate(keyed({ service, number: '6036280000005678' }))()).to.deep.equal(later)
    expect(await connector.activate(keyed({ service, idempotencyKey: null }))()).to.deep.equal(later)
    expect(connector.activations).to.equal(4)
  })

  it('remembers only activations: a declined card is asked again', async () => {
    const { connector } = setup()
    const req = keyed({ number: '6036280000000002' })
    expect(await connector.activate(req)()).to.deep.equal(E.left(cardDeclined('The gift card was declined')))
    expect(await connector.activate(req)()).to.deep.equal(E.left(cardDeclined('The gift card was declined')))
    expect(connector.activations).to.equal(0)
  })
})

describe('MockGiftCardConnector: giving back', () => {
  const connector = () => new MockGiftCardConnector({ clock: new ManualClock(new Date('2025-01-15T10:00:00.000Z')), ...provider() })
  const service = aGiftCardService()
  const card = (number: string) => ({ service, number, pin: '73915286', currency: 'USD' })
  const balance = async (c: MockGiftCardConnector, number: string) => {
    const b = await c.balance(card(number))()
    return E.isRight(b) && b.right._tag === 'Balance' ? b.right.balance : null
  }

  it('reverses what a redemption took, never more, however often it is asked', async () => {
    const c = connector()
    await c.redeem({ ...card('6036280000001234'), amount: 3000, reference: 'r1' })()
    const reverse = { ...card('6036280000001234'), amount: 5000, reference: 'r1:reverse', redemption: 'r1' }
    expect(await c.reverse(reverse)()).to.deep.equal(E.right({ balance: 10_000 }))
    expect(await c.reverse(reverse)()).to.deep.equal(E.right({ balance: 10_000 }))
    expect(await balance(c, '6036280000001234')).to.equal(10_000)
  })

  it('gives nothing back for a redemption it never took, and takes nothing for that redemption if it arrives after', async () => {
    const c = connector()
    const reverse = { ...card('6036280000001234'), amount: 3000, reference: 'r1:reverse', redemption: 'r1' }
    expect(await c.reverse(reverse)()).to.deep.equal(E.right({ balance: 10_000 }))
    expect(await c.redeem({ ...card('6036280000001234'), amount: 3000, reference: 'r1' })()).to.deep.equal(
      E.right({ _tag: 'Refused', errorCode: 'operation_canceled' }),
    )
    expect(await balance(c, '6036280000001234')).to.equal(10_000)
  })

  it('answers reversals and refunds for the numbers that fail or hang on the way in (0502, 0504)', async () => {
    const c = connector()
    for (const number of ['6036280000000502', '6036280000000504']) {
      const back = { ...card(number), amount: 100, reference: `${number}:reverse`, redemption: number }
      expect(await c.reverse(back)()).to.deep.equal(E.right({ balance: 10_000 }))
    }
  })
})

giftCardConnectorContract('mock-gift-card', () => {
  const clock = new ManualClock(new Date('2025-01-15T10:00:00.000Z'))
  const timeoutMs = 100
  const connector = new MockGiftCardConnector({ clock, timeoutMs, ...provider() })
  return Promise.resolve({
    port: connector,
    // The mock's test numbers (docs/payments.md, "The mock gift card service: test numbers").
    activates: { number: '6036280000001234', pin: '73915286' },
    declines: { number: '6036280000000002', pin: '73915286' },
    hangs: { number: '6036280000000504', pin: '73915286' },
    timeoutMs,
    elapse: (ms: number) => {
      clock.advance(ms)
    },
    activations: () => connector.activations,
    teardown: () => Promise.resolve(),
  })
})
