import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { AuthorizeRequest, AuthorizeResult, OperationResult, PaymentServiceRecord } from '@orka/domain'
import { aPaymentServiceRecord, right } from '@orka/domain/testing'
import { MockCardConnector, SLOW_AMOUNT, UNANSWERED_AMOUNT } from '../src'

const VISA = '4111111111111111'
const service = aPaymentServiceRecord()
const withMode = (mode: string): PaymentServiceRecord => ({ ...service, fields: [{ key: 'mode', value: mode }] })
const authorization = (o: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  service,
  reference: 'tx-1:authorize',
  amount: 1299,
  currency: 'USD',
  capture: false,
  card: { number: VISA, expirationDate: '12/35', securityCode: '123' },
  billingPostalCode: null,
  ...o,
})
const money = (o: { amount?: number; service?: PaymentServiceRecord } = {}) => ({
  service: o.service ?? service,
  reference: 'tx-1:step',
  authorization: 'tx-1:authorize',
  serviceTransactionId: 'mock-authorization-id',
  amount: o.amount ?? 1299,
  currency: 'USD',
})

const connector = (o: { timeoutMs?: number; slowMs?: number } = {}) => new MockCardConnector(o)
const authorize = (req: AuthorizeRequest, c = connector()) => right(c.authorize(req))
const outcome = async (req: AuthorizeRequest) => {
  const r: AuthorizeResult = await authorize(req)
  return r._tag === 'Authorized' ? 'Authorized' : `${r._tag} ${r.errorCode}`
}
const tagOf = (r: OperationResult) => (r._tag === 'Succeeded' || r._tag === 'Received' ? r._tag : `${r._tag} ${r.errorCode}`)
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

