import { expect } from 'chai'
import { createHmac } from 'node:crypto'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { ErrorBody, Harness, IDS, Page, startHarness, UUID_RE } from '../support/harness'
import { OpenApiDoc } from '../support/openapi'
import { eventually, quietFor, Receiver, Received, startReceiver } from '../support/receiver'

type Json = Record<string, unknown>

/** The properties of a delivery these tests read. */
interface Delivery {
  readonly id: string
  readonly status: string
  readonly attempts: readonly Json[]
  readonly next_attempt_at: string | null
  readonly [property: string]: unknown
}

/** The properties of a subscription these tests read. */
interface Subscription {
  readonly id: string
  readonly secret: string
  readonly active: boolean
  readonly rotating: boolean
}

/** Short retries, a fast poll, and a receiver on 127.0.0.1. */
export const WEBHOOK_TEST_ENV = {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
  WEBHOOK_RETRY_DELAYS_S: '1,1',
  WEBHOOK_POLL_INTERVAL_MS: '50',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_S: '3',
}

/** The HMAC each signature must be, computed here with node's own HMAC (the sender's code is not used). */
export const expectedSignatures = (r: Received, secrets: string[], prefix = 'x-orka') => {
  const ts = r.headers[`${prefix}-webhook-timestamp`] as string
  return secrets.map((s) => createHmac('sha256', Buffer.from(s, 'utf8')).update(`${ts}.${r.body}`).digest('hex')).join(',')
}

export interface StorageUnderTest {
  readonly env: Record<string, string>
  readonly drop?: () => Promise<void>
}

