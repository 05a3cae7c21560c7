import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { hmacValidator as HmacValidator } from '@adyen/api-library'
import { AuthorizeRequest, CardConnector, OperationResult, ProviderEvent } from '@orka/domain'
import { aPaymentServiceRecord, cardConnectorContract, right } from '@orka/domain/testing'
import { AdyenCardConnector } from '../src/connectors/adyen-card/connector'
import { AdyenDouble, LIMITED_ADYEN_KEY, REFUSED_ADYEN_KEY, startAdyenDouble } from '../src/testing/adyen-double'
import { SignedNotification } from '../src/testing/adyen-double-notifications'

const APPROVING = { number: '4111111111111111', expirationDate: '03/30', securityCode: '737' }
const TIMEOUT_MS = 1000

let started: Promise<AdyenDouble> | undefined
/** One double for this file's suites, started on first use. */
const theDouble = () => (started ??= startAdyenDouble())
after(async () => {
  if (started !== undefined) await (await started).close()
})
const serviceOf = (d: AdyenDouble) =>
  aPaymentServiceRecord({
    payment_service_definition_id: 'adyen-card',
    fields: [
      { key: 'api_key', value: d.apiKey },
      { key: 'merchant_account', value: d.merchantAccount },
      { key: 'hmac_key', value: d.hmacKey },
    ],
  })

cardConnectorContract('adyen-card (the Adyen double)', async () => {
  const d = await theDouble()
  return {
    port: new AdyenCardConnector({ baseUrl: d.url, timeoutMs: TIMEOUT_MS }),
    service: serviceOf(d),
    approvingCard: APPROVING,
    decliningCard: { number: '4000000000000002', expirationDate: '03/30', securityCode: '737' },
    timeoutMs: TIMEOUT_MS,
    unanswered: { amount: d.hangingAmount, card: APPROVING },
    teardown: () => Promise.resolve(),
  }
})