describe('MockCardConnector simulator', () => {
  it('declines amounts 200001-200022 with their error codes', async () => {
    const codes = [
      'canceled_payment_method',
      'disputed_transaction',
      'duplicate_transaction',
      'expired_authorization',
      'expired_payment_method',
      'incorrect_billing_address',
      'incorrect_country',
      'incorrect_currency',
      'incorrect_cvv',
      'incorrect_expiry_date',
      'insufficient_funds',
      'issuer_decline',
      'other_decline',
      'requires_buyer_authentication',
      'refused_transaction',
      'service_decline',
      'suspected_fraud',
      'unavailable_payment_method',
      'unknown_payment_method',
      'unsupported_transaction',
      'unsupported_payment_method',
      'cancelled_buyer_approval',
    ]
    for (const [i, code] of codes.entries()) expect(await outcome(authorization({ amount: 200001 + i }))).to.equal(`Declined ${code}`)
  })

  it('fails on amounts 300001-300015 with their service errors', async () => {
    const codes = [
      'insufficient_service_permissions',
      'invalid_amount',
      'invalid_payment_method',
      'invalid_service_configuration',
      'invalid_service_credentials',
      'invalid_service_response',
      'invalid_tax_identifier',
      'missing_billing_address',
      'missing_cvv',
      'missing_shipping_address',
      ...Array<string>(5).fill('service_error'),
    ]
    for (const [i, code] of codes.entries()) expect(await outcome(authorization({ amount: 300001 + i }))).to.equal(`Failed ${code}`)
  })

  it('fails on amounts 400000-400099 with internal_error', async () => {
    for (const amount of range(400_000, 400_099)) expect(await outcome(authorization({ amount }))).to.equal('Failed internal_error')
  })

  it('approves every amount next to the table', async () => {
    for (const amount of [0, 1, 1299, 200_000, 200_023, 300_000, 300_016, 300_997, 301_000, 399_999, 400_100, 99_999_999])
      expect(await outcome(authorization({ amount })), String(amount)).to.equal('Authorized')
  })

  it('approves 4111111111111111, 4242424242424242 and any other number; declines the two test numbers', async () => {
    const card = (number: string) => ({ number, expirationDate: '12/35', securityCode: '123' })
    expect(await outcome(authorization({ card: card(VISA) }))).to.equal('Authorized')
    expect(await outcome(authorization({ card: card('4242424242424242') }))).to.equal('Authorized')
    expect(await outcome(authorization({ card: card('5555555555554444') }))).to.equal('Authorized')
    expect(await outcome(authorization({ card: card('4000000000000002') }))).to.equal('Declined issuer_decline')
    expect(await outcome(authorization({ card: card('4000000000009995') }))).to.equal('Declined insufficient_funds')
  })

  it('goes by the amount first: a failing amount fails a declining card, a declining amount its own way', async () => {
    const declining = { number: '4000000000009995', expirationDate: '12/35', securityCode: '123' }
    expect(await outcome(authorization({ amount: 300_004, card: declining }))).to.equal('Failed invalid_service_configuration')
    expect(await outcome(authorization({ amount: 200_017, card: declining }))).to.equal('Declined suspected_fraud')
  })

  it('answers the AVS code by what the billing postal code contains', async () => {
    const avs = async (billingPostalCode: string | null) => {
      const r = await authorize(authorization({ billingPostalCode }))
      return r._tag === 'Failed' ? undefined : r.avs
    }
    expect(await avs('94110')).to.equal('match')
    expect(await avs('SW1A 1AA')).to.equal('match')
    expect(await avs('10077')).to.equal('no_match')
    expect(await avs('88001')).to.equal('partial_match_postcode')
    expect(await avs('A99 9ZZ')).to.equal('partial_match_address')
    expect(await avs(null)).to.equal(null)
  })

  it('answers the CVV code by the security code', async () => {
    const cvv = async (securityCode: string | null) => {
      const r = await authorize(authorization({ card: { number: VISA, expirationDate: '12/35', securityCode } }))
      return r._tag === 'Failed' ? undefined : r.cvv
    }
    expect(await cvv('123')).to.equal('match')
    expect(await cvv('222')).to.equal('not_provided')
    expect(await cvv('333')).to.equal('no_match')
    expect(await cvv(null)).to.equal('not_provided')
  })

  it('reports AVS and CVV on a decline too; a mismatch alone still authorizes', async () => {
    const r = await authorize(
      authorization({ amount: 200_011, billingPostalCode: '77001', card: { number: VISA, expirationDate: '12/35', securityCode: '333' } }),
    )
    expect(r).to.include({ _tag: 'Declined', errorCode: 'insufficient_funds', avs: 'no_match', cvv: 'no_match' })
    const held = await authorize(
      authorization({ billingPostalCode: '77001', card: { number: VISA, expirationDate: '12/35', securityCode: '333' } }),
    )
    expect(held).to.include({ _tag: 'Authorized', avs: 'no_match', cvv: 'no_match' })
  })

  it('answers an authorization in full, its ids derived from the service and the reference', async () => {
    const held = await authorize(authorization({ capture: true }))
    expect(held).to.deep.include({
      _tag: 'Authorized',
      captured: true,
      avs: null,
      cvv: 'match',
      cardType: null,
      rawResponseCode: '00',
      rawResponseDescription: 'Approved',
    })
    expect(AuthorizeResult.is(held)).to.equal(true)
    if (held._tag !== 'Authorized') return
    expect(held.authCode).to.match(/^\d{6}$/)
    const again = await authorize(authorization({ capture: true }), connector())
    expect(again).to.deep.equal(held)
    const elsewhere = await authorize(authorization({ service: aPaymentServiceRecord() }))
    expect(elsewhere._tag === 'Authorized' && elsewhere.serviceTransactionId).to.not.equal(held.serviceTransactionId)
  })

  it('captures and refunds by the same amount table; voids whatever the amount', async () => {
    const c = connector()
    for (const [amount, expected] of [
      [1299, 'Succeeded'],
      [200_011, 'Declined insufficient_funds'],
      [300_006, 'Failed invalid_service_response'],
      [400_050, 'Failed internal_error'],
    ] as const) {
      expect(tagOf(await right(c.capture(money({ amount })))), `capture ${amount}`).to.equal(expected)
      expect(tagOf(await right(c.refund(money({ amount })))), `refund ${amount}`).to.equal(expected)
    }
    expect(
      await right(c.void({ service, reference: 'tx-1:void', authorization: 'tx-1:authorize', serviceTransactionId: null })),
    ).to.deep.include({
      _tag: 'Succeeded',
      rawResponseCode: '00',
    })
  })

  it('gives a capture, a refund and a void ids of their own', async () => {
    const c = connector()
    const ids = [
      await right(c.capture(money())),
      await right(c.refund(money())),
      await right(c.void({ service, reference: 'tx-1:step', authorization: 'tx-1:authorize', serviceTransactionId: null })),
    ].map((r) => (r._tag === 'Succeeded' ? r.serviceId : null))
    expect(new Set(ids).size).to.equal(3)
    expect(ids).to.not.include(null)
  })
})

