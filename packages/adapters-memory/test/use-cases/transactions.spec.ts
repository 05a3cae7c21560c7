import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { CardConnector, makeCreateTransaction, serviceTimeout, Transaction } from '@orka/domain'
import {
  cardConnectorsOf,
  DECLINED,
  FAILED,
  left,
  MERCHANT_A,
  OPERATION_DECLINED,
  right,
  ScriptedCardConnector,
  AUTHORIZED,
} from '@orka/domain/testing'
import { invariants, payment, record, transactionWorld } from './transaction-world'
import { ACTOR } from './support'

describe('creating a transaction', () => {
  it('records the attempt, authorizes through the first service and answers the transaction, card data never kept', async () => {
    const service = new ScriptedCardConnector()
    const w = await transactionWorld([service])
    const { value: t, replayed } = await right(w.create())
    expect(replayed).to.equal(false)
    expect(t).to.include({
      status: 'authorization_succeeded',
      amount: 1299,
      authorized_amount: 1299,
      captured_amount: 0,
      intent_outcome: 'succeeded',
    })
    expect(t.payment_service?.id).to.equal(w.records[0]?.id)
    expect(t.payment_method).to.deep.include({
      method: 'card',
      label: '1111',
      scheme: 'visa',
      expiration_date: '12/30',
      details: { bin: '411111', card_type: null },
    })
    expect(service.calls).to.deep.equal([{ op: 'authorize', reference: `${t.id}:authorize:1`, amount: 1299 }])
    const history = await right(w.transactions.history(MERCHANT_A, t.id))
    expect(history.map((v) => v.status)).to.deep.equal(['processing', 'authorization_succeeded'])
    expect(history[0]?.attempts.map((a) => a.outcome)).to.deep.equal(['pending'])
    expect(JSON.stringify(history)).not.to.include('4111111111111111')
    expect(JSON.stringify(history)).not.to.match(/"security_code":"123"/)
    invariants(await record(w, t.id), [service])
  })

  it('captures at once with intent capture', async () => {
    const w = await transactionWorld()
    const { value: t } = await right(w.create(payment({ intent: 'capture' })))
    expect(t).to.include({ status: 'capture_succeeded', captured_amount: 1299, intent_outcome: 'succeeded' })
  })

  it('stops at a decline: the next service is never asked', async () => {
    const first = new ScriptedCardConnector({ authorize: () => DECLINED('insufficient_funds') })
    const second = new ScriptedCardConnector()
    const w = await transactionWorld([first, second])
    const { value: t } = await right(w.create())
    expect(t).to.include({
      status: 'authorization_declined',
      error_code: 'insufficient_funds',
      intent_outcome: 'failed',
      authorized_amount: 0,
    })
    expect(second.calls).to.deep.equal([])
  })

  it('moves to the next service after a technical failure, each attempt in the events log', async () => {
    const first = new ScriptedCardConnector({ authorize: () => FAILED('service_error') })
    const second = new ScriptedCardConnector()
    const w = await transactionWorld([first, second])
    const { value: t } = await right(w.create())
    expect(t.status).to.equal('authorization_succeeded')
    expect(t.payment_service?.id).to.equal(w.records[1]?.id)
    const r = await record(w, t.id)
    expect(r.attempts.map((a) => [a.payment_service.id, a.outcome])).to.deep.equal([
      [w.records[0]?.id, 'failed'],
      [w.records[1]?.id, 'authorized'],
    ])
    const names = (await right(w.transactions.history(MERCHANT_A, t.id))).flatMap((v) => v.events.map((e) => e.name))
    expect(names).to.include.members([
      'transaction-api-request',
      'payment-connector-response-transaction-authorization-failed',
      'payment-connector-response-transaction-authorization-succeeded',
      'transaction-updated-status',
    ])
    invariants(r, [first, second])
  })

  it('voids an attempt whose answer was lost before moving on: no authorization is left behind', async () => {
    // The first service authorizes, but its answer never arrives.
    const first = new ScriptedCardConnector({ authorize: () => ({ lost: AUTHORIZED() }) })
    const second = new ScriptedCardConnector()
    const w = await transactionWorld([first, second])
    const { value: t } = await right(w.create())
    expect(t.status).to.equal('authorization_succeeded')
    expect(first.calls.map((c) => c.op)).to.deep.equal(['authorize', 'void'])
    const r = await record(w, t.id)
    expect(r.attempts.map((a) => [a.outcome, a.voided])).to.deep.equal([
      ['unknown', true],
      ['authorized', false],
    ])
    expect(r.pending).to.equal(false)
    invariants(r, [first, second])
  })

  it('ends failed and pending when the void of a lost answer does not go through; recovery gets it through later', async () => {
    let voidWorks = false
    const first = new ScriptedCardConnector({
      authorize: () => ({ lost: AUTHORIZED() }),
      void: () =>
        voidWorks ? { _tag: 'Succeeded', serviceId: null, rawResponseCode: null, rawResponseDescription: null } : serviceTimeout('card'),
    })
    const second = new ScriptedCardConnector()
    const w = await transactionWorld([first, second])
    const { value: t } = await right(w.create())
    expect(t.status).to.equal('authorization_failed')
    expect(second.calls, 'no second authorization while the first may be held').to.deep.equal([])
    expect((await record(w, t.id)).pending).to.equal(true)
    expect(first.heldAuthorizations()).to.have.length(1)

    voidWorks = true
    expect(await right(w.recover())).to.deep.equal({ settled: 0, stillPending: 0 })
    w.clock.advance(61_000)
    expect(await right(w.recover())).to.deep.equal({ settled: 1, stillPending: 0 })
    const r = await record(w, t.id)
    expect([r.status, r.pending]).to.deep.equal(['authorization_failed', false])
    invariants(r, [first, second])
  })

  it('fails when every service fails, trying each once', async () => {
    const services = [
      new ScriptedCardConnector({ authorize: () => FAILED() }),
      new ScriptedCardConnector({ authorize: () => FAILED('internal_error') }),
    ]
    const w = await transactionWorld(services)
    const { value: t } = await right(w.create())
    expect(t).to.include({ status: 'authorization_failed', error_code: 'internal_error' })
    expect(services.map((s) => s.calls.length)).to.deep.equal([1, 1])
  })

  it('refuses what Orka does not offer with a 400 naming each field, storing nothing and calling nothing', async () => {
    const service = new ScriptedCardConnector()
    const w = await transactionWorld([service])
    const refused = await left(w.create(payment({ merchant_initiated: true, three_d_secure_data: { x: 1 } })))
    expect(refused).to.deep.equal({
      _tag: 'InvalidRequest',
      message: 'Request failed validation',
      problems: ['merchant_initiated', 'three_d_secure_data'].map((f) => ({
        field: 'input',
        path: [f],
        message: `\`${f}\` is not supported`,
        type: 'unsupported',
      })),
    })
    expect(service.calls).to.deep.equal([])
    expect(await right(w.transactions.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 10 }))).to.deep.equal([])
  })

  it('refuses an expired card (400 on expiration_date) and an unknown buyer (400 on buyer_id)', async () => {
    const w = await transactionWorld()
    const expired = await left(
      w.create(payment({ payment_method: { method: 'card', number: '4111111111111111', expiration_date: '12/24' } })),
    )
    expect(expired).to.deep.include({ message: 'Request failed validation' })
    expect((expired as unknown as { problems: unknown[] }).problems).to.deep.equal([
      { field: 'input', path: ['payment_method', 'expiration_date'], message: 'The card has expired', type: 'expired_card' },
    ])
    const buyer = await left(w.create(payment({ buyer_id: '9e0e0e0e-0000-4000-8000-000000000001' })))
    expect((buyer as unknown as { problems: { path: string[]; type: string }[] }).problems.map((p) => [p.path, p.type])).to.deep.equal([
      [['buyer_id'], 'unknown_buyer'],
    ])
  })

  it('replays an idempotent request without asking the service again', async () => {
    const service = new ScriptedCardConnector()
    const w = await transactionWorld([service])
    const first = await right(w.create(payment(), 'key-1'))
    const again = await right(w.create(payment(), 'key-1'))
    expect(again).to.deep.equal({ value: first.value, replayed: true })
    expect(service.calls).to.have.length(1)
  })

  it('settles, on a retry with its key, a request whose process stopped after recording the attempt', async () => {
    // The first attempt's call never returns: its process is as good as dead.
    const service = new ScriptedCardConnector()
    const hanging: CardConnector = {
      authorize: () => () => new Promise<never>(() => undefined),
      capture: (r) => service.capture(r),
      void: (r) => service.void(r),
      refund: (r) => service.refund(r),
      verify: (f) => service.verify(f),
      readNotification: (f, w) => service.readNotification(f, w),
      lookup: (r) => service.lookup(r),
    }
    const w = await transactionWorld([service])
    void makeCreateTransaction({ ...w, cardConnectors: cardConnectorsOf({ 'card-1': hanging }) })({
      merchantAccountId: MERCHANT_A,
      actor: ACTOR,
      input: payment(),
      idempotencyKey: 'key-2',
      embed: null,
    })()
    await new Promise((r) => setImmediate(r))
    w.clock.advance(31_000) // past the idempotency lease
    const retried = await right(w.create(payment(), 'key-2'))
    expect(retried.value.status).to.equal('authorization_failed')
    const r = await record(w, retried.value.id)
    expect(r.pending).to.equal(false)
    expect(service.calls.map((c) => c.op)).to.deep.equal(['void'])
    invariants(r, [service])
  })
})

