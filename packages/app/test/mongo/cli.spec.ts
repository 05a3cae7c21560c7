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

  it("lists, adds and changes an account's card services, starting from the default mock-card one", () => {
    const dir = mkdtempSync(join(tmpdir(), 'orka-cli-'))
    const seedFile = join(dir, 'seed.json')
    writeFileSync(seedFile, JSON.stringify({ merchant_accounts: [{ id: 'acme', display_name: 'Acme' }] }))
    expect(cli(['seed', seedFile], db.env).status).to.equal(0)
    const rows = (args: string[]) => {
      const r = cli(['payment-services', 'list', ...args], db.env)
      expect(r.status, r.stderr).to.equal(0)
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t'))
    }
    const [header, mock] = rows(['--merchant-account', 'acme'])
    expect(header).to.deep.equal(['ID', 'MERCHANT ACCOUNT', 'DEFINITION', 'POSITION', 'STATE', 'CURRENCIES', 'FIELDS', 'DISPLAY NAME'])
    expect(mock!.slice(1)).to.deep.equal(['acme', 'mock-card', '0', 'active', '*', '-', 'Mock cards'])

    const added = cli(
      [
        'payment-services',
        'add',
        '--merchant-account',
        'acme',
        '--display-name',
        'Backup cards',
        '--position',
        '1',
        '--currencies',
        'USD,EUR',
      ],
      db.env,
    )
    expect(added.status, added.stderr).to.equal(0)
    const id = /^added (\S+)\n$/.exec(added.stdout)![1]!
    expect(rows(['--merchant-account', 'acme']).slice(1)).to.deep.equal([
      mock,
      [id, 'acme', 'mock-card', '1', 'active', 'USD,EUR', '-', 'Backup cards'],
    ])

    const down = cli(
      ['payment-services', 'set', mock![0]!, '--merchant-account', 'acme', '--field', 'mode=down', '--position', '2'],
      db.env,
    )
    expect([down.status, down.stdout]).to.deep.equal([0, `updated ${mock![0]!}\n`])
    const off = cli(['payment-services', 'set', id, '--merchant-account', 'acme', '--active', 'false'], db.env)
    expect(off.status, off.stderr).to.equal(0)
    expect(
      rows(['--merchant-account', 'acme'])
        .slice(1)
        .map((r) => [r[0], r[3], r[4], r[6]]),
    ).to.deep.equal([
      [id, '1', 'inactive', '-'],
      [mock![0], '2', 'active', 'mode=down'],
    ])
    expect(cli(['payment-services', 'set', mock![0]!, '--merchant-account', 'acme', '--field', 'mode='], db.env).status).to.equal(0)
    expect(rows(['--merchant-account', 'acme'])[2]![6]).to.equal('-')

    // Every account's: default's own mock-card service, then acme's.
    expect(
      rows([])
        .slice(1)
        .map((r) => [r[1], r[7]]),
    ).to.deep.equal([
      ['acme', 'Backup cards'],
      ['acme', 'Mock cards'],
      ['default', 'Mock cards'],
    ])

    // Deleted: routed to no more, listed as deleted; a second delete finds nothing.
    expect(cli(['payment-services', 'delete', id, '--merchant-account', 'acme'], db.env).stdout).to.equal(`deleted ${id}\n`)
    expect(rows(['--merchant-account', 'acme'])[1]!.slice(0, 5)).to.deep.equal([id, 'acme', 'mock-card', '1', 'deleted'])
    expect(cli(['payment-services', 'delete', id, '--merchant-account', 'acme'], db.env).status).to.equal(1)
  })

  it('refuses bad card service arguments (exit 2), an unknown account or service (exit 1)', () => {
    const run = (...args: string[]) => {
      const r = cli(['payment-services', ...args], db.env)
      return [r.status, r.stderr.split('\n')[0]]
    }
    expect(run('add', '--merchant-account', 'default', '--display-name', 'Worldpay', '--definition', 'worldpay-card')).to.deep.equal([
      2,
      "orka: payment-services add: /payment_service_definition_id: Orka has no connector 'worldpay-card' (it has: mock-card, stripe-card, adyen-card)",
    ])
    expect(run('add', '--merchant-account', 'default', '--display-name', 'X', '--field', 'mode=off')).to.deep.equal([
      2,
      "orka: payment-services add: /fields/0/value: mode 'off' is not one of: down, timeout",
    ])
    expect(run('add', '--merchant-account', 'default')).to.deep.equal([
      2,
      'orka: payment-services add: --display-name NAME (1 to 200 characters) is required',
    ])
    expect(run('add', '--merchant-account', 'nope', '--display-name', 'X')).to.deep.equal([
      1,
      "orka: payment-services add: no merchant account 'nope'",
    ])
    const unknown = '00000000-0000-4000-8000-000000000000'
    expect(run('set', unknown, '--merchant-account', 'default', '--active', 'false')).to.deep.equal([
      1,
      `orka: payment-services set: no payment service '${unknown}' in merchant account 'default'`,
    ])
    expect(run('set', unknown, '--merchant-account', 'default', '--active', 'no')).to.deep.equal([
      2,
      "orka: payment-services set: --active expects true or false, got 'no'",
    ])
    expect(run('set', unknown, '--merchant-account', 'default')).to.deep.equal([
      2,
      'orka: payment-services set: nothing to change (--active, --position or --field)',
    ])
    expect(run('frob')).to.deep.equal([2, "orka: payment-services: unknown subcommand 'frob'"])
  })
})
