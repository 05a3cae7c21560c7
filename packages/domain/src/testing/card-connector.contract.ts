import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import {
  AuthorizeRequest,
  AuthorizeResult,
  CardConnector,
  CaptureRequest,
  OperationResult,
  RefundRequest,
} from '../payments/card-connector.ports'
import { CardDetails } from '../cards/card-details'
import { PaymentServiceRecord } from '../payments/payment-service'
import { nextUuid } from './fixtures'
import { Harness, left, right, teardownHarness } from './harness'

/** What the suite needs besides the connector. */
export interface CardConnectorSubject {
  /** A service the connector serves, configured to work normally. */
  readonly service: PaymentServiceRecord
  readonly approvingCard: CardDetails
  /** A card the service declines (a refusal, not a failure). */
  readonly decliningCard: CardDetails
  /** The connector's own bound on a call, in ms. */
  readonly timeoutMs: number
  /** What in an authorization makes the service not answer it, or undefined when it cannot be made to (the timeout cases are skipped). */
  readonly unanswered?: Pick<AuthorizeRequest, 'amount' | 'card'>
}

const AMOUNT = 1299
/** What a capture, void or refund a service took answers: done, or received to be settled by a notification. */
const TAKEN = ['Succeeded', 'Received']
/** Slack for the event loop and a slow machine, on top of the connector's own bound. */
const MARGIN_MS = 1000

const decoded = <A>(codec: t.Decoder<unknown, A>, value: unknown): A => {
  const r = codec.decode(value)
  if (E.isLeft(r)) return expect.fail(`the answer does not decode as ${codec.name}: ${JSON.stringify(value)}`)
  return r.right
}

/**
 * What every card connector must do, whatever service it speaks to: answer declines as
 * answers, honour every reference (a repeated call answers as the first did, with the same
 * ids), release a timed-out authorization by its reference, give up within its own bound, and
 * keep card data out of what it answers.
 */