describe('capture, void and refunds', () => {
  const authorized = async (connector = new ScriptedCardConnector()) => {
    const w = await transactionWorld([connector])
    const { value } = await right(w.create())
    return { w, t: value, connector }
  }

  it('captures all or part of an authorization, once; never more than authorized', async () => {
    const { w, t, connector } = await authorized()
    expect(await left(w.capture(t.id, { amount: 1300 }))).to.deep.include({ _tag: 'InvalidRequest', message: 'Request failed validation' })
    const done = await right(w.capture(t.id, { amount: 1000 }))
    expect(done.value.transaction).to.include({ status: 'capture_succeeded', captured_amount: 1000 })
    expect(done.value.capture).to.include({ amount: 1000, status: 'succeeded', final: true })
    const again = await left(w.capture(t.id))
    expect(again).to.deep.include({ _tag: 'Conflict', resourceId: t.id })
    invariants(await record(w, t.id), [connector])
  })

  it('refuses to capture an authorization of 0 (a card check) with a 409 that says so; the check can be voided', async () => {
    const connector = new ScriptedCardConnector()
    const w = await transactionWorld([connector])
    const { value: t } = await right(w.create(payment({ amount: 0 })))
    expect(t).to.include({ status: 'authorization_succeeded', authorized_amount: 0 })
    const refused = await left(w.capture(t.id))
    expect(refused).to.deep.include({ _tag: 'Conflict', resourceId: t.id })
    expect((refused as { problem?: { message?: string } }).problem?.message).to.equal(
      'A transaction authorized for 0 (a card check) cannot be captured: nothing was authorized to capture',
    )
    expect(await left(w.capture(t.id, { amount: 1 }))).to.deep.include({ _tag: 'Conflict' })
    expect(connector.calls.map((c) => c.op)).to.deep.equal(['authorize'])
    expect((await right(w.void(t.id))).value.transaction.status).to.equal('authorization_voided')
    invariants(await record(w, t.id), [connector])
  })

  it('lets one of several concurrent captures through; the service captures once', async () => {
    const { w, t, connector } = await authorized()
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((k) => w.capture(t.id, {}, k)()))
    expect(results.filter(E.isRight)).to.have.length(1)
    expect(connector.effects.filter((e) => e.op === 'capture')).to.have.length(1)
    invariants(await record(w, t.id), [connector])
  })

  it('voids before capture only; a void is once', async () => {
    const { w, t, connector } = await authorized()
    expect((await right(w.void(t.id))).value.transaction.status).to.equal('authorization_voided')
    expect(await left(w.void(t.id))).to.deep.include({ _tag: 'Conflict' })
    expect(await left(w.capture(t.id))).to.deep.include({ _tag: 'Conflict' })
    invariants(await record(w, t.id), [connector])
  })

  it('refunds after capture only, cumulatively up to what was captured', async () => {
    const { w, t, connector } = await authorized()
    expect(await left(w.refund(t.id))).to.deep.include({ _tag: 'Conflict' })
    await right(w.capture(t.id, { amount: 1000 }))
    expect((await right(w.refund(t.id, { amount: 600 }))).value.refunds.map((r) => [r.amount, r.status])).to.deep.equal([
      [600, 'succeeded'],
    ])
    expect(await left(w.refund(t.id, { amount: 401 }))).to.deep.include({ _tag: 'InvalidRequest' })
    const all = await right(w.refundAll(t.id))
    expect(all.value.refunds.map((r) => r.amount)).to.deep.equal([400])
    expect(all.value.transaction.refunded_amount).to.equal(1000)
    expect(await left(w.refundAll(t.id))).to.deep.include({ _tag: 'Conflict' })
    invariants(await record(w, t.id), [connector])
  })

  it('keeps concurrent refunds within what was captured', async () => {
    const { w, t, connector } = await authorized()
    await right(w.capture(t.id))
    const results = await Promise.all(['a', 'b', 'c'].map((k) => w.refund(t.id, { amount: 700 }, k)()))
    expect(results.filter(E.isRight)).to.have.length(1)
    invariants(await record(w, t.id), [connector])
  })

  it('answers a refund whose outcome is lost with a timeout, and settles it on the retry with the same key, once', async () => {
    let lose = true
    const connector = new ScriptedCardConnector({
      refund: () =>
        lose ? { lost: { _tag: 'Succeeded', serviceId: 'r', rawResponseCode: null, rawResponseDescription: null } } : OPERATION_DECLINED,
    })
    const { w, t } = await authorized(connector)
    await right(w.capture(t.id))
    expect(await left(w.refund(t.id, { amount: 500 }, 'refund-1'))).to.deep.equal({ _tag: 'ServiceTimeout', service: 'card' })
    lose = false
    const retried = await right(w.refund(t.id, { amount: 500 }, 'refund-1'))
    expect(retried.value.refunds.map((r) => [r.amount, r.status])).to.deep.equal([[500, 'succeeded']])
    expect(connector.effects.filter((e) => e.op === 'refund')).to.have.length(1)
    invariants(await record(w, t.id), [connector])
  })
})

/** Shapes the SDK requires, whatever the outcome. */
const requiredOf = (t: Transaction) => Object.keys(t).filter((k) => (t as Record<string, unknown>)[k] !== undefined)
describe('the transaction answered', () => {
  it('carries every property the original API requires', async () => {
    const w = await transactionWorld([new ScriptedCardConnector({ authorize: () => DECLINED() })])
    const { value } = await right(w.create())
    expect(requiredOf(value)).to.include.members([
      'type', 'id', 'reconciliation_id', 'merchant_account_id', 'currency', 'amount', 'status', 'authorized_amount', 'captured_amount',
      'refunded_amount', 'settled_amount', 'settled', 'intent', 'pending_review', 'gift_card_redemptions', 'created_at', 'updated_at',
      'disputed', 'payment_source', 'merchant_initiated', 'is_subsequent_payment', 'intent_outcome', 'multi_tender', 'account_funding_transaction',
    ]) // prettier-ignore
  })
})