describe('MockCardConnector timing', () => {
  it(`never answers amount ${UNANSWERED_AMOUNT}: ServiceTimeout at its timeout, for an authorization, a capture and a refund`, async () => {
    const c = connector({ timeoutMs: 60 })
    for (const call of [
      () => c.authorize(authorization({ amount: UNANSWERED_AMOUNT })),
      () => c.capture(money({ amount: UNANSWERED_AMOUNT })),
      () => c.refund(money({ amount: UNANSWERED_AMOUNT })),
    ]) {
      const started = Date.now()
      expect(await call()()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
      expect(Date.now() - started).to.be.within(55, 1000)
    }
  })

  it(`answers amount ${SLOW_AMOUNT} after slowMs, approved, or times out first`, async () => {
    const started = Date.now()
    const r = await authorize(authorization({ amount: SLOW_AMOUNT }), connector({ slowMs: 80 }))
    expect(r._tag).to.equal('Authorized')
    expect(Date.now() - started).to.be.within(75, 1000)
    expect(await connector({ slowMs: 5000, timeoutMs: 50 }).authorize(authorization({ amount: SLOW_AMOUNT }))()).to.deep.equal(
      E.left({ _tag: 'ServiceTimeout', service: 'card' }),
    )
  })

  it('leaves no timer behind once it has answered', async () => {
    const active = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length
    await new Promise((r) => setImmediate(r))
    const before = active()
    await connector({ timeoutMs: 60_000 }).authorize(authorization())()
    await connector({ timeoutMs: 60_000 }).capture(money({ amount: 200_001 }))()
    await connector({ timeoutMs: 20, slowMs: 60_000 }).authorize(authorization({ amount: SLOW_AMOUNT }))()
    await connector({ timeoutMs: 20 }).refund(money({ amount: UNANSWERED_AMOUNT }))()
    expect(active()).to.equal(before)
  })
})

describe('MockCardConnector modes (the service field `mode`)', () => {
  it('down: every call fails with a service error, voids included', async () => {
    const down = withMode('down')
    const c = connector()
    const failed = { _tag: 'Failed', errorCode: 'service_error', rawResponseCode: 'down', rawResponseDescription: 'The service is down' }
    expect(await right(c.authorize(authorization({ service: down })))).to.deep.equal(failed)
    expect(await right(c.capture(money({ service: down })))).to.deep.equal(failed)
    expect(await right(c.refund(money({ service: down })))).to.deep.equal(failed)
    expect(
      await right(c.void({ service: down, reference: 'tx-1:void', authorization: 'tx-1:authorize', serviceTransactionId: null })),
    ).to.deep.equal(failed)
  })

  it('timeout: no authorization, capture or refund is answered, but a void is', async () => {
    const slow = withMode('timeout')
    const c = connector({ timeoutMs: 40 })
    expect(await c.authorize(authorization({ service: slow }))()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
    expect(await c.capture(money({ service: slow }))()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
    expect(await c.refund(money({ service: slow }))()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
    expect(
      (await right(c.void({ service: slow, reference: 'tx-1:void', authorization: 'tx-1:authorize', serviceTransactionId: null })))._tag,
    ).to.equal('Succeeded')
  })

  it('any other mode is normal', async () => {
    expect(await outcome(authorization({ service: withMode('up') }))).to.equal('Authorized')
  })
})
