import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import {
  makeAttemptDelivery,
  makeCreateWebhookSubscription,
  makeRotateWebhookSecret,
  makeUpdateWebhookSubscription,
  RetrySchedule,
  WebhookDeliveryRecord,
  WebhookResponse,
  WebhookSubscriptionCreate,
  makeRecordAudited,
} from '@orka/domain'
import { ManualClock, MERCHANT_A, right, SequentialIds, uuidFor } from '@orka/domain/testing'
import { MemoryWebhookDeliveryStore, MemoryWebhookSubscriptionRepository, MemoryAuditLog } from '../../src'
import { fixedRandom, ours, ScriptedSender, START, testBox, ACTOR, testMac } from './support'

const at = (ms: number) => new Date(START.getTime() + ms).toISOString()
const MINUTE = 60_000

const EVENT_ID = uuidFor(0xe01)
const BODY =
  `{"type":"event","id":"${EVENT_ID}","name":"buyer.created","created_at":"2025-01-15T10:00:00.000Z",` +
  `"merchant_account_id":"${MERCHANT_A}","environment":"sandbox","target":{"type":"buyer"}}`
/** Two retries, after 60 s and 10 min, each up to 20 % later. */
const SCHEDULE: RetrySchedule = { delaysS: [60, 600], jitter: 0.2 }
/** The jitter drawn: half of the most, so every delay is 10 % longer. */
const RANDOM = 0.5

const basic: WebhookSubscriptionCreate = {
  url: 'https://hooks.acme-retail.example/orka/events',
  authentication: { kind: 'basic', username: 'orka-notifier', password: 's3cr3t-Passw0rd' },
}

const ok = (durationMs = 87): WebhookResponse => ({ status: 200, error: null, excerpt: '{"received":true}', durationMs })
const serverError = (durationMs = 250): WebhookResponse => ({
  status: 500,
  error: 'unexpected_status',
  excerpt: 'Internal Server Error',
  durationMs,
})
const timedOut: WebhookResponse = { status: null, error: 'timeout', excerpt: null, durationMs: 10_000 }

