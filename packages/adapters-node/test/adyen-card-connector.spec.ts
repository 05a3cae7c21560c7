import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import { AddressInfo } from 'node:net'
import { AuthorizeRequest, AuthorizeResult } from '@orka/domain'
import { aPaymentServiceRecord, right } from '@orka/domain/testing'
import { callAdyen } from '../src/connectors/adyen-card/client'
import { AdyenCardConnector } from '../src/connectors/adyen-card/connector'
import { ADYEN_TEST_URL, adyenBaseUrl } from '../src/connectors/adyen-card/definition'
import { captureCall, cancelCall, idempotencyKeyOf, paymentCall, refundCall } from '../src/connectors/adyen-card/requests'
import { authorizeResultOf, operationResultOf } from '../src/connectors/adyen-card/responses'
import { MAX_ANSWER_BYTES } from '../src/connectors/provider-http'
import { adyenCheckoutDocument, loadAdyenDocument } from '../src/testing/adyen-document'
import { Prism, startPrism } from '../src/testing/prism'

const API_KEY = 'AQEyhmfxK4_orka_test_key'
const fields = [
  { key: 'api_key', value: API_KEY },
  { key: 'merchant_account', value: 'OrkaECOM' },
]
const service = aPaymentServiceRecord({ payment_service_definition_id: 'adyen-card', fields })
const CARD = { number: '4111111111111111', expirationDate: '03/30', securityCode: '737' }
const authorization = (o: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  service,
  reference: 'tx-1:authorize',
  amount: 1299,
  currency: 'eur',
  capture: false,
  card: CARD,
  billingPostalCode: '1011',
  ...o,
})
const money = { service, authorization: 'tx-1:authorize', serviceTransactionId: '993617895204576J', amount: 500, currency: 'EUR' }

/** Adyen's own example bodies, from its document. */
const examples = (
  JSON.parse(readFileSync(adyenCheckoutDocument(), 'utf8')) as { components: { examples: Record<string, { value: unknown }> } }
).components.examples
const example = (name: string): unknown => examples[name]?.value ?? expect.fail(`no example ${name}`)

describe('adyen-card against Prism (Adyen’s OpenAPI document checks every request)', function () {
  this.timeout(120_000)
  let prism: Prism
  let connector: AdyenCardConnector
  before(async () => {
    prism = await startPrism(adyenCheckoutDocument())
    connector = new AdyenCardConnector({ baseUrl: prism.url, timeoutMs: 10_000 })
  })
  after(() => prism.close())
  beforeEach(() => prism.exchanges.splice(0))
  const seen = () => prism.exchanges.map((x) => [x.path, x.status, x.violations])

  it('sends each call of the lifecycle as Adyen’s document allows: no violation, every answer a success', async () => {
    const held = await right(connector.authorize(authorization()))
    const sale = await right(
      connector.authorize(authorization({ reference: 'tx-2:authorize', capture: true, card: { ...CARD, securityCode: null } })),
    )
    const captured = await right(connector.capture({ ...money, reference: 'tx-1:capture', amount: 1299 }))
    const partial = await right(connector.capture({ ...money, reference: 'tx-1:capture-2', amount: 500 }))
    const refunded = await right(connector.refund({ ...money, reference: 'tx-1:refund' }))
    const voided = await right(
      connector.void({ service, reference: 'tx-3:void', authorization: 'tx-3:authorize', serviceTransactionId: 'PSP3' }),
    )
    const lost = await right(
      connector.void({ service, reference: 'tx-4:authorize:void', authorization: 'tx-4:authorize', serviceTransactionId: null }),
    )
    await right(connector.verify(fields))
    expect(seen()).to.deep.equal([
      ['/payments', 200, []],
      ['/payments', 200, []],
      ['/payments/993617895204576J/captures', 201, []],
      ['/payments/993617895204576J/captures', 201, []],
      ['/payments/993617895204576J/refunds', 201, []],
      ['/payments/PSP3/cancels', 201, []],
      ['/cancels', 201, []],
      ['/paymentMethods', 200, []],
    ])
    // Prism answers the document's first example, a 3D Secure challenge: what matters here is that each decodes.
    for (const r of [held, sale]) expect(E.isRight(AuthorizeResult.decode(r)), JSON.stringify(r)).to.equal(true)
    for (const r of [captured, partial, refunded, voided, lost])
      expect(r).to.deep.include({ _tag: 'Received', rawResponseCode: 'received' })
    expect(prism.exchanges[6]?.request).to.deep.equal({
      merchantAccount: 'OrkaECOM',
      paymentReference: 'tx-4:authorize',
      reference: 'tx-4:authorize:void',
    })
  })

  it('is a check that can fail: Prism refuses a request Adyen’s document does not allow, or one without the key', async () => {
    const { body } = paymentCall(authorization(), 'OrkaECOM')
    const withoutReturnUrl = Object.fromEntries(Object.entries(body).filter(([k]) => k !== 'returnUrl'))
    const bad = await callAdyen(prism.url, API_KEY, { path: '/payments', body: withoutReturnUrl }, AbortSignal.timeout(10_000))
    expect(bad.status).to.equal(422)
    const keyless = await callAdyen(
      prism.url,
      '',
      { path: '/paymentMethods', body: { merchantAccount: 'OrkaECOM' } },
      AbortSignal.timeout(10_000),
    )
    expect(keyless.status).to.equal(401)
    expect(prism.exchanges.map((x) => x.violations.length > 0)).to.deep.equal([true, true])
  })
})