export const cardConnectorContract = (name: string, setup: () => Promise<Harness<CardConnector, CardConnectorSubject>>) =>
  describe(`CardConnector: ${name}`, function () {
    let h: Harness<CardConnector, CardConnectorSubject>
    beforeEach(async function () {
      h = await setup()
      // A timeout case waits the connector's bound, twice at most.
      this.currentTest?.timeout(h.timeoutMs * 2 + 2 * MARGIN_MS)
    })
    afterEach(() => teardownHarness(h))

    /** A transaction's references: its id and the step, as Orka sends them. */
    const references = () => {
      const tx = nextUuid()
      return (step: string) => `${tx}:${step}`
    }
    const authorization = (ref: string, o: Partial<AuthorizeRequest> = {}): AuthorizeRequest => ({
      service: h.service,
      reference: ref,
      amount: AMOUNT,
      currency: 'USD',
      capture: false,
      card: h.approvingCard,
      billingPostalCode: null,
      ...o,
    })
    /** The service's id for each authorization it answered, by reference: what capture, void and refund name it by. */
    const held = new Map<string, string>()
    const authorize = async (req: AuthorizeRequest) => {
      const r = decoded(AuthorizeResult, await right(h.port.authorize(req)))
      if (r._tag === 'Authorized') held.set(req.reference, r.serviceTransactionId)
      return r
    }
    const authorized = async (req: AuthorizeRequest) => {
      const r = await authorize(req)
      if (r._tag !== 'Authorized') return expect.fail(`expected Authorized, got ${JSON.stringify(r)}`)
      return r
    }
    const money = (authz: string, ref: string): CaptureRequest & RefundRequest => ({
      service: h.service,
      reference: ref,
      authorization: authz,
      serviceTransactionId: held.get(authz) ?? expect.fail(`no authorization ${authz}`),
      amount: AMOUNT,
      currency: 'USD',
    })
    const capture = async (req: CaptureRequest) => decoded(OperationResult, await right(h.port.capture(req)))
    const refund = async (req: RefundRequest) => decoded(OperationResult, await right(h.port.refund(req)))
    const voidOf = async (authz: string, ref: string) =>
      decoded(
        OperationResult,
        await right(
          h.port.void({ service: h.service, reference: ref, authorization: authz, serviceTransactionId: held.get(authz) ?? null }),
        ),
      )

    it('authorizes an approving card, capturing only when asked', async () => {
      const ref = references()
      const held = await authorized(authorization(ref('authorize')))
      expect(held.captured).to.equal(false)
      expect(held.serviceTransactionId).to.not.equal('')
      expect((await authorized(authorization(ref('sale'), { capture: true }))).captured).to.equal(true)
    })

    it('answers a declining card with Declined and an error code, not a failure', async () => {
      const r = await authorize(authorization(references()('authorize'), { card: h.decliningCard }))
      expect(r._tag).to.equal('Declined')
      expect(r._tag === 'Declined' && r.errorCode)
        .to.be.a('string')
        .and.not.equal('')
    })

    it('captures, refunds and voids what it authorized (at once, or received to settle later)', async () => {
      const ref = references()
      await authorized(authorization(ref('authorize')))
      expect((await capture(money(ref('authorize'), ref('capture'))))._tag).to.be.oneOf(TAKEN)
      expect((await refund(money(ref('authorize'), ref('refund'))))._tag).to.be.oneOf(TAKEN)
      const other = references()
      await authorized(authorization(other('authorize')))
      expect((await voidOf(other('authorize'), other('void')))._tag).to.be.oneOf(TAKEN)
    })

    it('refuses a webhook that carries no signature, reading nothing of it', () => {
      const read = h.port.readNotification(h.service.fields, { headers: {}, body: '{"type":"charge.succeeded"}' }, new Date())
      expect(E.isLeft(read) && read.left._tag).to.equal('WebhookRefused')
    })

    it('answers a repeated call as the first, with the same ids', async () => {
      const ref = references()
      const first = await authorize(authorization(ref('authorize')))
      expect(await authorize(authorization(ref('authorize')))).to.deep.equal(first)
      const declined = authorization(ref('declined'), { card: h.decliningCard })
      expect(await authorize(declined)).to.deep.equal(await authorize(declined))
      const captured = await capture(money(ref('authorize'), ref('capture')))
      expect(await capture(money(ref('authorize'), ref('capture')))).to.deep.equal(captured)
      const refunded = await refund(money(ref('authorize'), ref('refund')))
      expect(await refund(money(ref('authorize'), ref('refund')))).to.deep.equal(refunded)
      const voided = await voidOf(ref('authorize'), ref('void'))
      expect(await voidOf(ref('authorize'), ref('void'))).to.deep.equal(voided)
    })

    it('gives different references different ids', async () => {
      const a = references()
      const b = references()
      const [ta, tb] = [await authorized(authorization(a('authorize'))), await authorized(authorization(b('authorize')))]
      expect(ta.serviceTransactionId).to.not.equal(tb.serviceTransactionId)
      const ids = [
        await capture(money(a('authorize'), a('capture-1'))),
        await capture(money(a('authorize'), a('capture-2'))),
        await refund(money(a('authorize'), a('refund-1'))),
        await refund(money(a('authorize'), a('refund-2'))),
      ].map((r) => (r._tag === 'Succeeded' || r._tag === 'Received' ? r.serviceId : null))
      const given = ids.filter((id) => id !== null)
      expect(new Set(given).size).to.equal(given.length)
    })

    it('keeps card data out of every answer', async () => {
      const ref = references()
      const answers = [
        await authorize(authorization(ref('authorize'))),
        await authorize(authorization(ref('declined'), { card: h.decliningCard })),
        await capture(money(ref('authorize'), ref('capture'))),
        await refund(money(ref('authorize'), ref('refund'))),
        await voidOf(ref('authorize'), ref('void')),
      ]
      const cards = [h.approvingCard, h.decliningCard]
      for (const answer of answers)
        for (const value of Object.values(answer))
          for (const card of cards) {
            // A short security code may well appear inside an id by chance: only the value itself gives it away.
            if (typeof value === 'string') expect(value).to.not.include(card.number)
            if (card.securityCode !== null) expect(value).to.not.equal(card.securityCode)
          }
    })

    it('gives up within its timeout when the service does not answer', async function () {
      const unanswered = h.unanswered
      if (unanswered === undefined) return this.skip()
      const started = Date.now()
      expect(await left(h.port.authorize(authorization(references()('authorize'), unanswered)))).to.deep.equal({
        _tag: 'ServiceTimeout',
        service: 'card',
      })
      expect(Date.now() - started).to.be.below(h.timeoutMs + MARGIN_MS)
    })

    it('voids by its reference an authorization whose call timed out', async function () {
      const unanswered = h.unanswered
      if (unanswered === undefined) return this.skip()
      const ref = references()
      await left(h.port.authorize(authorization(ref('authorize'), unanswered)))
      expect((await voidOf(ref('authorize'), ref('void')))._tag).to.be.oneOf(TAKEN)
    })
  })
