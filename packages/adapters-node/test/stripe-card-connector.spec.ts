import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import http from 'node:http'
import { AddressInfo } from 'node:net'
import { AuthorizeRequest, AuthorizeResult, OperationResult, ProviderEvent } from '@orka/domain'
import { aPaymentServiceRecord, right } from '@orka/domain/testing'
import { StripeCardConnector } from '../src/connectors/stripe-card/connector'
import { authorizeResultOf, operationResultOf } from '../src/connectors/stripe-card/responses'
import { MAX_ANSWER_BYTES } from '../src/connectors/stripe-card/client'
import { formEncode } from '../src/connectors/stripe-card/form'
import { startStripeMock, StripeMock } from '../src/testing/stripe-mock'

const SECRET_KEY = 'sk_test_4eC39HqLyjWDarjtT1zdp7dc'
const service = aPaymentServiceRecord({ payment_service_definition_id: 'stripe-card', fields: [{ key: 'secret_key', value: SECRET_KEY }] })
const CARD = { number: '4242424242424242', expirationDate: '12/34', securityCode: '123' }
const authorization = (o: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
  service,
  reference: 'tx-1:authorize',
  amount: 1299,
  currency: 'USD',
  capture: false,
  card: CARD,
  billingPostalCode: '94103',
  ...o,
})

describe('stripe-card against stripe-mock (Stripe’s OpenAPI document checks every request)', function () {
  this.timeout(120_000)
  let mock: StripeMock
  let connector: StripeCardConnector
  before(async () => {
    // stripe-mock keeps no keys: the proxy answers as Stripe would a lost authorization's probe whose key was used.
    mock = await startStripeMock(({ path, idempotencyKey }) =>
      path === '/v1/payment_intents' && idempotencyKey === 'tx-4:authorize'
        ? {
            status: 400,
            body: {
              error: { type: 'idempotency_error', message: 'Keys for idempotent requests can only be used with the same parameters' },
            },
          }
        : undefined,
    )
    connector = new StripeCardConnector({ baseUrl: mock.url, timeoutMs: 5000 })
  })
  after(() => mock.close())
  beforeEach(() => mock.exchanges.splice(0))

  it('sends each call of the lifecycle as Stripe’s document allows: every one stripe-mock saw answered 200', async () => {
    const held = await right(connector.authorize(authorization()))
    const sale = await right(connector.authorize(authorization({ reference: 'tx-2:authorize', capture: true, billingPostalCode: null })))
    const money = { service, authorization: 'tx-1:authorize', serviceTransactionId: 'pi_123', amount: 500, currency: 'USD' }
    const captured = await right(connector.capture({ ...money, reference: 'tx-1:capture' }))
    const refunded = await right(connector.refund({ ...money, reference: 'tx-1:refund' }))
    const voided = await right(
      connector.void({ service, reference: 'tx-3:void', authorization: 'tx-3:authorize', serviceTransactionId: 'pi_123' }),
    )
    const voidedUnknown = await right(
      connector.void({ service, reference: 'tx-4:authorize:void', authorization: 'tx-4:authorize', serviceTransactionId: null }),
    )
    const neverSent = await right(
      connector.void({ service, reference: 'tx-5:authorize:void', authorization: 'tx-5:authorize', serviceTransactionId: null }),
    )
    await right(connector.verify(service.fields))
    const looked = await right(
      connector.lookup({ service, authorization: 'tx-1:authorize', serviceTransactionId: 'pi_123', awaited: ['tx-1:refund'] }),
    )
    expect(mock.exchanges.map((x) => [x.method, x.path.replace(/pi_\w+/, '{intent}'), x.status])).to.deep.equal([
      ['POST', '/v1/payment_methods', 200],
      ['POST', '/v1/payment_intents', 200],
      ['POST', '/v1/payment_methods', 200],
      ['POST', '/v1/payment_intents', 200],
      ['POST', '/v1/payment_intents/{intent}/capture', 200],
      ['POST', '/v1/refunds', 200],
      ['POST', '/v1/payment_intents/{intent}/cancel', 200],
      // (the probe under tx-4's used key, answered by the proxy)
      ['GET', '/v1/payment_intents/search', 200],
      ['POST', '/v1/payment_intents/{intent}/cancel', 200],
      ['POST', '/v1/payment_intents', 200],
      ['POST', '/v1/payment_intents/{intent}/cancel', 200],
      ['GET', '/v1/balance', 200],
      ['GET', '/v1/refunds', 200],
      ['GET', '/v1/payment_intents/{intent}', 200],
    ])
    // stripe-mock's fixtures carry no Orka reference: nothing to tell, but every event would decode.
    for (const e of looked) expect(E.isRight(ProviderEvent.decode(e)), JSON.stringify(e)).to.equal(true)
    // stripe-mock answers fixtures (not this payment's state): the answers decode, whatever they say.
    for (const r of [held, sale]) expect(E.isRight(AuthorizeResult.decode(r)), JSON.stringify(r)).to.equal(true)
    for (const r of [captured, refunded, voided, voidedUnknown, neverSent])
      expect(E.isRight(OperationResult.decode(r)), JSON.stringify(r)).to.equal(true)
    expect(JSON.stringify([held, sale, captured, refunded, voided, voidedUnknown])).to.not.include(CARD.number)
  })
})

