import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import {
  makeReceiveProviderWebhook,
  makeSyncTransaction,
  OperationResult,
  ProviderEvent,
  ProviderWebhook,
  refundable,
  serviceTimeout,
  TransactionRecord,
} from '@orka/domain'
import { aWebhookRecord, left, MERCHANT_A, MERCHANT_B, right, ScriptedCardConnector } from '@orka/domain/testing'
import { invariants, payment, record, transactionWorld, TransactionWorld } from './transaction-world'

const RECEIVED: OperationResult = { _tag: 'Received', serviceId: 'psp-mod', rawResponseCode: 'received', rawResponseDescription: null }
const SIGNED = 'signed-with-the-secret'

/** A provider that answers every capture, void and refund `received` and signs its webhooks with a header. */
const provider = (lookup?: () => readonly ProviderEvent[] | ReturnType<typeof serviceTimeout>) =>
  new ScriptedCardConnector({
    capture: () => RECEIVED,
    void: () => RECEIVED,
    refund: () => RECEIVED,
    notification: (w: ProviderWebhook) => {
      if (w.headers['x-signature'] !== SIGNED) return E.left({ _tag: 'WebhookRefused', reason: 'signature' })
      try {
        return E.right({ events: JSON.parse(w.body) as ProviderEvent[], reply: { contentType: 'text/plain', body: '[accepted]' } })
      } catch {
        return E.left({ _tag: 'WebhookRefused', reason: 'malformed' })
      }
    },
    ...(lookup === undefined ? {} : { lookup }),
  })

const event = (o: Partial<ProviderEvent> & Pick<ProviderEvent, 'kind' | 'reference'>): ProviderEvent => ({
  id: `${o.kind}:${o.reference ?? ''}:${o.outcome ?? 'succeeded'}`,
  name: o.kind.toUpperCase(),
  serviceTransactionId: 'svc-auth',
  serviceId: 'psp-mod',
  outcome: 'succeeded',
  errorCode: null,
  rawResponseCode: null,
  rawResponseDescription: null,
  ...o,
})

const world = async (connector = provider()) => {
  const w = await transactionWorld([connector])
  await right(w.webhooks.create(aWebhookRecord({ merchant_account_id: MERCHANT_A })))
  const service = w.records[0]?.id ?? ''
  const deliver = (events: readonly ProviderEvent[], o: { signature?: string; merchant?: string; service?: string; body?: string } = {}) =>
    makeReceiveProviderWebhook(w)({
      merchantAccountId: o.merchant ?? MERCHANT_A,
      paymentServiceId: o.service ?? service,
      webhook: { headers: { 'x-signature': o.signature ?? SIGNED }, body: o.body ?? JSON.stringify(events) },
    })
  const { value: t } = await right(w.create(payment()))
  return { w, t, connector, deliver, sync: () => makeSyncTransaction(w)({ merchantAccountId: MERCHANT_A, transactionId: t.id }) }
}

/** The webhook events the world's versions raised, once folded. */
const published = async (w: TransactionWorld) => {
  await right(w.folds.flush())
  return w.fannedOut.map((e) => e.event_name)
}
const versionOf = async (w: TransactionWorld, id: string) => (await record(w, id)).version
const lastEvents = (r: TransactionRecord) => r.events.map((e) => e.name)