describe('adyen-card: its requests, checked against Adyen’s document', () => {
  const document = loadAdyenDocument()
  it('sends payments (held or captured, with or without a CVC) and every modification as the document allows', () => {
    const calls = [
      ['/payments', paymentCall(authorization(), 'OrkaECOM')],
      ['/payments', paymentCall(authorization({ capture: true, card: { ...CARD, securityCode: null } }), 'OrkaECOM')],
      ['/payments/{paymentPspReference}/captures', captureCall({ ...money, reference: 'tx-1:capture' }, 'OrkaECOM')],
      ['/payments/{paymentPspReference}/refunds', refundCall({ ...money, reference: 'tx-1:refund' }, 'OrkaECOM')],
      ['/payments/{paymentPspReference}/cancels', cancelCall({ ...money, reference: 'tx-1:void' }, 'OrkaECOM')],
      ['/cancels', cancelCall({ ...money, reference: 'tx-1:void', serviceTransactionId: null }, 'OrkaECOM')],
    ] as const
    for (const [route, call] of calls) expect(document.request(route, call.body), route).to.equal(null)
    expect(paymentCall(authorization(), 'M').body).to.deep.include({
      amount: { currency: 'EUR', value: 1299 },
      paymentMethod: { type: 'scheme', number: CARD.number, expiryMonth: '03', expiryYear: '2030', cvc: '737' },
      additionalData: { manualCapture: 'true' },
    })
    expect(paymentCall(authorization({ capture: true }), 'M').body).to.deep.include({ captureDelayHours: 0 })
    expect(paymentCall(authorization({ capture: true }), 'M').body).to.not.have.property('additionalData')
  })

  it('keys each call by Orka’s reference, hashed when longer than Adyen’s 64 characters', () => {
    expect(captureCall({ ...money, reference: 'tx-1:capture' }, 'M').idempotencyKey).to.equal('tx-1:capture')
    const long = `${'x'.repeat(60)}:authorize`
    expect(idempotencyKeyOf(long)).to.match(/^[0-9a-f]{64}$/)
    expect(idempotencyKeyOf(long)).to.equal(idempotencyKeyOf(long))
  })
})

