import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { freePort } from '../../bench/processes'
import { mintToken } from '../../src/mint-token'
import { makeFixture } from '../support/harness'
import { call, clusterListening, servedBy, spawnOrka } from './cluster-process'
import { freshDatabase } from './support'

describe('metrics with WORKERS=2 on MongoDB: the primary serves the aggregate of every worker', function () {
  this.timeout(120_000)

  it('one scrape counts the requests of both workers, and MongoDB commands by name', async () => {
    const db = freshDatabase()
    const fixture = makeFixture()
    const metricsPort = await freePort()
    const orka = spawnOrka({
      ...process.env,
      ...db.env,
      WORKERS: '2',
      PORT: '0',
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      SEED_FILE: fixture.seedFile,
      DATA_DIR: join(fixture.dir, 'data'),
      LOG_LEVEL: 'info',
    })
    try {
      const { url, pids } = await clusterListening(orka, 2)
      const metricsLine = orka.lines().find((l) => l.role === 'primary' && typeof l.metricsUrl === 'string')
      expect(metricsLine?.metricsUrl).to.equal(`http://127.0.0.1:${metricsPort}/metrics`)
      const admin = mintToken(fixture.pems.admin, { scopes: ['*.read', '*.write'], expiresInS: 600 })
      const ids = Array.from({ length: 10 }, (_, i) => `metrics-roles-${i}`)
      for (const requestId of ids)
        expect(
          (await call(url, 'GET', '/roles?limit=1', { headers: { authorization: `Bearer ${admin}`, 'x-request-id': requestId } })).status,
        ).to.equal(200)
      // Both workers served some: the aggregate is the sum of both.
      const served = await Promise.all(ids.map((r) => servedBy(orka, r)))
      expect(new Set(served)).to.deep.equal(new Set(pids))
      const r = await fetch(`http://127.0.0.1:${metricsPort}/metrics`)
      expect(r.status).to.equal(200)
      const text = await r.text()
      expect(text).to.match(
        /^http_server_request_duration_seconds_count\{http_request_method="GET",http_route="\/roles",http_response_status_code="200"\} 10$/m,
      )
      expect(text).to.match(/^orka_storage_operation_duration_seconds_count\{store="mongodb",command="find"\} \d+$/m)
      const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' })
      if (check.error !== undefined) throw new Error(`promtool is not installed (Debian's prometheus package): ${check.error.message}`)
      expect([check.status, check.stdout + check.stderr]).to.deep.equal([0, ''])
    } finally {
      if (orka.child.exitCode === null && orka.child.signalCode === null) {
        orka.child.kill('SIGTERM')
        await orka.exited
      }
      await db.drop()
    }
  })
})