describe('payments that settle later: received operations and provider notifications', () => {
  it('shows a received capture as capture_pending, refuses what needs it settled, and settles it once from its notification', async () => {
    const { w, t, connector, deliver } = await world()
    const done = await right(w.capture(t.id, { amount: 1000 }))
    expect(done.value.transaction).to.include({ status: 'capture_pending', captured_amount: 0, intent_outcome: 'pending' })
    expect(done.value.capture).to.include({ amount: 1000, status: 'pending', payment_service_capture_id: 'psp-mod' })
    const pending = await record(w, t.id)
    expect(pending.pending, 'awaited, not open: no operation is blocked on it, recovery leaves it').to.equal(false)
    expect(await left(w.capture(t.id))).to.deep.include({ _tag: 'Conflict' })
    expect(await left(w.refund(t.id))).to.deep.include({ _tag: 'Conflict' })
    expect(await left(w.void(t.id))).to.deep.include({ _tag: 'Conflict' })
    expect(await published(w)).to.deep.equal(['transaction.authorized'])

    const settle = [event({ kind: 'capture', reference: pending.captures[0]?.reference ?? '' })]
    expect(await right(deliver(settle))).to.deep.equal({ contentType: 'text/plain', body: '[accepted]' })
    const settled = await record(w, t.id)
    expect(settled).to.include({ status: 'capture_succeeded', pending: false })
    expect(settled.captures[0]).to.include({ status: 'succeeded', amount: 1000, service_capture_id: 'psp-mod' })
    expect(lastEvents(settled)).to.deep.equal(['payment-connector-response-transaction-capture-succeeded', 'transaction-updated-status'])
    expect(settled.events[0]?.context).to.include({ source: 'notification', event: 'CAPTURE' })
    expect(await published(w)).to.deep.equal(['transaction.authorized', 'transaction.captured'])

    // The same notification again, or twice at once: nothing more.
    await right(deliver(settle))
    await Promise.all([deliver(settle)(), deliver(settle)()])
    expect(await versionOf(w, t.id)).to.equal(settled.version)
    expect(await published(w)).to.have.length(2)
    expect(connector.effects.filter((e) => e.op === 'capture')).to.have.length(1)
    invariants(settled, [connector])
  })

  it('takes a notification that overtakes the capture’s own answer: settled once, the late answer changes nothing', async () => {
    const { w, t, connector, deliver } = await world()
    const held = connector.hold('capture')
    const capturing = w.capture(t.id)()
    await held.arrived
    const open = await record(w, t.id)
    expect(open.pending).to.equal(true)
    await right(deliver([event({ kind: 'capture', reference: open.captures[0]?.reference ?? '' })]))
    held.release()
    const done = await capturing
    expect(E.isRight(done) && done.right.value.transaction.status).to.equal('capture_succeeded')
    const after = await record(w, t.id)
    expect(after.captures.map((c) => c.status)).to.deep.equal(['succeeded'])
    expect(after.version, 'the answer lost its write to the notification').to.equal(open.version + 1)
    expect((await published(w)).filter((n) => n === 'transaction.captured')).to.have.length(1)
  })

  it('falls back to authorized when the provider reports the capture or the void failed', async () => {
    const { w, t, deliver } = await world()
    await right(w.capture(t.id))
    const c = (await record(w, t.id)).captures[0]
    await right(deliver([event({ kind: 'capture', reference: c?.reference ?? '', outcome: 'failed', errorCode: 'declined' })]))
    const failed = await record(w, t.id)
    expect(failed).to.include({ status: 'authorization_succeeded' })
    expect(failed.captures[0]).to.include({ status: 'failed', error_code: 'declined' })

    expect((await right(w.void(t.id))).value.transaction.status).to.equal('authorization_void_pending')
    const v = (await record(w, t.id)).void
    await right(deliver([event({ kind: 'void', reference: v?.reference ?? '' })]))
    expect(await record(w, t.id)).to.include({ status: 'authorization_voided' })
    expect(await published(w)).to.deep.equal(['transaction.authorized', 'transaction.voided'])
  })

  it('keeps received refunds within what was captured, and frees what a failed one held', async () => {
    const { w, t, deliver } = await world()
    await right(w.capture(t.id))
    await right(deliver([event({ kind: 'capture', reference: (await record(w, t.id)).captures[0]?.reference ?? '' })]))
    const first = await right(w.refund(t.id, { amount: 700 }))
    expect(first.value.refunds.map((x) => x.status)).to.deep.equal(['processing'])
    expect(await left(w.refund(t.id, { amount: 600 }))).to.deep.include({ _tag: 'InvalidRequest' })
    await right(w.refund(t.id, { amount: 599 }))
    const both = await record(w, t.id)
    expect(refundable(both)).to.equal(0)
    const [a, b] = both.refunds
    await right(
      deliver([
        event({ kind: 'refund', reference: a?.reference ?? '', id: 'r1' }),
        event({ kind: 'refund', reference: b?.reference ?? '', id: 'r2', outcome: 'failed' }),
      ]),
    )
    const after = await record(w, t.id)
    expect(after.refunds.map((x) => x.status)).to.deep.equal(['succeeded', 'failed'])
    expect(refundable(after)).to.equal(599)
    expect((await published(w)).filter((n) => n.startsWith('refund.'))).to.deep.equal(['refund.succeeded', 'refund.failed'])
    // Every reference Orka sends fits the most a provider takes (Adyen: 80 characters).
    const references = [...after.attempts, ...after.captures, ...after.refunds].map((x) => x.reference)
    expect(references.filter((x) => x.length > 80)).to.deep.equal([])
  })

  it('is left alone by recovery: a received operation is awaited, not abandoned', async () => {
    const { w, t, connector } = await world()
    await right(w.capture(t.id))
    const before = await record(w, t.id)
    w.clock.advance(3_600_000)
    expect(await right(w.recover(1000))).to.deep.equal({ settled: 0, stillPending: 0 })
    expect(await record(w, t.id)).to.deep.equal(before)
    expect(connector.calls.filter((c) => c.op === 'capture')).to.have.length(1)
  })

  it('records what settles nothing in the events log once, and never undoes an outcome', async () => {
    const { w, t, deliver } = await world()
    await right(w.capture(t.id))
    const reference = (await record(w, t.id)).captures[0]?.reference ?? ''
    await right(deliver([event({ kind: 'capture', reference, outcome: 'pending', id: 'p' })]))
    expect(await record(w, t.id)).to.include({ status: 'capture_pending' })
    await right(deliver([event({ kind: 'capture', reference })]))
    await right(deliver([event({ kind: 'capture', reference, outcome: 'failed', id: 'late-failure' })]))
    const after = await record(w, t.id)
    expect(after).to.include({ status: 'capture_succeeded' })
    expect(after.events.map((e) => [e.name, e.context.applied, e.context.outcome])).to.deep.equal([
      ['payment-connector-notification', false, 'failed'],
    ])
    expect(after.notifications).to.deep.equal(['p', 'capture:' + reference + ':succeeded', 'late-failure'])
  })

  it('ignores, with the expected answer, events of unknown references, of other accounts and of other services, and odd texts', async () => {
    const { w, t, deliver } = await world()
    await right(w.capture(t.id))
    const before = await record(w, t.id)
    const reference = before.captures[0]?.reference ?? ''
    await right(deliver([event({ kind: 'capture', reference: null }), event({ kind: 'capture', reference: 'not-orka:capture' })]))
    await right(deliver([event({ kind: 'capture', reference: `00000000-0000-4000-8000-000000000000:capture:x` })]))
    // What storage could not keep as sent (a NUL, a lone surrogate, a huge text) is no event: nothing written.
    for (const odd of [{ id: 'evt\u0000x' }, { name: '\ud800' }, { rawResponseDescription: 'x'.repeat(1001) }])
      await right(deliver([{ ...event({ kind: 'capture', reference }), ...odd }]))
    expect(await record(w, t.id)).to.deep.equal(before)
    // Signed by a service of another account: that account has no such transaction.
    expect(await left(deliver([event({ kind: 'capture', reference })], { merchant: MERCHANT_B }))).to.deep.include({
      _tag: 'Unauthenticated',
    })
    expect(await record(w, t.id)).to.deep.equal(before)
  })

  it('refuses an unsigned, wrongly signed or unreadable webhook, or one to an unknown service, changing nothing', async () => {
    const { w, t, deliver } = await world()
    await right(w.capture(t.id))
    const before = await record(w, t.id)
    const settle = [event({ kind: 'capture', reference: before.captures[0]?.reference ?? '' })]
    const refused = { _tag: 'Unauthenticated', reason: "The request does not carry this payment service's signature" }
    expect(await left(deliver(settle, { signature: 'forged' }))).to.deep.equal(refused)
    expect(await left(deliver(settle, { service: '0b0b0b0b-0000-4000-8000-0000000000ff' }))).to.deep.equal(refused)
    expect(await left(deliver(settle, { body: '{"not":' }))).to.deep.include({ _tag: 'InvalidRequest' })
    expect(await record(w, t.id)).to.deep.equal(before)
  })

  it('syncs: settles what the provider says when asked, once, writing nothing for a "not yet"; a provider that cannot be asked is an error and changes nothing', async () => {
    let told: readonly ProviderEvent[] | ReturnType<typeof serviceTimeout> = serviceTimeout('card')
    const { w, t, sync } = await world(provider(() => told))
    await right(w.capture(t.id))
    const before = await record(w, t.id)
    expect(await left(sync())).to.deep.equal({ _tag: 'ServiceTimeout', service: 'card' })
    expect(await record(w, t.id)).to.deep.equal(before)
    // Told "not yet": nothing is written (asking again must not grow the events log).
    told = [event({ kind: 'capture', reference: before.captures[0]?.reference ?? '', id: 'lookup:cap:pending', outcome: 'pending' })]
    expect((await right(sync())).status).to.equal('capture_pending')
    expect(await record(w, t.id)).to.deep.equal(before)
    told = [event({ kind: 'capture', reference: before.captures[0]?.reference ?? '', id: 'lookup:cap:succeeded' })]
    expect((await right(sync())).status).to.equal('capture_succeeded')
    const after = await record(w, t.id)
    expect((await right(sync())).status).to.equal('capture_succeeded')
    expect(await versionOf(w, t.id)).to.equal(after.version)
  })
})