describe('adyen-card: what Adyen’s answers mean (its documented examples)', () => {
  const answer = (status: number, body: unknown, transient = false) => ({ status, body, transient })
  it('an authorised payment is held, or captured when the intent captured; AVS, CVC and funding are Orka’s codes, the scheme’s id kept', () => {
    expect(authorizeResultOf(answer(200, example('post-payments-card-direct-200')), false)).to.deep.equal({
      _tag: 'Authorized',
      serviceTransactionId: '993617895204576J',
      captured: false,
      authCode: '044925',
      avs: 'unavailable',
      cvv: 'match',
      cardType: null,
      schemeTransactionId: null,
      rawResponseCode: 'Authorised',
      rawResponseDescription: null,
    })
    const debit = {
      resultCode: 'Authorised',
      pspReference: 'P1',
      additionalData: {
        fundingSource: 'DEBIT',
        cvcResult: '2 Does not match',
        avsResult: '7 Both postal code and address match',
        networkTxReference: '483297487231504',
      },
    }
    expect(authorizeResultOf(answer(200, debit), true)).to.deep.include({
      captured: true,
      cardType: 'debit',
      schemeTransactionId: '483297487231504',
      cvv: 'no_match',
      avs: 'match',
    })
    for (const [funding, type] of [
      ['CREDIT', 'credit'],
      ['PREPAID_RELOADABLE', 'prepaid'],
      ['PREPAID', 'prepaid'],
      ['UNKNOWN', null],
    ])
      expect(authorizeResultOf(answer(200, { ...debit, additionalData: { fundingSource: funding } }), true)).to.deep.include({
        cardType: type,
      })
  })

  it('a refusal is a decline with Orka’s code, Adyen’s code and reason kept; Error, Cancelled and 3D Secure are failures', () => {
    const refused = (code: string, reason: string) =>
      answer(200, { resultCode: 'Refused', pspReference: 'P1', refusalReasonCode: code, refusalReason: reason })
    expect(authorizeResultOf(refused('12', 'Not enough balance'), false)).to.deep.equal({
      _tag: 'Declined',
      errorCode: 'insufficient_funds',
      avs: null,
      cvv: null,
      rawResponseCode: '12',
      rawResponseDescription: 'Not enough balance',
    })
    const codes = [
      ['6', 'Expired Card'],
      ['24', 'CVC Declined'],
      ['2', 'Refused'],
      ['20', 'FRAUD'],
      ['8', 'Invalid Card Number'],
      ['999', 'Something new'],
    ].map(([c, r]) => {
      const d = authorizeResultOf(refused(c ?? '', r ?? ''), false)
      return d._tag === 'Declined' ? d.errorCode : d._tag
    })
    expect(codes).to.deep.equal([
      'expired_payment_method',
      'incorrect_cvv',
      'issuer_decline',
      'suspected_fraud',
      'invalid_payment_method',
      'issuer_decline',
    ])
    expect(
      authorizeResultOf(answer(200, { resultCode: 'Error', refusalReason: 'Acquirer Error', refusalReasonCode: '4' }), false),
    ).to.deep.equal({
      _tag: 'Failed',
      errorCode: 'service_error',
      rawResponseCode: '4',
      rawResponseDescription: 'Acquirer Error',
    })
    expect(authorizeResultOf(answer(200, { resultCode: 'Cancelled' }), false)).to.deep.include({
      _tag: 'Failed',
      rawResponseCode: 'Cancelled',
    })
    expect(authorizeResultOf(answer(200, example('post-payments-card-3d-secure-2-web-200')), false)).to.deep.include({
      _tag: 'Failed',
      errorCode: 'requires_buyer_authentication',
      rawResponseCode: 'IdentifyShopper',
    })
  })

  it('a refused request is a failure that held nothing; a 5xx, a transient error, a key in use or garbage leaves the outcome unknown', () => {
    const failed = (a: ReturnType<typeof answer>) => {
      const r = authorizeResultOf(a, false)
      return r._tag === 'Failed' ? `${r.errorCode} ${String(r.rawResponseCode)}` : r._tag
    }
    expect(failed(answer(401, example('generic-401')))).to.equal('invalid_service_credentials 000')
    expect(failed(answer(403, example('generic-403')))).to.equal('invalid_service_configuration 901')
    expect(failed(answer(422, example('generic-422')))).to.equal('invalid_service_configuration 14_030')
    expect(failed(answer(422, { status: 422, errorCode: '101', message: 'Invalid card number', errorType: 'validation' }))).to.equal(
      'invalid_payment_method 101',
    )
    expect(failed(answer(400, example('generic-400')))).to.equal('invalid_service_configuration 702')
    expect(failed(answer(401, null))).to.equal('invalid_service_credentials null')
    const busy = { status: 409, errorCode: '704', message: 'request already processed or in progress', errorType: 'validation' }
    for (const a of [
      answer(500, example('generic-500')),
      answer(422, busy),
      answer(409, busy),
      answer(422, example('generic-422'), true),
      answer(200, 'garbage'),
      answer(422, '<html>a proxy’s page</html>'),
      answer(200, { resultCode: 'Received' }),
      answer(200, { resultCode: 'Pending' }),
    ])
      expect(authorizeResultOf(a, false), JSON.stringify(a)).to.deep.include({ _tag: 'ServiceFailed', service: 'card' })
  })

  it('a modification is received to be settled later, refused, or unknown', () => {
    for (const name of [
      'post-payments-paymentPspReference-captures-capture-201',
      'post-payments-paymentPspReference-refunds-refund-201',
      'post-payments-paymentPspReference-cancels-cancel-with-psp-reference-201',
      'post-cancels-cancel-with-own-reference-201',
    ])
      expect(operationResultOf(answer(201, example(name))), name).to.deep.equal({
        _tag: 'Received',
        serviceId: '993617894906488A',
        rawResponseCode: 'received',
        rawResponseDescription: null,
      })
    expect(operationResultOf(answer(422, example('generic-422')))).to.deep.include({ _tag: 'Failed', rawResponseCode: '14_030' })
    expect(operationResultOf(answer(500, example('generic-500')))).to.deep.include({ _tag: 'ServiceFailed' })
    expect(operationResultOf(answer(201, { status: 'something else', pspReference: 'P' }))).to.deep.include({ _tag: 'ServiceFailed' })
  })
})