describe('stripe-card: what Stripe’s answers mean', () => {
  const answer = (status: number, body: unknown) => ({ status, body })
  const intent = (status: string, checks: Record<string, string | null> = {}, funding = 'credit') => ({
    id: 'pi_1',
    object: 'payment_intent',
    status,
    latest_charge: {
      id: 'ch_1',
      payment_method_details: {
        card: {
          funding,
          checks: { address_postal_code_check: null, cvc_check: null, ...checks },
          authorization_code: '123456',
          network_transaction_id: '483297487231504',
        },
      },
    },
  })

  it('an intent that requires capture is held; one that succeeded is captured; checks become AVS and CVV codes, funding the card type, with the scheme’s ids', () => {
    expect(
      authorizeResultOf(answer(200, intent('requires_capture', { address_postal_code_check: 'pass', cvc_check: 'fail' }))),
    ).to.deep.equal({
      _tag: 'Authorized',
      serviceTransactionId: 'pi_1',
      captured: false,
      authCode: '123456',
      avs: 'match',
      cvv: 'no_match',
      cardType: 'credit',
      schemeTransactionId: '483297487231504',
      rawResponseCode: 'requires_capture',
      rawResponseDescription: null,
    })
    expect(authorizeResultOf(answer(200, intent('succeeded', {}, 'debit')))).to.deep.include({
      _tag: 'Authorized',
      captured: true,
      avs: null,
      cvv: 'not_provided',
      cardType: 'debit',
    })
    expect(authorizeResultOf(answer(200, intent('succeeded', {}, 'unknown')))).to.deep.include({ cardType: null })
  })

  it('a card error is a decline with Orka’s code and Stripe’s own kept; a processing error is a failure', () => {
    const cardError = (code: string, decline_code?: string) =>
      answer(402, { error: { type: 'card_error', code, decline_code, message: 'Your card was declined.' } })
    expect(authorizeResultOf(cardError('card_declined', 'insufficient_funds'))).to.deep.equal({
      _tag: 'Declined',
      errorCode: 'insufficient_funds',
      avs: null,
      cvv: 'not_provided',
      rawResponseCode: 'insufficient_funds',
      rawResponseDescription: 'Your card was declined.',
    })
    expect(
      [
        cardError('expired_card'),
        cardError('incorrect_cvc'),
        cardError('card_declined', 'fraudulent'),
        cardError('card_declined', 'do_not_honor'),
        cardError('card_declined', 'something_new'),
      ].map((a) => {
        const r = authorizeResultOf(a)
        return r._tag === 'Declined' ? r.errorCode : r._tag
      }),
    ).to.deep.equal(['expired_payment_method', 'incorrect_cvv', 'suspected_fraud', 'issuer_decline', 'issuer_decline'])
    expect(authorizeResultOf(cardError('processing_error'))).to.deep.include({ _tag: 'Failed', errorCode: 'service_error' })
    expect(authorizeResultOf(answer(200, intent('requires_action')))).to.deep.include({
      _tag: 'Declined',
      errorCode: 'requires_buyer_authentication',
    })
  })

  it('a refused key or request is a failure that held nothing; a 5xx, a key in use or garbage leaves the outcome unknown', () => {
    const error = (type: string) => ({ error: { type, message: 'Invalid API Key provided: sk_test_****' } })
    expect(authorizeResultOf(answer(401, error('invalid_request_error')))).to.deep.include({
      _tag: 'Failed',
      errorCode: 'invalid_service_credentials',
    })
    expect(authorizeResultOf(answer(429, error('rate_limit_error')))).to.deep.include({ _tag: 'Failed', errorCode: 'service_error' })
    for (const a of [
      answer(500, error('api_error')),
      answer(409, error('idempotency_error')),
      answer(400, error('idempotency_error')),
      answer(200, 'garbage'),
    ])
      expect(authorizeResultOf(a), JSON.stringify(a)).to.deep.include({ _tag: 'ServiceFailed', service: 'card' })
  })

  it('a capture, cancel or refund is done, refused or unknown', () => {
    const id = (b: Readonly<Record<string, unknown>>) => (typeof b.id === 'string' ? b.id : null)
    expect(operationResultOf(answer(200, { id: 're_1', status: 'succeeded' }), id)).to.deep.equal({
      _tag: 'Succeeded',
      serviceId: 're_1',
      rawResponseCode: 'succeeded',
      rawResponseDescription: null,
    })
    expect(
      operationResultOf(answer(400, { error: { type: 'invalid_request_error', code: 'payment_intent_unexpected_state' } }), id),
    ).to.deep.include({
      _tag: 'Declined',
      rawResponseCode: 'payment_intent_unexpected_state',
    })
    expect(
      operationResultOf(answer(200, { id: 're_1', status: 'failed', failure_reason: 'expired_or_canceled_card' }), id, ['failed']),
    ).to.deep.include({
      _tag: 'Declined',
      rawResponseCode: 'expired_or_canceled_card',
    })
    // A refund Stripe settles later is received, not done.
    for (const status of ['pending', 'requires_action'])
      expect(operationResultOf(answer(200, { id: 're_1', status }), id, ['failed'], ['pending', 'requires_action'])).to.deep.equal({
        _tag: 'Received',
        serviceId: 're_1',
        rawResponseCode: status,
        rawResponseDescription: null,
      })
    // A cancelled intent is what a cancel asks for: done.
    expect(operationResultOf(answer(200, { id: 'pi_1', status: 'canceled' }), id)).to.deep.include({ _tag: 'Succeeded', serviceId: 'pi_1' })
    expect(operationResultOf(answer(503, null), id)).to.deep.include({ _tag: 'ServiceFailed' })
  })

  it('encodes parameters in Stripe’s bracket notation, leaving out what is null', () => {
    expect(
      formEncode({ amount: 5, card: { number: '42', cvc: null }, expand: ['latest_charge'], metadata: { orka_reference: 'a b' } }),
    ).to.equal('amount=5&card%5Bnumber%5D=42&expand%5B%5D=latest_charge&metadata%5Borka_reference%5D=a%20b')
  })
})

