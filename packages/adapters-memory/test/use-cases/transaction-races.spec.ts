import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import fc from 'fast-check'
import { MERCHANT_A, right, ScriptedCardConnector } from '@orka/domain/testing'
import { invariants, record, transactionWorld, TransactionWorld } from './transaction-world'

/** The one transaction of the world (the payment in flight has recorded version 0 by the time its call is held). */
const onlyTransaction = async (w: TransactionWorld): Promise<string> => {
  const [r] = await right(w.transactions.list(MERCHANT_A, {}, { direction: 'forward', from: O.none, limit: 2 }))
  if (r === undefined) throw new Error('no transaction recorded')
  return r.id
}

const operations = (w: TransactionWorld, id: string) => ({
  capture: () => w.capture(id)(),
  void: () => w.void(id)(),
  refund: () => w.refund(id)(),
  refundAll: () => w.refundAll(id)(),
  update: () => w.update(id, { metadata: { k: 'v' } })(),
})
type OperationName = keyof ReturnType<typeof operations>
const NAMES: readonly OperationName[] = ['capture', 'void', 'refund', 'refundAll', 'update']

/** A 409 whose message names the status `processing`. */
const refusedWhileProcessing = (r: E.Either<unknown, unknown>) => {
  expect(E.isLeft(r) ? r.left : r).to.deep.include({ _tag: 'Conflict' })
  const message = E.isLeft(r) ? (r.left as { problem?: { message?: string } }).problem?.message : undefined
  expect(message).to.match(/status processing/)
}

const yields = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((r) => setImmediate(r))
}

describe('operations while the authorization is in flight', () => {
  it('answers capture, void, refund and refund all with a 409 naming the status, and leaves the authorization to its flow', async () => {
    const connector = new ScriptedCardConnector()
    const w = await transactionWorld([connector])
    const held = connector.hold('authorize')
    const creating = w.create()()
    await held.arrived
    const id = await onlyTransaction(w)
    const ops = operations(w, id)
    const results = await Promise.all((['capture', 'void', 'refund', 'refundAll'] as const).map((n) => ops[n]()))
    for (const r of results) refusedWhileProcessing(r)
    expect((await record(w, id)).version, 'nothing written meanwhile').to.equal(0)

    held.release()
    const created = await creating
    expect(E.isRight(created) && created.right.value.status).to.equal('authorization_succeeded')
    expect(connector.calls.map((c) => c.op)).to.deep.equal(['authorize'])
    const r = await record(w, id)
    expect([r.status, r.pending]).to.deep.equal(['authorization_succeeded', false])
    invariants(r, [connector])
  })

  it('keeps the payment authorized and the money right, whatever operations run around the release (interleavings)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: fc.constantFrom(...NAMES), after: fc.nat(4) }), { minLength: 1, maxLength: 5 }),
        fc.nat(4),
        async (plan, releaseAfter) => {
          const connector = new ScriptedCardConnector()
          const w = await transactionWorld([connector])
          const held = connector.hold('authorize')
          const creating = w.create()()
          await held.arrived
          const id = await onlyTransaction(w)
          const ops = operations(w, id)
          let released = false
          const running = plan.map(async (p) => {
            await yields(p.after)
            const before = (await record(w, id)).status
            const result = await ops[p.name]()
            return { before, result, released }
          })
          await yields(releaseAfter)
          released = true
          held.release()
          const done = await Promise.all(running)
          const created = await creating
          expect(E.isRight(created) && created.right.value.status, 'the payment answers its authorization').to.equal(
            'authorization_succeeded',
          )
          for (const d of done) if (!d.released && d.before === 'processing') refusedWhileProcessing(d.result)
          expect(connector.calls.filter((c) => c.op === 'authorize')).to.have.length(1)
          const r = await record(w, id)
          expect(r.pending).to.equal(false)
          expect(r.attempts.map((a) => a.outcome)).to.deep.equal(['authorized'])
          invariants(r, [connector])
        },
      ),
      { numRuns: 200 },
    )
  })
})

describe('updating a transaction while a call is in flight', () => {
  it('answers a 409 naming the status while the authorization is in flight, changing nothing; the payment goes on', async () => {
    const connector = new ScriptedCardConnector()
    const w = await transactionWorld([connector])
    const held = connector.hold('authorize')
    const creating = w.create()()
    await held.arrived
    const id = await onlyTransaction(w)
    const refused = await w.update(id, { external_identifier: 'order-9', metadata: { k: 'v' } })()
    expect(E.isLeft(refused) ? refused.left : refused).to.deep.include({ _tag: 'Conflict', resourceId: id })
    expect(E.isLeft(refused) ? (refused.left as { problem?: { message?: string } }).problem?.message : undefined).to.match(
      /status processing/,
    )
    expect((await record(w, id)).version, 'nothing written').to.equal(0)
    held.release()
    const created = await creating
    expect(E.isRight(created) && created.right.value.status).to.equal('authorization_succeeded')
    const r = await record(w, id)
    expect([r.status, r.pending, r.external_identifier, r.metadata]).to.deep.equal(['authorization_succeeded', false, null, null])
    const updated = await right(w.update(id, { external_identifier: 'order-9' }))
    expect(updated.external_identifier).to.equal('order-9')
    invariants(await record(w, id), [connector])
  })

  it('answers a 409 while a capture waits for its service; the capture answers its own outcome', async () => {
    const connector = new ScriptedCardConnector()
    const w = await transactionWorld([connector])
    const { value: t } = await right(w.create())
    const held = connector.hold('capture')
    const capturing = w.capture(t.id)()
    await held.arrived
    const refused = await w.update(t.id, { external_identifier: 'order-9' })()
    expect(E.isLeft(refused) ? refused.left : refused).to.deep.include({ _tag: 'Conflict', resourceId: t.id })
    held.release()
    const captured = await capturing
    expect(E.isRight(captured) && [captured.right.value.transaction.status, captured.right.value.capture?.status]).to.deep.equal([
      'capture_succeeded',
      'succeeded',
    ])
    const r = await record(w, t.id)
    expect([r.pending, r.external_identifier]).to.deep.equal([false, null])
    invariants(r, [connector])
  })
})