describe('adyen-card: where its calls go', () => {
  const with_ = (prefix: string) => [...fields, { key: 'live_url_prefix', value: prefix }]
  it('to the operator’s stand-in, else Adyen’s test API, else the live one of the service’s prefix', () => {
    expect(adyenBaseUrl(fields, 'http://127.0.0.1:1')).to.equal('http://127.0.0.1:1')
    expect(adyenBaseUrl(fields, undefined)).to.equal(ADYEN_TEST_URL)
    expect(adyenBaseUrl(with_(''), undefined)).to.equal(ADYEN_TEST_URL)
    expect(adyenBaseUrl(with_('1797a841fbb37ca7-AdyenDemo'), undefined)).to.equal(
      'https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout/v71',
    )
  })

  it('never to a host a prefix names: anything but letters, digits and hyphens is refused, and nothing is sent', async () => {
    for (const prefix of ['evil.example', 'x/..', 'a@b', 'evil.example#', 'x?y', '-x', 'x'.repeat(50), 'a b', 'a%2eb', 'é'])
      expect(adyenBaseUrl(with_(prefix), undefined), prefix).to.equal(undefined)
    expect(adyenBaseUrl(with_('x'.repeat(49)), undefined)).to.be.a('string')
    const c = new AdyenCardConnector({ baseUrl: undefined, timeoutMs: 1000 })
    const bad = aPaymentServiceRecord({ payment_service_definition_id: 'adyen-card', fields: with_('evil.example/x') })
    const badPrefix = {
      _tag: 'Failed',
      errorCode: 'invalid_service_configuration',
      rawResponseCode: 'live_url_prefix',
      rawResponseDescription: 'The live URL prefix is not one Adyen gives',
    }
    expect(await c.authorize(authorization({ service: bad }))()).to.deep.equal(E.right(badPrefix))
    expect(await c.capture({ ...money, service: bad, reference: 'r' })()).to.deep.equal(E.right(badPrefix))
    expect(await c.refund({ ...money, service: bad, reference: 'r' })()).to.deep.equal(E.right(badPrefix))
    expect(await c.void({ service: bad, reference: 'r', authorization: 'a', serviceTransactionId: null })()).to.deep.equal(
      E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'the live URL prefix is not one Adyen gives' }),
    )
    expect(await c.verify(with_('evil.example'))()).to.deep.include({
      left: {
        _tag: 'CredentialsRefused',
        field: 'live_url_prefix',
        reason: 'The live URL prefix is not one Adyen gives: letters, digits and hyphens only',
      },
    })
  })
})

