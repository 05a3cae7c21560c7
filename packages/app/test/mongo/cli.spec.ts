import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mintToken } from '../../src/mint-token'
import { startHarness } from '../support/harness'
import { freshDatabase } from './support'

const cli = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [join(__dirname, '..', '..', 'src', 'cli.js'), ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 30000,
  })

describe('CLI against MongoDB', function () {
  this.timeout(60000)
  let db: ReturnType<typeof freshDatabase>
  beforeEach(() => {
    db = freshDatabase()
  })
  afterEach(() => db.drop())

  it('seeds, creates a key whose token a server accepts, lists it, revokes it, and the server refuses it within LOOKUP_CACHE_MS', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orka-cli-'))
    const seedFile = join(dir, 'seed.json')
    writeFileSync(seedFile, JSON.stringify({ merchant_accounts: [{ id: 'acme', display_name: 'Acme' }] }))
    const seeded = cli(['seed', seedFile], db.env)
    expect([seeded.status, seeded.stdout]).to.deep.equal([0, `applied ${seedFile}\n`])
    expect(cli(['seed', seedFile], db.env).status).to.equal(0)

    const created = cli(['keys', 'create', '--merchant-account', 'acme', '--role', 'read-only'], db.env)
    expect(created.status, created.stderr).to.equal(0)
    const pem = /-----BEGIN PRIVATE KEY-----[\s\S]+?-----END PRIVATE KEY-----/.exec(created.stdout)![0]
    const id = /\nid: (\S+)/.exec(created.stdout)![1]!
    const kid = /\nkid: (\S+)/.exec(created.stdout)![1]!

    const listed = cli(['keys', 'list'], db.env)
    expect(listed.status).to.equal(0)
    const row = listed.stdout
      .split('\n')
      .find((l) => l.startsWith(id))!
      .split('\t')
    expect(row.slice(0, 5)).to.deep.equal([id, kid, 'acme', 'read-only', 'active'])

    const h = await startHarness({ env: db.env })
    try {
      const token = mintToken(pem, { scopes: ['roles.read'], expiresInS: 300, now: h.clock.now() })
      expect((await h.request('GET', '/roles', { auth: token, merchantAccount: 'acme' })).status).to.equal(200)
      expect((await h.request('GET', '/roles', { auth: token, merchantAccount: 'default' })).status).to.equal(403)
      expect(cli(['keys', 'revoke', id], db.env).stdout).to.equal(`revoked ${id}\n`)
      // Revoked by another process: this instance sees it once its lookup cache (LOOKUP_CACHE_MS, 5 s) has let go.
      h.clock.advance(5000)
      const fresh = mintToken(pem, { scopes: ['roles.read'], expiresInS: 300, now: h.clock.now() })
      const refused = await h.request('GET', '/roles', { auth: fresh, merchantAccount: 'acme' })
      expect(refused.status).to.equal(401)
    } finally {
      await h.close()
    }
    expect(cli(['keys', 'list'], db.env).stdout).to.match(new RegExp(`${id}\\t[^\\n]*\\trevoked\\t`))
  })

  it('refuses an unknown role (exit 2), an unknown merchant account and an unknown key (exit 1)', () => {
    const role = cli(['keys', 'create', '--role', 'root'], db.env)
    expect(role.status).to.equal(2)
    expect(role.stderr).to.match(/^orka: keys create: unknown role 'root'/)
    const account = cli(['keys', 'create', '--merchant-account', 'nope'], db.env)
    expect([account.status, account.stderr]).to.deep.equal([1, "orka: keys create: no merchant account 'nope'\n"])
    const revoke = cli(['keys', 'revoke', '00000000-0000-4000-8000-000000000000'], db.env)
    expect([revoke.status, revoke.stderr]).to.deep.equal([1, "orka: keys revoke: no API key pair '00000000-0000-4000-8000-000000000000'\n"])
  })
})
