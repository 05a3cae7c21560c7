import { expect } from 'chai'
import { once } from 'node:events'
import { join } from 'node:path'
import { ManualClock } from '@orka/domain/testing'
import { mintToken } from '../../src/mint-token'
import { Harness, makeFixture, startHarness } from '../support/harness'
import { eventually, quietFor, Receiver, startReceiver } from '../support/receiver'
import { WEBHOOK_TEST_ENV } from '../webhooks/delivery.suite'
import { freshDatabase, OrkaProcess, startOrkaProcess } from './support'

describe('webhook deliveries across instances and crashes (MongoDB)', function () {
  this.timeout(90000)
  let rx: Receiver
  let db: ReturnType<typeof freshDatabase>
  beforeEach(async () => {
    db = freshDatabase()
    rx = await startReceiver()
  })
  afterEach(async () => {
    await rx.close()
    await db.drop()
  })

  it('two instances share the work: each event reaches the subscriber once', async () => {
    const fixture = makeFixture()
    const clock = new ManualClock(new Date())
    const env = { ...db.env, ...WEBHOOK_TEST_ENV }
    const a: Harness = await startHarness({ fixture, clock, env })
    const b: Harness = await startHarness({ fixture, clock, env })
    try {
      const sub = await a.request('POST', '/webhook-subscriptions', { merchantAccount: 'acme', body: { url: `${rx.url}/hook` } })
      expect(sub.status).to.equal(201)
      const n = 30
      await Promise.all(
        Array.from({ length: n }, (_, i) =>
          (i % 2 ? a : b)
            .request('POST', '/buyers', { merchantAccount: 'acme', body: { external_identifier: `two-${i}` } })
            .then((r) => expect(r.status).to.equal(201)),
        ),
      )
      await eventually(
        () => (new Set(rx.received.map((r) => r.headers['x-orka-webhook-id'])).size === n ? true : undefined),
        `${n} distinct events`,
        20000,
      )
      await quietFor(1000)
      expect(rx.received).to.have.length(n)
      const names = rx.received
        .map((r) => (JSON.parse(r.body) as { target: { external_identifier: string } }).target.external_identifier)
        .sort()
      expect(names).to.deep.equal(Array.from({ length: n }, (_, i) => `two-${i}`).sort())
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('kill -9 with attempts in flight: every acknowledged event is delivered within 15 s of the restarted instance being ready', async () => {
    const fixture = makeFixture()
    // Default lease and retry schedule; the receiver holds every request until the crash.
    const env = {
      ...process.env,
      ...db.env,
      PORT: '0',
      HOST: '127.0.0.1',
      SEED_FILE: fixture.seedFile,
      DATA_DIR: join(fixture.dir, 'data'),
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '200',
      LOG_LEVEL: 'info',
    }
    const start = () => startOrkaProcess(env)
    const token = () => mintToken(fixture.pems.admin, { scopes: ['*.read', '*.write'], expiresInS: 600, now: new Date() })
    const call = (url: string, method: string, path: string, body?: unknown) =>
      fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${token()}`, 'x-orka-merchant-account-id': 'acme', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      })

    const first = await start()
    let second: OrkaProcess | undefined
    try {
      // Before the crash the receiver never answers: attempts are in flight, their claims held.
      let crashed = false
      const answered = new Set<string>()
      rx.answer = (r) => {
        if (!crashed) return 'hang'
        answered.add(r.headers['x-orka-webhook-id'] as string)
        return { status: 204 }
      }
      const sub = await call(first.url, 'POST', '/webhook-subscriptions', { url: `${rx.url}/hook` })
      expect(sub.status).to.equal(201)
      const n = 6
      for (let i = 0; i < n; i++)
        expect((await call(first.url, 'POST', '/buyers', { external_identifier: `crash-${i}` })).status).to.equal(201)
      await eventually(() => (rx.received.length >= 4 ? true : undefined), 'attempts in flight')
      first.child.kill('SIGKILL')
      await once(first.child, 'exit')
      crashed = true
      second = await start()
      const ready = second.readyAt
      await eventually(() => (answered.size >= n ? true : undefined), `${n} events delivered after the restart`, 30000)
      const tookMs = Date.now() - ready
      console.log(`      delivered ${n} events ${tookMs} ms after the restarted instance was ready`)
      expect(tookMs).to.be.below(15000)
    } finally {
      first.child.kill('SIGKILL')
      if (second) {
        second.child.kill('SIGTERM')
        await once(second.child, 'exit')
      }
    }
  })
})