/** A stand-in that answers each request with `reply`, counting what it sent. */
const serve = async (reply: (req: http.IncomingMessage, res: http.ServerResponse) => void) => {
  const server = http.createServer(reply)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${String(port)}`,
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve()
        })
      })
    },
  }
}

describe('adyen-card: an Adyen that does not answer, answers too much, echoes the key, or cannot be reached', () => {
  it('gives up within its timeout (outcome unknown)', async () => {
    const silent = await serve(() => undefined)
    try {
      const started = Date.now()
      const slow = new AdyenCardConnector({ baseUrl: silent.url, timeoutMs: 200 })
      expect(await slow.authorize(authorization())()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
      expect(await slow.refund({ ...money, reference: 'r' })()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
      expect(Date.now() - started).to.be.below(1500)
    } finally {
      await silent.close()
    }
  })

  it('reads at most MAX_ANSWER_BYTES of an answer and takes it for no answer', async () => {
    let sent = 0
    const flood = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      const chunk = Buffer.alloc(64 * 1024, 'x')
      const more = () => {
        while (sent < 8 * MAX_ANSWER_BYTES && !res.destroyed) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once('drain', more)
        }
        res.end()
      }
      more()
    })
    try {
      const c = new AdyenCardConnector({ baseUrl: flood.url, timeoutMs: 5000 })
      expect(await c.authorize(authorization())()).to.deep.equal(
        E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'Adyen answered 200' }),
      )
      expect(sent).to.be.below(8 * MAX_ANSWER_BYTES)
    } finally {
      await flood.close()
    }
  })

  it('drops any raw text that quotes the API key', async () => {
    const echo = await serve((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          resultCode: 'Refused',
          pspReference: 'P1',
          refusalReasonCode: '2',
          refusalReason: `Refused for ${String(req.headers['x-api-key'])}`,
        }),
      )
    })
    try {
      const c = new AdyenCardConnector({ baseUrl: echo.url, timeoutMs: 5000 })
      const r = await right(c.authorize(authorization()))
      expect(r).to.deep.include({ _tag: 'Declined', rawResponseCode: '2', rawResponseDescription: null })
      expect(JSON.stringify(r)).to.not.include(API_KEY)
    } finally {
      await echo.close()
    }
  })

  it('answers unreachable for what did nothing there; a void not sent stays unknown', async () => {
    const gone = await serve(() => undefined)
    await gone.close()
    const c = new AdyenCardConnector({ baseUrl: gone.url, timeoutMs: 2000 })
    const unreachable = {
      _tag: 'Failed',
      errorCode: 'service_error',
      rawResponseCode: 'unreachable',
      rawResponseDescription: 'Adyen could not be reached',
    }
    expect(await c.authorize(authorization())()).to.deep.equal(E.right(unreachable))
    expect(await c.capture({ ...money, reference: 'r' })()).to.deep.equal(E.right(unreachable))
    expect(await c.refund({ ...money, reference: 'r' })()).to.deep.equal(E.right(unreachable))
    expect(await c.void({ service, reference: 'r', authorization: 'a', serviceTransactionId: null })()).to.deep.equal(
      E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'Adyen could not be reached' }),
    )
  })
})