describe('adyen-card through the Adyen double: the lifecycle as Adyen runs it', function () {
  this.timeout(60_000)
  let d: AdyenDouble
  let c: CardConnector
  let service: ReturnType<typeof serviceOf>
  before(async () => {
    d = await theDouble()
    c = new AdyenCardConnector({ baseUrl: d.url, timeoutMs: 5000 })
    service = serviceOf(d)
  })
  after(() => {
    // Every request, answer and notification of this file validated against Adyen's documents.
    expect(d.violations).to.deep.equal([])
  })
  const authorize = (reference: string, o: Partial<AuthorizeRequest> = {}) =>
    right(
      c.authorize({ service, reference, amount: 5000, currency: 'EUR', capture: false, card: APPROVING, billingPostalCode: null, ...o }),
    )
  const held = async (reference: string, o: Partial<AuthorizeRequest> = {}) => {
    const r = await authorize(reference, o)
    return r._tag === 'Authorized' ? r : expect.fail(JSON.stringify(r))
  }
  const receivedId = (r: OperationResult) => (r._tag === 'Received' && r.serviceId !== null ? r.serviceId : expect.fail(JSON.stringify(r)))
  /** The notifications the double sent since `from`, for the payment or modification `psp`. */
  const about = (psp: string, from = 0) =>
    d
      .notifications()
      .slice(from)
      .filter((n) => n.pspReference === psp)
  const deliver = (n: SignedNotification | undefined): readonly ProviderEvent[] => {
    if (n === undefined) return expect.fail('no such notification')
    const r = c.readNotification(service.fields, { headers: { 'content-type': 'application/json' }, body: n.body }, new Date())
    return E.isRight(r) ? r.right.events : expect.fail(`refused: ${r.left.reason}`)
  }
  const brief = (events: readonly ProviderEvent[]) => events.map((e) => `${e.name} ${e.kind} ${e.outcome} ${String(e.errorCode)}`)

  it('checks for real: a body Adyen’s documents do not allow is a violation', () => {
    expect(d.document.response('/payments', 200, { resultCode: 'Approved' })).to.be.a('string')
    expect(d.document.request('/payments/{paymentPspReference}/refunds', { merchantAccount: 'M' })).to.be.a('string')
    expect(d.document.notification('CAPTURE', { live: false })).to.be.a('string')
  })

  it('signs its notifications as Adyen does: Adyen’s own library verifies every one', async () => {
    const auth = await held('tx-01:authorize')
    await right(
      c.void({ service, reference: 'tx-01:void', authorization: 'tx-01:authorize', serviceTransactionId: auth.serviceTransactionId }),
    )
    const adyen = new HmacValidator()
    const sent = d.notifications()
    expect(sent.map((n) => n.eventCode)).to.include.members(['AUTHORISATION', 'CANCELLATION'])
    for (const n of sent) {
      const item = (
        JSON.parse(n.body) as { notificationItems: { NotificationRequestItem: Parameters<HmacValidator['validateHMAC']>[0] }[] }
      ).notificationItems[0]!.NotificationRequestItem
      expect(adyen.validateHMAC(item, d.hmacKey), n.eventCode).to.equal(true)
    }
  })

  it('holds, captures in part, refunds twice in part, and tells of each by a notification, one refund refused', async () => {
    const from = d.notifications().length
    const auth = await held('tx-10:authorize')
    expect(auth).to.deep.include({ captured: false, cvv: 'match', avs: null, cardType: 'credit', rawResponseCode: 'Authorised' })
    expect(auth.authCode).to.match(/^\d{6}$/)
    const money = { service, authorization: 'tx-10:authorize', serviceTransactionId: auth.serviceTransactionId, currency: 'EUR' }
    const capture = receivedId(await right(c.capture({ ...money, reference: 'tx-10:capture', amount: 3000 })))
    const refund1 = receivedId(await right(c.refund({ ...money, reference: 'tx-10:refund-1', amount: 1000 })))
    const refund2 = receivedId(await right(c.refund({ ...money, reference: 'tx-10:refund-2', amount: 2000 })))
    const refund3 = receivedId(await right(c.refund({ ...money, reference: 'tx-10:refund-3', amount: 1 })))
    expect(new Set([capture, refund1, refund2, refund3]).size).to.equal(4)
    expect(brief(deliver(about(auth.serviceTransactionId, from)[0]))).to.deep.equal(['AUTHORISATION authorization succeeded null'])
    const captured = deliver(about(capture, from)[0])
    expect(captured).to.deep.equal([
      {
        id: `CAPTURE:${capture}:true`,
        name: 'CAPTURE',
        kind: 'capture',
        reference: 'tx-10:capture',
        serviceTransactionId: auth.serviceTransactionId,
        serviceId: capture,
        outcome: 'succeeded',
        errorCode: null,
        rawResponseCode: 'CAPTURE',
        rawResponseDescription: null,
      },
    ])
    expect([refund1, refund2, refund3].map((id) => brief(deliver(about(id, from)[0]))[0])).to.deep.equal([
      'REFUND refund succeeded null',
      'REFUND refund succeeded null',
      'REFUND refund failed refused_transaction',
    ])
  })

  it('releases the rest of a partial capture, so a second capture is refused when its notification comes', async () => {
    const from = d.notifications().length
    const auth = await held('tx-11:authorize')
    const money = { service, authorization: 'tx-11:authorize', serviceTransactionId: auth.serviceTransactionId, currency: 'EUR' }
    receivedId(await right(c.capture({ ...money, reference: 'tx-11:capture-1', amount: 1000 })))
    const second = receivedId(await right(c.capture({ ...money, reference: 'tx-11:capture-2', amount: 1000 })))
    expect(brief(deliver(about(second, from)[0]))).to.deep.equal(['CAPTURE capture failed refused_transaction'])
  })

  it('delivered twice, out of order or late, each notification reads as the same event', async () => {
    const from = d.notifications().length
    const auth = await held('tx-12:authorize')
    const money = { service, authorization: 'tx-12:authorize', serviceTransactionId: auth.serviceTransactionId, currency: 'EUR' }
    const capture = receivedId(await right(c.capture({ ...money, reference: 'tx-12:capture', amount: 5000 })))
    const refund = receivedId(await right(c.refund({ ...money, reference: 'tx-12:refund', amount: 5000 })))
    const [authorised, captured, refunded] = [auth.serviceTransactionId, capture, refund].map((id) => about(id, from)[0])
    // The refund's first, the authorisation's last, the capture's twice, and once more later.
    const events = [refunded, captured, captured, authorised].map((n) => deliver(n)[0]?.id)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(deliver(captured)[0]?.id).to.equal(events[1])
    expect(events).to.deep.equal([
      `REFUND:${refund}:true`,
      `CAPTURE:${capture}:true`,
      `CAPTURE:${capture}:true`,
      `AUTHORISATION:${auth.serviceTransactionId}:true`,
    ])
  })

  it('declines by its test cards with Orka’s codes, Adyen’s kept; an error and a 3D Secure challenge are failures', async () => {
    const card = (number: string) => ({ ...APPROVING, number })
    const outcomes = []
    for (const [i, n] of [
      '4000000000009995',
      '4000000000000069',
      '4000000000000127',
      '4100000000000019',
      '4000000000000119',
      '4000000000003220',
    ].entries()) {
      const r = await authorize(`tx-2${String(i)}:authorize`, { card: card(n) })
      outcomes.push([r._tag, r._tag === 'Authorized' ? null : r.errorCode, r.rawResponseCode, r.rawResponseDescription])
    }
    expect(outcomes).to.deep.equal([
      ['Declined', 'insufficient_funds', '12', 'Not enough balance'],
      ['Declined', 'expired_payment_method', '6', 'Expired Card'],
      ['Declined', 'incorrect_cvv', '24', 'CVC Declined'],
      ['Declined', 'suspected_fraud', '20', 'FRAUD'],
      ['Failed', 'service_error', '4', 'Acquirer Error'],
      ['Failed', 'requires_buyer_authentication', 'IdentifyShopper', null],
    ])
    expect(await authorize('tx-26:authorize', { card: card('4000000000000127') })).to.deep.include({ cvv: 'no_match' })
    expect(await authorize('tx-27:authorize', { card: card('4111111111111112') })).to.deep.include({
      _tag: 'Failed',
      errorCode: 'invalid_payment_method',
      rawResponseCode: '101',
    })
  })

  it('tells the card’s funding, and captures at once when the intent does', async () => {
    expect(await held('tx-30:authorize', { capture: true, card: { ...APPROVING, number: '4000056655665556' } })).to.deep.include({
      captured: true,
      cardType: 'debit',
    })
    expect(await held('tx-31:authorize', { card: { ...APPROVING, number: '4000000000000051', securityCode: null } })).to.deep.include({
      cardType: 'prepaid',
      cvv: 'not_provided',
    })
  })

  it('voids what it holds; a lost authorization is cancelled by Orka’s reference (Adyen’s technical cancel)', async () => {
    const from = d.notifications().length
    const auth = await held('tx-40:authorize')
    const cancel = receivedId(
      await right(
        c.void({ service, reference: 'tx-40:void', authorization: 'tx-40:authorize', serviceTransactionId: auth.serviceTransactionId }),
      ),
    )
    expect(brief(deliver(about(cancel, from)[0]))).to.deep.equal(['CANCELLATION void succeeded null'])

    const quick = new AdyenCardConnector({ baseUrl: d.url, timeoutMs: 300 })
    const lost = {
      service,
      reference: 'tx-41:authorize',
      amount: d.hangingAmount,
      currency: 'EUR',
      capture: false,
      card: APPROVING,
      billingPostalCode: null,
    }
    expect(await quick.authorize(lost)()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
    const technical = receivedId(
      await right(c.void({ service, reference: 'tx-41:authorize:void', authorization: 'tx-41:authorize', serviceTransactionId: null })),
    )
    expect(d.requests.at(-1)).to.equal('POST /cancels')
    const [event] = deliver(about(technical, from)[0])
    // The payment the lost call made, found by Orka's reference, is the one released.
    const made = d
      .notifications()
      .slice(from)
      .find((n) => n.eventCode === 'AUTHORISATION' && n.body.includes('"tx-41:authorize"'))
    expect(event).to.deep.include({
      name: 'TECHNICAL_CANCEL',
      kind: 'void',
      outcome: 'succeeded',
      reference: 'tx-41:authorize',
      serviceTransactionId: made?.pspReference,
      serviceId: technical,
    })
    // A repeat of the lost call gets the answer it lost: the payment it made, now cancelled.
    expect(await held('tx-41:authorize', { amount: d.hangingAmount })).to.deep.include({ serviceTransactionId: made?.pspReference })
  })

  it('answers a repeated call as the first, and runs it once: one notification', async () => {
    const auth = await held('tx-50:authorize')
    const money = {
      service,
      authorization: 'tx-50:authorize',
      serviceTransactionId: auth.serviceTransactionId,
      currency: 'EUR',
      amount: 100,
    }
    const from = d.notifications().length
    const first = await right(c.refund({ ...money, reference: 'tx-50:refund' }))
    expect(await right(c.refund({ ...money, reference: 'tx-50:refund' }))).to.deep.equal(first)
    expect(await held('tx-50:authorize')).to.deep.equal(auth)
    expect(d.notifications().length - from).to.equal(1)
  })

  it('verifies the key and the merchant account, naming the field Adyen refuses, never its value', async () => {
    const fields = (key: string, account = d.merchantAccount) => [
      { key: 'api_key', value: key },
      { key: 'merchant_account', value: account },
    ]
    expect(await c.verify(fields(d.apiKey))()).to.deep.equal(E.right(undefined))
    const refused = [
      await c.verify(fields(REFUSED_ADYEN_KEY))(),
      await c.verify(fields(LIMITED_ADYEN_KEY))(),
      await c.verify(fields(d.apiKey, 'SomeoneElse'))(),
    ]
    expect(refused).to.deep.equal([
      E.left({ _tag: 'CredentialsRefused', field: 'api_key', reason: 'Adyen refused the API key' }),
      E.left({ _tag: 'CredentialsRefused', field: 'api_key', reason: 'The API key may not make payments' }),
      E.left({ _tag: 'CredentialsRefused', field: 'merchant_account', reason: 'Adyen does not let the key use this merchant account' }),
    ])
    expect(JSON.stringify(refused)).to.not.include(REFUSED_ADYEN_KEY)
  })

  it('holds at most its connection limit in flight: a call past it waits, and gives up unsent when none comes free', async () => {
    const one = new AdyenCardConnector({ baseUrl: d.url, timeoutMs: 500, maxConnections: 1 })
    const request = (reference: string, amount: number) =>
      one.authorize({ service, reference, amount, currency: 'EUR', capture: false, card: APPROVING, billingPostalCode: null })()
    const before = d.requests.length
    const [hung, waited] = await Promise.all([request('tx-70:authorize', d.hangingAmount), request('tx-71:authorize', 5000)])
    expect([hung, waited]).to.deep.equal([
      E.left({ _tag: 'ServiceTimeout', service: 'card' }),
      E.left({ _tag: 'ServiceTimeout', service: 'card' }),
    ])
    // The hung payment took the one connection: the other authorization never left.
    expect(d.requests.slice(before)).to.deep.equal(['POST /payments'])
    const free = await request('tx-72:authorize', 5000)
    expect(E.isRight(free) && free.right._tag).to.equal('Authorized')
  })

  it('refuses a notification signed with another key, or changed on the way', async () => {
    const auth = await held('tx-60:authorize')
    const n = about(auth.serviceTransactionId)[0]!
    const other = d.sign(
      {
        eventCode: 'CAPTURE',
        pspReference: 'P',
        merchantAccountCode: d.merchantAccount,
        amount: { value: 1, currency: 'EUR' },
        success: true,
      },
      'AB'.repeat(32),
    )
    for (const body of [other.body, n.body.replace('"success":"true"', '"success":"false"')])
      expect(c.readNotification(service.fields, { headers: {}, body }, new Date())).to.deep.equal(
        E.left({ _tag: 'WebhookRefused', reason: 'signature' }),
      )
  })
})
