import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { DeliveryClaim, makeHandOver, WebhookDeliveryStatus } from '@orka/domain'
import { aDelivery, anOutboxEntry, ManualClock, uuidFor } from '@orka/domain/testing'
import { MemoryWebhookDeliveryStore, MemoryWebhookOutbox } from '@orka/adapters-memory'
import { WebhookDispatcher } from '../../src/webhook-dispatcher'
import { eventually, quietFor } from '../support/receiver'

const SUB_A = uuidFor(1)
const SUB_B = uuidFor(2)
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined }

/** A dispatcher whose attempts wait until the test ends them. */
const world = (o: { concurrency: number; perSubscription: number; pollIntervalMs?: number }) => {
  const clock = new ManualClock(new Date('2026-01-01T00:00:00Z'))
  const deliveries = new MemoryWebhookDeliveryStore()
  const outbox = new MemoryWebhookOutbox()
  const running: { claim: DeliveryClaim; done: boolean; finish: () => void }[] = []
  const dispatcher = new WebhookDispatcher({
    deliveries,
    clock,
    log: silent,
    handOver: makeHandOver({ outbox, deliveries }),
    relay: () => TE.right({ handedOver: 0, dropped: 0 }),
    attempt: (claim) => () =>
      new Promise((resolve) => {
        const r = {
          claim,
          done: false,
          finish: () => {
            if (r.done) return
            r.done = true
            void deliveries
              .settle(claim, null, { status: 'delivered', next_attempt_at: null, retries_used: 0 }, clock.now())()
              .then(() => {
                resolve({ _tag: 'Right', right: 'delivered' as WebhookDeliveryStatus })
              })
          },
        }
        running.push(r)
      }),
    config: {
      owner: 'test',
      concurrency: o.concurrency,
      perSubscription: o.perSubscription,
      leaseMs: 10_000,
      pollIntervalMs: o.pollIntervalMs ?? 20,
      relayEveryMs: 60_000,
      sweepEveryMs: 60_000,
      retentionMs: 86_400_000,
    },
  })
  return { clock, deliveries, outbox, running, dispatcher }
}

const inFlightBySubscription = (running: { claim: DeliveryClaim; done: boolean }[]) =>
  running
    .filter((r) => !r.done)
    .reduce<Record<string, number>>(
      (acc, r) => ({ ...acc, [r.claim.delivery.subscription_id]: (acc[r.claim.delivery.subscription_id] ?? 0) + 1 }),
      {},
    )

describe('WebhookDispatcher', () => {
  it('keeps at most the per-subscription and the total number of attempts in flight', async () => {
    const w = world({ concurrency: 5, perSubscription: 2 })
    const at = w.clock.now().toISOString()
    await w.deliveries.enqueue([
      ...Array.from({ length: 10 }, (_, i) =>
        aDelivery({ id: uuidFor(100 + i), subscription_id: SUB_A, next_attempt_at: at, created_at: at }),
      ),
      ...Array.from({ length: 3 }, (_, i) =>
        aDelivery({ id: uuidFor(200 + i), subscription_id: SUB_B, next_attempt_at: at, created_at: at }),
      ),
    ])()
    w.dispatcher.start()
    try {
      await eventually(() => (w.running.length === 4 ? true : undefined), 'four attempts')
      await quietFor(100)
      expect(inFlightBySubscription(w.running)).to.deep.equal({ [SUB_A]: 2, [SUB_B]: 2 })
      // An attempt of A ends: the next of A starts, and no more than 2 of A run at once.
      w.running.find((r) => r.claim.delivery.subscription_id === SUB_A)!.finish()
      await eventually(() => (w.running.length === 5 ? true : undefined), 'the next attempt of A')
      await quietFor(100)
      expect(w.running).to.have.length(5)
      expect(inFlightBySubscription(w.running)).to.deep.equal({ [SUB_A]: 2, [SUB_B]: 2 })
      // Everything drains, each delivery attempted once.
      for (;;) {
        const before = w.running.length
        w.running.forEach((r) => {
          r.finish()
        })
        await quietFor(80)
        if (w.running.length === before) break
      }
      expect(new Set(w.running.map((r) => r.claim.delivery.id)).size).to.equal(13)
      expect(w.running).to.have.length(13)
    } finally {
      await w.dispatcher.stop()
    }
  })

  it('starts the first attempt of a published event at once, without waiting for a poll', async () => {
    const w = world({ concurrency: 4, perSubscription: 4, pollIntervalMs: 60_000 })
    const entry = anOutboxEntry({ created_at: w.clock.now().toISOString(), deliveries: [{ id: uuidFor(300), subscription_id: SUB_A }] })
    await w.outbox.add(entry)()
    w.dispatcher.start()
    try {
      await w.dispatcher.publish(entry)()
      await eventually(() => (w.running.length === 1 ? true : undefined), 'the attempt', 500)
      expect(await w.outbox.olderThan(new Date(8.64e15), 10)()).to.deep.equal({ _tag: 'Right', right: [] })
      w.running[0]!.finish()
    } finally {
      await w.dispatcher.stop()
    }
  })

  it('stops starting attempts when stopped, and waits for those in flight', async () => {
    const w = world({ concurrency: 4, perSubscription: 4 })
    const at = w.clock.now().toISOString()
    await w.deliveries.enqueue([aDelivery({ id: uuidFor(400), next_attempt_at: at })])()
    w.dispatcher.start()
    await eventually(() => (w.running.length === 1 ? true : undefined), 'the attempt')
    let stopped = false
    const stopping = w.dispatcher.stop().then(() => (stopped = true))
    await w.deliveries.enqueue([aDelivery({ id: uuidFor(401), next_attempt_at: at })])()
    await quietFor(100)
    expect(stopped).to.equal(false)
    w.running[0]!.finish()
    await stopping
    expect(w.running).to.have.length(1)
  })
})