describe('stripe-card: an answer far larger than Stripe’s', () => {
  it('reads at most MAX_ANSWER_BYTES of it and takes it for no answer (outcome unknown)', async () => {
    let sent = 0
    const flood = http.createServer((_req, res) => {
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
    await new Promise<void>((resolve) => flood.listen(0, '127.0.0.1', resolve))
    const { port } = flood.address() as AddressInfo
    try {
      const c = new StripeCardConnector({ baseUrl: `http://127.0.0.1:${String(port)}`, timeoutMs: 5000 })
      expect(await c.authorize(authorization())()).to.deep.equal(
        E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'Stripe answered 200' }),
      )
      expect(sent).to.be.below(8 * MAX_ANSWER_BYTES)
    } finally {
      flood.closeAllConnections()
      await new Promise<void>((resolve) => {
        flood.close(() => {
          resolve()
        })
      })
    }
  })
})

describe('stripe-card: a Stripe that does not answer, or cannot be reached', () => {
  it('tells nothing from a lookup it gave up on or could not send: the caller keeps waiting', async () => {
    const lookup = { service, authorization: 'tx-1:authorize', serviceTransactionId: 'pi_1', awaited: ['tx-1:refund'] }
    const silent = http.createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    const c = new StripeCardConnector({ baseUrl: `http://127.0.0.1:${String(port)}`, timeoutMs: 200 })
    try {
      expect(await c.lookup(lookup)()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) =>
        silent.close(() => {
          resolve()
        }),
      )
    }
    expect(await c.lookup(lookup)()).to.deep.equal(
      E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'Stripe could not be reached' }),
    )
  })

  it('gives up within its timeout (outcome unknown); an unreachable Stripe is a failure with nothing done, a void unknown', async () => {
    const silent = http.createServer(() => undefined)
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const { port } = silent.address() as AddressInfo
    try {
      const started = Date.now()
      const slow = new StripeCardConnector({ baseUrl: `http://127.0.0.1:${String(port)}`, timeoutMs: 200 })
      expect(await slow.authorize(authorization())()).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'card' }))
      expect(Date.now() - started).to.be.below(1000)
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) =>
        silent.close(() => {
          resolve()
        }),
      )
    }
    const gone = new StripeCardConnector({ baseUrl: `http://127.0.0.1:${String(port)}`, timeoutMs: 2000 })
    const unreachable = {
      _tag: 'Failed',
      errorCode: 'service_error',
      rawResponseCode: 'unreachable',
      rawResponseDescription: 'Stripe could not be reached',
    }
    expect(await gone.authorize(authorization())()).to.deep.equal(E.right(unreachable))
    const money = { service, authorization: 'tx-1:authorize', serviceTransactionId: 'pi_1', amount: 500, currency: 'USD' }
    expect(await gone.capture({ ...money, reference: 'tx-1:capture' })()).to.deep.equal(E.right(unreachable))
    expect(await gone.refund({ ...money, reference: 'tx-1:refund' })()).to.deep.equal(E.right(unreachable))
    // A void that could not be sent has released nothing: still unknown.
    expect(await gone.void({ ...money, reference: 'tx-1:void' })()).to.deep.equal(
      E.left({ _tag: 'ServiceFailed', service: 'card', reason: 'Stripe could not be reached' }),
    )
  })
})
