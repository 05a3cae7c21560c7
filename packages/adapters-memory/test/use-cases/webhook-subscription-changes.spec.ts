import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import {
  invalidInput,
  makeCreateWebhookSubscription,
  makeDeleteWebhookSubscription,
  makeGetWebhookSubscription,
  makeRotateWebhookSecret,
  makeUpdateWebhookSubscription,
  notFound,
  WebhookAuthenticationCreate,
  WebhookDeliveryRecord,
  WebhookScope,
  WebhookSecretRotation,
  WebhookSubscription,
  WebhookSubscriptionUpdate,
  WebhookUrlPolicy,
  makeRecordAudited,
} from '@orka/domain'
import { aDelivery, anAttempt, aWebhookRecord, ManualClock, MERCHANT_A, right, SequentialIds, uuidFor } from '@orka/domain/testing'
import { MemoryWebhookDeliveryStore, MemoryWebhookSubscriptionRepository, MemoryAuditLog } from '../../src'
import { deliveriesTo, ours, oursAndInstance, secretFrom, START, testBox, theirs, ACTOR, testMac } from './support'

const id = uuidFor
const at = (ms: number) => new Date(START.getTime() + ms).toISOString()
const MINUTE = 60_000

const SUB = id(1)
const OTHER_SUB = uuidFor(0xa09)
const URL = 'https://hooks.acme-retail.example/orka/events'
const BASIC: WebhookAuthenticationCreate = { kind: 'basic', username: 'orka-notifier', password: 's3cr3t-Passw0rd' }
const OAUTH: WebhookAuthenticationCreate = {
  kind: 'oauth_client_credentials',
  client_id: 'orka',
  client_secret: 'client-s3cr3t',
  token_url: 'https://auth.acme-retail.example/oauth/token',
  scope: 'webhooks',
}
const LOCAL = 'The URL must not point at a loopback, private, link-local, unspecified or multicast address'
const HTTPS = 'The URL must use https in production'

const SANDBOX: WebhookUrlPolicy = { requireHttps: false, allowPrivateAddresses: false }
const PRODUCTION: WebhookUrlPolicy = { requireHttps: true, allowPrivateAddresses: false }
const LOCAL_DEVELOPMENT: WebhookUrlPolicy = { requireHttps: false, allowPrivateAddresses: true }

/** The subscription every test starts from (id 1, its secret from ids 2 and 3), as the API shows it. */
const view: WebhookSubscription = {
  type: 'webhook-subscription',
  id: SUB,
  merchant_account_id: MERCHANT_A,
  active: true,
  url: URL,
  authentication: { type: 'webhook-authentication', kind: 'basic', username: 'orka-notifier', password: '********' },
  secret: secretFrom(1),
  rotating: false,
  creator: null,
}