describe('makeAttemptDelivery', () => {
  const setup = async (
    o: { script?: WebhookResponse[]; input?: WebhookSubscriptionCreate; delivery?: Partial<WebhookDeliveryRecord> } = {},
  ) => {
    const clock = new ManualClock(START)
    const box = testBox()
    const webhooks = new MemoryWebhookSubscriptionRepository()
    const deliveries = new MemoryWebhookDeliveryStore()
    const sender = new ScriptedSender(o.script ?? [], clock)
    const ids = new SequentialIds()
    const deps = {
      webhooks,
      deliveries,
      box,
      clock,
      ids,
      mac: testMac(),
      audited: makeRecordAudited({ audit: new MemoryAuditLog(), ids, clock }),
      policy: { requireHttps: false, allowPrivateAddresses: false },
    }
    const sub = await right(makeCreateWebhookSubscription(deps)({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: o.input ?? basic }))
    const delivery: WebhookDeliveryRecord = {
      id: uuidFor(0xd01),
      subscription_id: sub.id,
      merchant_account_id: MERCHANT_A,
      event_id: EVENT_ID,
      event_name: 'buyer.created',
      body: BODY,
      status: 'pending',
      attempts: [],
      next_attempt_at: START.toISOString(),
      retries_used: 0,
      created_at: START.toISOString(),
      updated_at: START.toISOString(),
      ...o.delivery,
    }
    await right(deliveries.enqueue([delivery]))
    const attempt = makeAttemptDelivery({ webhooks, deliveries, sender, box, clock, random: fixedRandom(RANDOM), schedule: SCHEDULE })
    const stored = async () => O.toNullable(await right(deliveries.findById(sub.id, delivery.id)))
    /** Takes the delivery's next attempt, as a dispatcher would. */
    const claim = async () => {
      const now = clock.now()
      const c = await right(deliveries.claim((await stored())!, 'worker-1', now, new Date(now.getTime() + 30_000)))
      if (O.isNone(c)) throw new Error('the delivery could not be claimed')
      return c.value
    }
    return {
      ...deps,
      sender,
      sub,
      delivery,
      stored,
      claim,
      attempt: async (c: Awaited<ReturnType<typeof claim>>) => right(attempt(c)),
      run: async () => right(attempt(await claim())),
      rotate: (delta?: number) =>
        right(makeRotateWebhookSecret(deps)({ scope: ours, actor: ACTOR, id: sub.id, input: delta === undefined ? {} : { delta } })),
      update: makeUpdateWebhookSubscription(deps),
    }
  }

  describe('the request', () => {
    it('carries the delivery body exactly, its event id, the time in seconds, the current secret and the opened credentials', async () => {
      const s = await setup({ script: [ok()] })
      s.clock.advance(1_999)
      await s.run()
      expect(s.sender.requests).to.deep.equal([
        {
          url: 'https://hooks.acme-retail.example/orka/events',
          body: BODY,
          eventId: EVENT_ID,
          timestamp: 1_736_935_201,
          secrets: [s.sub.secret],
          authentication: { kind: 'basic', username: 'orka-notifier', password: 's3cr3t-Passw0rd' },
          subscriptionId: s.sub.id,
        },
      ])
    })

    it('opens every secret of an OAuth configuration, and sends none for a subscription without one', async () => {
      const oauth: WebhookSubscriptionCreate = {
        url: 'https://hooks.acme-retail.example/orka/oauth',
        authentication: {
          kind: 'oauth_password',
          client_id: 'orka',
          client_secret: 'client-s3cr3t',
          token_url: 'https://auth.acme-retail.example/oauth/token',
          username: 'orka-notifier',
          password: 's3cr3t-Passw0rd',
          scope: null,
        },
      }
      const withOauth = await setup({ script: [ok()], input: oauth })
      await withOauth.run()
      expect(withOauth.sender.requests.map((r) => r.authentication)).to.deep.equal([oauth.authentication])

      const without = await setup({ script: [ok()], input: { url: 'https://hooks.acme-retail.example/orka/plain' } })
      await without.run()
      expect(without.sender.requests.map((r) => [r.url, r.authentication])).to.deep.equal([
        ['https://hooks.acme-retail.example/orka/plain', null],
      ])
    })

    it('goes to the subscription as it is now: a URL changed since the event was queued', async () => {
      const s = await setup({ script: [ok()] })
      await right(s.update({ scope: ours, actor: ACTOR, id: s.sub.id, input: { url: 'https://hooks.acme-retail.example/orka/v2' } }))
      await s.run()
      expect(s.sender.requests.map((r) => r.url)).to.deep.equal(['https://hooks.acme-retail.example/orka/v2'])
    })
  })

  describe('signing secrets', () => {
    it('after a rotation with a delta, signs with the new secret first and the previous one, until the delta ends', async () => {
      const s = await setup({ script: [serverError(0), ok()] })
      const rotated = await s.rotate(60)
      await s.run()
      s.clock.set(new Date(START.getTime() + 60 * MINUTE))
      await s.run()
      expect(s.sender.requests.map((r) => r.secrets)).to.deep.equal([[rotated.secret, s.sub.secret], [rotated.secret]])
    })

    it('after a rotation without a delta, signs with the new secret alone', async () => {
      const s = await setup({ script: [ok()] })
      const rotated = await s.rotate()
      await s.run()
      expect(s.sender.requests.map((r) => r.secrets)).to.deep.equal([[rotated.secret]])
      expect(rotated.secret).not.to.equal(s.sub.secret)
    })

    it('after a rotation during a rotation, signs with the newest secret and the one it replaced only', async () => {
      const s = await setup({ script: [ok()] })
      const second = await s.rotate(60)
      s.clock.advance(10 * MINUTE)
      const third = await s.rotate(30)
      await s.run()
      expect(s.sender.requests.map((r) => r.secrets)).to.deep.equal([[third.secret, second.secret]])
    })
  })

  describe('after the attempt', () => {
    it('a 2xx answer delivers it, with the attempt logged', async () => {
      const s = await setup({ script: [ok(87)] })
      expect(await s.run()).to.equal('delivered')
      expect(await s.stored()).to.deep.equal({
        ...s.delivery,
        status: 'delivered',
        attempts: [{ attempted_at: at(0), response_status: 200, duration_ms: 87, error: null, response_excerpt: '{"received":true}' }],
        next_attempt_at: null,
        retries_used: 0,
        updated_at: at(87),
      })
    })

    it('a failed attempt waits for the first delay of the schedule, stretched by the jitter, counted from the answer', async () => {
      const s = await setup({ script: [serverError(250)] })
      expect(await s.run()).to.equal('pending')
      expect(await s.stored()).to.deep.equal({
        ...s.delivery,
        status: 'pending',
        attempts: [
          {
            attempted_at: at(0),
            response_status: 500,
            duration_ms: 250,
            error: 'unexpected_status',
            response_excerpt: 'Internal Server Error',
          },
        ],
        // 60 s * (1 + 0.2 * 0.5)
        next_attempt_at: at(250 + 66_000),
        retries_used: 1,
        updated_at: at(250),
      })
    })

    it('an attempt without an answer (timeout) fails the same way', async () => {
      const s = await setup({ script: [timedOut] })
      expect(await s.run()).to.equal('pending')
      expect(await s.stored()).to.deep.equal({
        ...s.delivery,
        status: 'pending',
        attempts: [{ attempted_at: at(0), response_status: null, duration_ms: 10_000, error: 'timeout', response_excerpt: null }],
        next_attempt_at: at(10_000 + 66_000),
        retries_used: 1,
        updated_at: at(10_000),
      })
    })

    it('a failed first retry waits for the second delay', async () => {
      const s = await setup({ script: [serverError(250)], delivery: { retries_used: 1 } })
      expect(await s.run()).to.equal('pending')
      expect(await s.stored()).to.deep.equal({
        ...s.delivery,
        status: 'pending',
        attempts: [
          {
            attempted_at: at(0),
            response_status: 500,
            duration_ms: 250,
            error: 'unexpected_status',
            response_excerpt: 'Internal Server Error',
          },
        ],
        // 600 s * (1 + 0.2 * 0.5)
        next_attempt_at: at(250 + 660_000),
        retries_used: 2,
        updated_at: at(250),
      })
    })

    it('a failed attempt once the schedule is spent fails the delivery for good', async () => {
      const s = await setup({ script: [serverError(250)], delivery: { retries_used: 2 } })
      expect(await s.run()).to.equal('failed')
      expect(await s.stored()).to.deep.equal({
        ...s.delivery,
        status: 'failed',
        attempts: [
          {
            attempted_at: at(0),
            response_status: 500,
            duration_ms: 250,
            error: 'unexpected_status',
            response_excerpt: 'Internal Server Error',
          },
        ],
        next_attempt_at: null,
        retries_used: 2,
        updated_at: at(250),
      })
    })

    it('runs the whole schedule, one attempt and a retry per delay, then fails', async () => {
      const s = await setup({ script: [serverError(100), serverError(100), serverError(100)] })
      const statuses = []
      for (let i = 0; i < 3; i++) {
        const due = (await s.stored())!.next_attempt_at!
        s.clock.set(new Date(due))
        statuses.push(await s.run())
      }
      const failure = (ms: number) => ({
        attempted_at: at(ms),
        response_status: 500,
        duration_ms: 100,
        error: 'unexpected_status',
        response_excerpt: 'Internal Server Error',
      })
      expect(statuses).to.deep.equal(['pending', 'pending', 'failed'])
      expect(await s.stored()).to.deep.equal({
        ...s.delivery,
        status: 'failed',
        attempts: [failure(0), failure(66_100), failure(66_100 + 100 + 660_000)],
        next_attempt_at: null,
        retries_used: 2,
        updated_at: at(66_100 + 100 + 660_000 + 100),
      })
    })
  })

  describe('a subscription gone since the delivery was queued', () => {
    it('deleted: the delivery is cancelled, nothing is sent and no attempt logged', async () => {
      const s = await setup()
      const claim = await s.claim()
      expect(await right(s.webhooks.delete(ours, s.sub.id))).to.equal(true)
      s.clock.advance(5)
      expect(await s.attempt(claim)).to.equal('cancelled')
      expect(s.sender.requests).to.deep.equal([])
      expect(await s.stored()).to.deep.equal({ ...s.delivery, status: 'cancelled', next_attempt_at: null, updated_at: at(5) })
    })

    it('deactivated: the delivery is cancelled, nothing is sent and no attempt logged', async () => {
      const s = await setup()
      const claim = await s.claim()
      const record = O.toNullable(await right(s.webhooks.findById(ours, s.sub.id)))!
      expect(await right(s.webhooks.update(ours, { ...record, active: false }))).to.equal(true)
      s.clock.advance(5)
      expect(await s.attempt(claim)).to.equal('cancelled')
      expect(s.sender.requests).to.deep.equal([])
      expect(await s.stored()).to.deep.equal({ ...s.delivery, status: 'cancelled', next_attempt_at: null, updated_at: at(5) })
    })

    it('deactivated through the use case while claimed: still nothing is sent', async () => {
      const s = await setup()
      const claim = await s.claim()
      await right(s.update({ scope: ours, actor: ACTOR, id: s.sub.id, input: { active: false } }))
      expect(await s.attempt(claim)).to.equal('cancelled')
      expect(s.sender.requests).to.deep.equal([])
      expect(await s.stored()).to.deep.equal({ ...s.delivery, status: 'cancelled', next_attempt_at: null })
    })
  })
})