/** Everything a merchant sees of deliveries, run against one storage. */
export const webhookDeliverySuite = (storage: string, open: () => StorageUnderTest) =>
  describe(`webhook deliveries (${storage})`, function () {
    this.timeout(30000)
    let h: Harness
    let rx: Receiver
    let s: StorageUnderTest
    let doc: OpenApiDoc | undefined

    beforeEach(async () => {
      s = open()
      rx = await startReceiver()
      h = await startHarness({ env: { ...s.env, ...WEBHOOK_TEST_ENV } })
      doc ??= (await (await fetch(`${h.url}/openapi.json`)).json()) as OpenApiDoc
    })
    afterEach(async () => {
      // beforeEach may have failed before setting each of these.
      const set: Partial<{ h: Harness; rx: Receiver; s: StorageUnderTest }> = { h, rx, s }
      await set.h?.close()
      await set.rx?.close()
      await set.s?.drop?.()
    })

    const subscribe = async (body: Json = {}, account = 'acme') => {
      const r = await h.request<Subscription>('POST', '/webhook-subscriptions', {
        merchantAccount: account,
        body: { url: `${rx.url}/hook`, ...body },
      })
      expect(r.status, r.text).to.equal(201)
      return r.body
    }
    const addBuyer = async (external: string, account = 'acme') => {
      const r = await h.request<Json>('POST', '/buyers', {
        merchantAccount: account,
        body: { display_name: 'Grace Hopper', external_identifier: external },
      })
      expect(r.status, r.text).to.equal(201)
      return r.body
    }
    const deliveries = async (subId: string, account = 'acme', query = '') => {
      const r = await h.request<Page<Delivery>>('GET', `/webhook-subscriptions/${subId}/deliveries${query}`, { merchantAccount: account })
      expect(r.status, r.text).to.equal(200)
      return r.body.items
    }
    const received = (n: number) =>
      eventually(() => (rx.received.length >= n ? rx.received.slice(0, n) : undefined), `${n} requests at the receiver`)
    const settled = (subId: string, status: string, attempts: number) =>
      eventually(async () => {
        const [d] = await deliveries(subId)
        return d?.status === status && d.attempts.length === attempts ? d : undefined
      }, `a ${status} delivery with ${attempts} attempts`)

    it('delivers buyer.created, signed, with the buyer exactly as the API returned it', async () => {
      const sub = await subscribe()
      const buyer = await addBuyer('wh-1')
      const [r] = await received(1)
      expect(r!.method).to.equal('POST')
      expect(r!.path).to.equal('/hook')
      expect(r!.headers['content-type']).to.equal('application/json')
      const event = JSON.parse(r!.body) as Json
      expect(event).to.deep.equal({
        type: 'event',
        id: event.id,
        name: 'buyer.created',
        created_at: h.clock.now().toISOString(),
        merchant_account_id: 'acme',
        environment: 'sandbox',
        target: buyer,
      })
      expect(event.id).to.match(UUID_RE)
      expect(r!.headers['x-orka-webhook-id']).to.equal(event.id)
      expect(r!.headers['x-orka-webhook-timestamp']).to.equal(String(Math.floor(h.clock.now().getTime() / 1000)))
      expect(r!.headers['x-orka-webhook-signatures']).to.equal(expectedSignatures(r!, [sub.secret]))

      // The payload is what the OpenAPI document's `webhooks` section says it is.
      const ajv = new Ajv2020({ strict: false })
      addFormats(ajv)
      const abs = JSON.parse(JSON.stringify(doc).replace(/"#\/components\/schemas\//g, '"urn:orka:openapi#/$defs/')) as OpenApiDoc
      ajv.addSchema({ $id: 'urn:orka:openapi', $defs: abs.components.schemas })
      const schema = abs.webhooks['buyer.created']!.post.requestBody.content['application/json']!.schema
      expect(ajv.validate(schema, event), JSON.stringify(ajv.errors)).to.equal(true)

      const d = await settled(sub.id, 'delivered', 1)
      expect(d).to.deep.equal({
        type: 'webhook-delivery',
        id: d.id,
        subscription_id: sub.id,
        event_id: event.id,
        event_name: 'buyer.created',
        status: 'delivered',
        attempts: [
          {
            attempted_at: h.clock.now().toISOString(),
            response_status: 204,
            duration_ms: d.attempts[0]!.duration_ms,
            error: null,
            response_excerpt: null,
          },
        ],
        next_attempt_at: null,
        created_at: h.clock.now().toISOString(),
      })
    })

    it('delivers gift-card.created for a stored card, without its number or PIN', async () => {
      const sub = await subscribe()
      const number = '6000000000000000301'
      const r = await h.request('POST', '/gift-cards/activations', { merchantAccount: 'acme', body: { number, pin: '1234', store: true } })
      expect(r.status, r.text).to.equal(201)
      const [got] = await received(1)
      const event = JSON.parse(got!.body) as Json
      expect(event.name).to.equal('gift-card.created')
      expect(event.target).to.deep.equal(r.body)
      expect(got!.body).not.to.include(number)
      expect(got!.body).not.to.include(number.slice(-12))
      await settled(sub.id, 'delivered', 1)
      // Not stored: no event.
      expect(
        (
          await h.request('POST', '/gift-cards/activations', {
            merchantAccount: 'acme',
            body: { number: '6000000000000000302', pin: '1234' },
          })
        ).status,
      ).to.equal(201)
      await quietFor(300)
      expect(rx.received).to.have.length(1)
    })

    it('emits nothing for a refused request or an idempotent replay', async () => {
      await subscribe()
      await addBuyer('dup')
      await received(1)
      const dup = await h.request('POST', '/buyers', { merchantAccount: 'acme', body: { external_identifier: 'dup' } })
      expect(dup.status).to.equal(409)
      const body = { number: '6000000000000000303', pin: '1234', store: true }
      const headers = { 'idempotency-key': 'wh-replay' }
      expect((await h.request('POST', '/gift-cards/activations', { merchantAccount: 'acme', body, headers })).status).to.equal(201)
      await received(2)
      const replay = await h.request('POST', '/gift-cards/activations', { merchantAccount: 'acme', body, headers })
      expect(replay.headers.get('idempotent-replayed')).to.equal('true')
      await quietFor(300)
      expect(rx.received.map((r) => (JSON.parse(r.body) as Json).name)).to.deep.equal(['buyer.created', 'gift-card.created'])
    })

    it("sends to the account's active subscriptions and the active instance-wide ones, never another account's or an inactive one", async () => {
      const mine = await subscribe()
      await subscribe({ url: `${rx.url}/inactive`, active: false })
      await subscribe({ url: `${rx.url}/other` }, 'default')
      // An instance-wide subscription: the seed's points nowhere; update it through a key bound to no account.
      const wide = await h.request('PUT', `/webhook-subscriptions/${IDS.instanceWebhook}`, { body: { url: `${rx.url}/instance` } })
      expect(wide.status, wide.text).to.equal(200)
      await addBuyer('fan-out')
      const got = await received(2)
      await quietFor(300)
      expect(rx.received.map((r) => r.path).sort()).to.deep.equal(['/hook', '/instance'])
      expect(got[0]!.headers['x-orka-webhook-id']).to.equal(got[1]!.headers['x-orka-webhook-id'])
      await settled(mine.id, 'delivered', 1)
    })

    it('retries a failed attempt on the schedule with the same event and body, then ends delivered', async () => {
      const sub = await subscribe()
      rx.answer = (_r, n) => (n < 3 ? { status: 500, body: 'try later' } : { status: 200, body: '{"ok":true}' })
      await addBuyer('retry')
      await received(1)
      const first = await settled(sub.id, 'pending', 1)
      expect(first.attempts[0]).to.deep.include({ response_status: 500, error: 'unexpected_status', response_excerpt: 'try later' })
      const pending = await h.request('POST', `/webhook-subscriptions/${sub.id}/deliveries/${first.id}/redeliver`, {
        merchantAccount: 'acme',
      })
      expect(pending.status).to.equal(409)
      expect(pending.body).to.deep.equal({
        type: 'error',
        code: 'duplicate_record',
        status: 409,
        message: 'Generic error',
        details: [
          {
            location: 'path',
            pointer: '/delivery_id',
            message: 'This delivery is still pending: its next attempt is already scheduled',
            type: 'delivery_pending',
          },
        ],
        resource_id: first.id,
      })
      const due = Date.parse(first.next_attempt_at!)
      const delay = due - h.clock.now().getTime()
      expect(delay).to.be.within(1000, 1100)
      // Not before it is due.
      await quietFor(200)
      expect(rx.received).to.have.length(1)
      h.clock.advance(1100)
      await received(2)
      await settled(sub.id, 'pending', 2)
      h.clock.advance(1100)
      await received(3)
      const done = await settled(sub.id, 'delivered', 3)
      expect(done.attempts.map((a: Json) => [a.response_status, a.error, a.response_excerpt])).to.deep.equal([
        [500, 'unexpected_status', 'try later'],
        [500, 'unexpected_status', 'try later'],
        [200, null, '{"ok":true}'],
      ])
      const ids = new Set(rx.received.map((r) => r.headers['x-orka-webhook-id']))
      const bodies = new Set(rx.received.map((r) => r.body))
      expect(ids.size).to.equal(1)
      expect(bodies.size).to.equal(1)
    })

    it('fails after the last retry, and a redelivery sends it once more', async () => {
      const sub = await subscribe()
      rx.answer = () => ({ status: 503 })
      await addBuyer('give-up')
      for (const n of [1, 2, 3]) {
        await received(n)
        await settled(sub.id, n < 3 ? 'pending' : 'failed', n)
        h.clock.advance(1100)
      }
      await quietFor(300)
      expect(rx.received).to.have.length(3)
      const [failed] = await deliveries(sub.id, 'acme', '?status=failed')
      expect(failed!.next_attempt_at).to.equal(null)

      rx.answer = () => ({ status: 202 })
      const redeliver = () =>
        h.request<ErrorBody>('POST', `/webhook-subscriptions/${sub.id}/deliveries/${failed!.id}/redeliver`, { merchantAccount: 'acme' })
      const redo = await redeliver()
      expect(redo.status, redo.text).to.equal(202)
      expect(redo.body).to.deep.equal({ ...failed, status: 'pending', next_attempt_at: h.clock.now().toISOString() })
      await received(4)
      const done = await settled(sub.id, 'delivered', 4)
      expect(done.attempts[3]).to.deep.include({ response_status: 202, error: null })
      expect(rx.received[3]!.headers['x-orka-webhook-id']).to.equal(rx.received[0]!.headers['x-orka-webhook-id'])
      // An inactive subscription is not redelivered to.
      expect(
        (await h.request('PUT', `/webhook-subscriptions/${sub.id}`, { merchantAccount: 'acme', body: { active: false } })).status,
      ).to.equal(200)
      const inactive = await redeliver()
      expect(inactive.status).to.equal(409)
      expect(inactive.body.details[0]!.type).to.equal('subscription_inactive')
      expect(inactive.body.resource_id).to.equal(sub.id)
      // A redelivery is one attempt: failing, it ends failed with no retry scheduled.
      rx.answer = () => ({ status: 500 })
      expect(
        (await h.request('PUT', `/webhook-subscriptions/${sub.id}`, { merchantAccount: 'acme', body: { active: true } })).status,
      ).to.equal(200)
      expect((await redeliver()).status).to.equal(202)
      const last = await settled(sub.id, 'failed', 5)
      expect(last.next_attempt_at).to.equal(null)
    })

    it('stops at delete: queued retries are cancelled and nothing more is sent', async () => {
      const sub = await subscribe()
      rx.answer = () => ({ status: 500 })
      await addBuyer('deleted-1')
      await received(1)
      await settled(sub.id, 'pending', 1)
      const del = await h.request('DELETE', `/webhook-subscriptions/${sub.id}`, { merchantAccount: 'acme' })
      expect(del.status).to.equal(204)
      await addBuyer('deleted-2')
      h.clock.advance(5000)
      await quietFor(500)
      expect(rx.received).to.have.length(1)
      expect((await h.request('GET', `/webhook-subscriptions/${sub.id}/deliveries`, { merchantAccount: 'acme' })).status).to.equal(404)
    })

    it('stops at deactivation: queued deliveries become cancelled, and events raised meanwhile are never sent', async () => {
      const sub = await subscribe()
      rx.answer = () => ({ status: 500 })
      await addBuyer('inactive-1')
      await received(1)
      await settled(sub.id, 'pending', 1)
      const off = await h.request<Subscription>('PUT', `/webhook-subscriptions/${sub.id}`, {
        merchantAccount: 'acme',
        body: { active: false },
      })
      expect(off.status, off.text).to.equal(200)
      expect(off.body.active).to.equal(false)
      const [cancelled] = await deliveries(sub.id)
      expect(cancelled).to.deep.include({ status: 'cancelled', next_attempt_at: null })
      await addBuyer('inactive-2')
      h.clock.advance(5000)
      await quietFor(300)
      rx.answer = () => ({ status: 204 })
      expect(
        (await h.request('PUT', `/webhook-subscriptions/${sub.id}`, { merchantAccount: 'acme', body: { active: true } })).status,
      ).to.equal(200)
      h.clock.advance(5000)
      await quietFor(300)
      expect(rx.received).to.have.length(1)
      const redo = await h.request<ErrorBody>('POST', `/webhook-subscriptions/${sub.id}/deliveries/${cancelled!.id}/redeliver`, {
        merchantAccount: 'acme',
      })
      expect(redo.status).to.equal(409)
      expect(redo.body.details[0]!.type).to.equal('delivery_cancelled')
      await addBuyer('inactive-3')
      await received(2)
    })

    it('signs with the new and the previous secret while a rotation lasts, then with the new one only', async () => {
      const sub = await subscribe()
      const rot = await h.request<Subscription>('POST', `/webhook-subscriptions/${sub.id}/rotate-secret`, {
        merchantAccount: 'acme',
        body: { delta: 60 },
      })
      expect(rot.status, rot.text).to.equal(200)
      expect(rot.body.rotating).to.equal(true)
      expect(rot.body.secret).not.to.equal(sub.secret)
      await addBuyer('rotated-1')
      const [both] = await received(1)
      expect(both!.headers['x-orka-webhook-signatures']).to.equal(expectedSignatures(both!, [rot.body.secret, sub.secret]))
      h.clock.advance(60 * 60_000 + 1)
      const after = await h.request<Subscription>('GET', `/webhook-subscriptions/${sub.id}`, { merchantAccount: 'acme' })
      expect(after.body.rotating).to.equal(false)
      await addBuyer('rotated-2')
      const [, one] = await received(2)
      expect(one!.headers['x-orka-webhook-signatures']).to.equal(expectedSignatures(one!, [rot.body.secret]))
      // Without a body the previous secret stops at once.
      const now = await h.request<Subscription>('POST', `/webhook-subscriptions/${sub.id}/rotate-secret`, { merchantAccount: 'acme' })
      expect(now.status).to.equal(200)
      expect(now.body.rotating).to.equal(false)
    })

    it('authenticates with basic credentials', async () => {
      await subscribe({ authentication: { kind: 'basic', username: 'orka', password: 'p@ss:word' } })
      await addBuyer('basic')
      const [r] = await received(1)
      expect(r!.headers.authorization).to.equal(`Basic ${Buffer.from('orka:p@ss:word').toString('base64')}`)
    })

    it('fetches an OAuth token from the token endpoint, reuses it until it expires, and sends it as Bearer', async () => {
      const tokens = await startReceiver((_r, n) => ({
        status: 200,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ access_token: `token-${n}`, token_type: 'Bearer', expires_in: 3600 }),
      }))
      try {
        await subscribe({
          authentication: {
            kind: 'oauth_client_credentials',
            client_id: 'orka',
            client_secret: 's3cret',
            token_url: `${tokens.url}/oauth/token`,
            scope: 'hooks',
          },
        })
        await addBuyer('oauth-1')
        await addBuyer('oauth-2')
        const got = await received(2)
        expect(got.map((r) => r.headers.authorization)).to.deep.equal(['Bearer token-1', 'Bearer token-1'])
        expect(tokens.received).to.have.length(1)
        const t = tokens.received[0]!
        expect(t.method).to.equal('POST')
        expect(t.headers['content-type']).to.match(/^application\/x-www-form-urlencoded/)
        expect(Object.fromEntries(new URLSearchParams(t.body))).to.deep.equal({ grant_type: 'client_credentials', scope: 'hooks' })
        expect(t.headers.authorization).to.equal(`Basic ${Buffer.from('orka:s3cret').toString('base64')}`)
      } finally {
        await tokens.close()
      }
    })

    it('counts a failing token endpoint as a failed attempt and sends nothing', async () => {
      const tokens = await startReceiver(() => ({ status: 401, body: '{"error":"invalid_client"}' }))
      try {
        const sub = await subscribe({
          authentication: {
            kind: 'oauth_password',
            client_id: 'orka',
            client_secret: 's3cret',
            token_url: `${tokens.url}/t`,
            username: 'u',
            password: 'p',
          },
        })
        await addBuyer('oauth-fail')
        const d = await settled(sub.id, 'pending', 1)
        expect(d.attempts[0]).to.deep.include({ response_status: null, error: 'authentication_failed', response_excerpt: null })
        expect(rx.received).to.have.length(0)
        expect(Object.fromEntries(new URLSearchParams(tokens.received[0]!.body))).to.deep.equal({
          grant_type: 'password',
          username: 'u',
          password: 'p',
        })
      } finally {
        await tokens.close()
      }
    })

    it('never writes a secret or credential to the log', async () => {
      const sub = await subscribe({ authentication: { kind: 'basic', username: 'orka', password: 'log-me-not-42' } })
      await addBuyer('logs')
      await settled(sub.id, 'delivered', 1)
      // The dispatcher logs the attempt just after recording it.
      const all = await eventually(() => (h.logs.join('').includes('webhook attempt') ? h.logs.join('') : undefined), 'the attempt logged')
      for (const secret of [sub.secret, 'log-me-not-42', Buffer.from('orka:log-me-not-42').toString('base64')])
        expect(all).not.to.include(secret)
    })
  })