describe('changing and deleting webhook subscriptions', () => {
  const setup = async (policy: WebhookUrlPolicy = SANDBOX) => {
    const clock = new ManualClock(START)
    const box = testBox()
    const webhooks = new MemoryWebhookSubscriptionRepository()
    const deliveries = new MemoryWebhookDeliveryStore()
    // Audit entries draw their ids elsewhere: the ids and secrets these tests expect come from `ids` alone.
    const audited = makeRecordAudited({ audit: new MemoryAuditLog(), ids: new SequentialIds(), clock })
    const deps = { webhooks, deliveries, box, clock, ids: new SequentialIds(), mac: testMac(), audited, policy }
    await right(
      makeCreateWebhookSubscription(deps)({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { url: URL, authentication: BASIC } }),
    )
    const record = async (scope: WebhookScope = ours, subId = SUB) => O.toNullable(await right(webhooks.findById(scope, subId)))
    return {
      clock,
      box,
      webhooks,
      deliveries,
      record,
      update: (input: WebhookSubscriptionUpdate, scope: WebhookScope = ours, subId = SUB) =>
        makeUpdateWebhookSubscription(deps)({ scope, actor: ACTOR, id: subId, input })(),
      rotate: (input: WebhookSecretRotation, scope: WebhookScope = ours) =>
        makeRotateWebhookSecret(deps)({ scope, actor: ACTOR, id: SUB, input })(),
      del: (scope: WebhookScope = ours, subId = SUB) => makeDeleteWebhookSubscription(deps)({ scope, actor: ACTOR, id: subId })(),
      get: (scope: WebhookScope = ours) => right(makeGetWebhookSubscription(deps)({ scope, id: SUB })),
      /** Queues deliveries to the subscription in every state, and a pending one to another subscription. */
      queue: async () => {
        const pending = aDelivery({ id: uuidFor(0xd01), subscription_id: SUB })
        const retrying = aDelivery({
          id: uuidFor(0xd02),
          subscription_id: SUB,
          attempts: [anAttempt()],
          next_attempt_at: at(MINUTE),
          retries_used: 1,
        })
        const delivered = aDelivery({
          id: uuidFor(0xd03),
          subscription_id: SUB,
          status: 'delivered',
          attempts: [anAttempt({ response_status: 200, error: null })],
          next_attempt_at: null,
        })
        const failed = aDelivery({
          id: uuidFor(0xd04),
          subscription_id: SUB,
          status: 'failed',
          attempts: [anAttempt()],
          next_attempt_at: null,
          retries_used: 2,
        })
        const elsewhere = aDelivery({ id: uuidFor(0xd05), subscription_id: OTHER_SUB })
        await right(deliveries.enqueue([pending, retrying, delivered, failed, elsewhere]))
        return { pending, retrying, delivered, failed, elsewhere }
      },
      deliveriesOf: async (subId: string) => [...(await deliveriesTo(deliveries, subId))].sort((a, b) => a.id.localeCompare(b.id)),
    }
  }
  type Setup = Awaited<ReturnType<typeof setup>>

  const cancelledAt = (d: WebhookDeliveryRecord, ms: number): WebhookDeliveryRecord => ({
    ...d,
    status: 'cancelled',
    next_attempt_at: null,
    updated_at: at(ms),
  })

  /** Runs `change` and checks it left the subscription and its deliveries exactly as they were. */
  const changesNothing = async (s: Setup, change: () => Promise<unknown>) => {
    const before = await s.record()
    const deliveriesBefore = await s.deliveriesOf(SUB)
    await change()
    expect(await s.record()).to.deep.equal(before)
    expect(await s.deliveriesOf(SUB)).to.deep.equal(deliveriesBefore)
  }

  describe('update', () => {
    it('changes the URL and leaves everything the input does not name', async () => {
      const s = await setup()
      const before = await s.record()
      expect(await s.update({ url: 'https://hooks.acme-retail.example/orka/v2' })).to.deep.equal(
        E.right({ ...view, url: 'https://hooks.acme-retail.example/orka/v2' }),
      )
      expect(await s.record()).to.deep.equal({ ...before, url: 'https://hooks.acme-retail.example/orka/v2' })
      expect(await s.get()).to.deep.equal({ ...view, url: 'https://hooks.acme-retail.example/orka/v2' })
    })

    it('an empty input, or null url and active, change nothing', async () => {
      const s = await setup()
      const { pending } = await s.queue()
      await changesNothing(s, async () => {
        expect(await s.update({})).to.deep.equal(E.right(view))
        expect(await s.update({ url: null, active: null })).to.deep.equal(E.right(view))
      })
      expect((await s.deliveriesOf(SUB))[0]).to.deep.equal(pending)
    })

    it('replaces the authentication, storing its secrets sealed', async () => {
      const s = await setup()
      expect(await s.update({ authentication: OAUTH })).to.deep.equal(
        E.right({
          ...view,
          authentication: {
            type: 'webhook-authentication',
            kind: 'oauth_client_credentials',
            client_id: 'orka',
            client_secret: '********',
            token_url: 'https://auth.acme-retail.example/oauth/token',
            scope: 'webhooks',
          },
        }),
      )
      const stored = (await s.record())!.authentication!
      expect(JSON.stringify(stored)).not.to.include('client-s3cr3t')
      expect({ ...stored, client_secret: s.box.open(stored.client_secret!) }).to.deep.equal(OAUTH)
    })

    it('removes the authentication with null', async () => {
      const s = await setup()
      const before = await s.record()
      expect(await s.update({ authentication: null })).to.deep.equal(E.right({ ...view, authentication: null }))
      expect(await s.record()).to.deep.equal({ ...before, authentication: null })
    })

    it('deactivating cancels the pending deliveries of that subscription, and only those', async () => {
      const s = await setup()
      const { pending, retrying, delivered, failed, elsewhere } = await s.queue()
      s.clock.advance(5_000)
      expect(await s.update({ active: false })).to.deep.equal(E.right({ ...view, active: false }))
      expect(await s.deliveriesOf(SUB)).to.deep.equal([cancelledAt(pending, 5_000), cancelledAt(retrying, 5_000), delivered, failed])
      expect(await s.deliveriesOf(OTHER_SUB)).to.deep.equal([elsewhere])

      // Activating again brings nothing cancelled back.
      s.clock.advance(5_000)
      expect(await s.update({ active: true })).to.deep.equal(E.right(view))
      expect(await s.deliveriesOf(SUB)).to.deep.equal([cancelledAt(pending, 5_000), cancelledAt(retrying, 5_000), delivered, failed])
    })

    for (const url of [
      'http://127.0.0.1/x',
      'http://localhost/x',
      'https://10.1.2.3/hook',
      'http://[::1]/x',
      'http://169.254.169.254/latest',
    ]) {
      it(`refuses ${url} with InvalidInput at ['url'], changing nothing`, async () => {
        const s = await setup()
        await s.queue()
        await changesNothing(s, async () => {
          expect(await s.update({ url, active: false })).to.deep.equal(E.left(invalidInput({ path: ['url'], msg: LOCAL })))
        })
      })
    }

    it("refuses a private token_url at ['authentication', 'token_url'], changing nothing", async () => {
      const s = await setup()
      await changesNothing(s, async () => {
        expect(await s.update({ authentication: { ...OAUTH, token_url: 'http://192.168.1.10/token' } })).to.deep.equal(
          E.left(invalidInput({ path: ['authentication', 'token_url'], msg: LOCAL })),
        )
      })
    })

    it('reports a refused url and token_url together', async () => {
      const s = await setup()
      await changesNothing(s, async () => {
        expect(
          await s.update({ url: 'http://localhost/x', authentication: { ...OAUTH, token_url: 'http://localhost/token' } }),
        ).to.deep.equal(E.left(invalidInput({ path: ['url'], msg: LOCAL }, { path: ['authentication', 'token_url'], msg: LOCAL })))
      })
    })

    it('in production refuses plain http, for the url and the token_url', async () => {
      const s = await setup(PRODUCTION)
      await changesNothing(s, async () => {
        expect(await s.update({ url: 'http://hooks.acme-retail.example/orka' })).to.deep.equal(
          E.left(invalidInput({ path: ['url'], msg: HTTPS })),
        )
        expect(await s.update({ authentication: { ...OAUTH, token_url: 'http://auth.acme-retail.example/token' } })).to.deep.equal(
          E.left(invalidInput({ path: ['authentication', 'token_url'], msg: HTTPS })),
        )
      })
      expect(await s.update({ url: 'https://hooks.acme-retail.example/orka/v2' })).to.deep.equal(
        E.right({ ...view, url: 'https://hooks.acme-retail.example/orka/v2' }),
      )
    })

    it('accepts a loopback URL where the policy allows private addresses', async () => {
      const s = await setup(LOCAL_DEVELOPMENT)
      expect(await s.update({ url: 'http://localhost:8080/hooks' })).to.deep.equal(E.right({ ...view, url: 'http://localhost:8080/hooks' }))
    })

    it("answers NotFound for an unknown id and for another account's subscription, changing nothing", async () => {
      const s = await setup()
      await s.queue()
      await changesNothing(s, async () => {
        expect(await s.update({ active: false }, theirs)).to.deep.equal(E.left(notFound('WebhookSubscription', SUB)))
        expect(await s.update({ active: false }, ours, id(99))).to.deep.equal(E.left(notFound('WebhookSubscription', id(99))))
      })
    })

    it('changes an instance-wide subscription only through a scope that includes it', async () => {
      const s = await setup()
      const instanceWide = aWebhookRecord({
        id: uuidFor(0xa50),
        merchant_account_id: null,
        authentication: null,
        sealed_secret: s.box.seal('instance'),
      })
      await right(s.webhooks.create(instanceWide))
      expect(await s.update({ active: false }, ours, instanceWide.id)).to.deep.equal(
        E.left(notFound('WebhookSubscription', instanceWide.id)),
      )
      expect(await s.record(oursAndInstance, instanceWide.id)).to.deep.equal(instanceWide)
      expect(await s.update({ active: false }, oursAndInstance, instanceWide.id)).to.deep.equal(
        E.right({ ...view, id: instanceWide.id, merchant_account_id: null, active: false, authentication: null, secret: 'instance' }),
      )
    })
  })

  describe('rotate-secret', () => {
    it('without a delta, replaces the secret at once: no previous secret, not rotating', async () => {
      const s = await setup()
      const before = await s.record()
      const rotated = await s.rotate({})
      expect(rotated).to.deep.equal(E.right({ ...view, secret: secretFrom(3), rotating: false }))
      const after = (await s.record())!
      expect(s.box.open(after.sealed_secret)).to.equal(secretFrom(3))
      expect({ ...after, sealed_secret: before!.sealed_secret }).to.deep.equal(before)
    })

    it('treats a delta of 0 or null as no delta', async () => {
      for (const input of [{ delta: 0 }, { delta: null }]) {
        const s = await setup()
        expect(await s.rotate(input)).to.deep.equal(E.right({ ...view, secret: secretFrom(3), rotating: false }))
        const after = (await s.record())!
        expect([after.previous_sealed_secret, after.previous_secret_expires_at]).to.deep.equal([null, null])
      }
    })

    it('with a delta of 60, keeps the old secret as the previous one for exactly 60 minutes', async () => {
      const s = await setup()
      const oldSealed = (await s.record())!.sealed_secret
      expect(await s.rotate({ delta: 60 })).to.deep.equal(E.right({ ...view, secret: secretFrom(3), rotating: true }))
      const after = (await s.record())!
      expect(after.previous_sealed_secret).to.equal(oldSealed)
      expect(s.box.open(after.previous_sealed_secret!)).to.equal(secretFrom(1))
      expect(after.previous_secret_expires_at).to.equal(at(60 * MINUTE))

      s.clock.advance(60 * MINUTE - 1)
      expect(await s.get()).to.deep.equal({ ...view, secret: secretFrom(3), rotating: true })
      s.clock.advance(1)
      expect(await s.get()).to.deep.equal({ ...view, secret: secretFrom(3), rotating: false })
    })

    it('a rotation during a rotation keeps only the latest previous secret', async () => {
      const s = await setup()
      await s.rotate({ delta: 60 })
      const secondSealed = (await s.record())!.sealed_secret
      s.clock.advance(10 * MINUTE)
      expect(await s.rotate({ delta: 30 })).to.deep.equal(E.right({ ...view, secret: secretFrom(5), rotating: true }))
      const after = (await s.record())!
      expect([s.box.open(after.sealed_secret), after.previous_sealed_secret, after.previous_secret_expires_at]).to.deep.equal([
        secretFrom(5),
        secondSealed,
        at(40 * MINUTE),
      ])
      s.clock.set(new Date(START.getTime() + 40 * MINUTE))
      expect(await s.get()).to.deep.equal({ ...view, secret: secretFrom(5), rotating: false })
    })

    it('a rotation without a delta during a rotation ends the previous secret at once', async () => {
      const s = await setup()
      await s.rotate({ delta: 60 })
      expect(await s.rotate({})).to.deep.equal(E.right({ ...view, secret: secretFrom(5), rotating: false }))
      const after = (await s.record())!
      expect([after.previous_sealed_secret, after.previous_secret_expires_at]).to.deep.equal([null, null])
    })

    it("answers NotFound for another account's subscription, changing nothing", async () => {
      const s = await setup()
      await changesNothing(s, async () => {
        expect(await s.rotate({ delta: 60 }, theirs)).to.deep.equal(E.left(notFound('WebhookSubscription', SUB)))
      })
    })
  })

  describe('delete', () => {
    it('cancels the pending deliveries and leaves delivered and failed ones, and other subscriptions\u2019', async () => {
      const s = await setup()
      const { pending, retrying, delivered, failed, elsewhere } = await s.queue()
      s.clock.advance(5_000)
      expect(await s.del()).to.deep.equal(E.right(undefined))
      expect(await s.record()).to.equal(null)
      expect(await s.deliveriesOf(SUB)).to.deep.equal([cancelledAt(pending, 5_000), cancelledAt(retrying, 5_000), delivered, failed])
      expect(await s.deliveriesOf(OTHER_SUB)).to.deep.equal([elsewhere])
    })

    it("answers NotFound for another account's subscription and leaves its deliveries pending", async () => {
      const s = await setup()
      await s.queue()
      await changesNothing(s, async () => {
        expect(await s.del(theirs)).to.deep.equal(E.left(notFound('WebhookSubscription', SUB)))
      })
    })
  })
})
