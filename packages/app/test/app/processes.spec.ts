import { expect } from 'chai'
import { spawnSync, spawn } from 'node:child_process'
import { mkdtempSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { once } from 'node:events'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generateKeyPair } from '../../src/dev-key'

const dist = join(__dirname, '..', '..', 'src')
const node = (script: string, args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [join(dist, script), ...args], {
    env: { ...process.env, METRICS_PORT: '0', ...env },
    encoding: 'utf8',
    timeout: 20000,
  })

describe('entry points', () => {
  it('exits 1 with the variable named when the configuration is bad', () => {
    const r = node('main.js', [], { PORT: 'eighty', LOG_LEVEL: 'silent' })
    expect(r.status).to.equal(1)
    expect(r.stderr).to.equal("configuration error: PORT: expected an integer from 0 to 65535, got 'eighty'\n")
  })

  it('exits 1 with a one-line reason when the seed file is invalid', () => {
    const r = node('main.js', [], { PORT: '0', SEED_FILE: '/nonexistent/seed.json', LOG_LEVEL: 'silent' })
    expect(r.status).to.equal(1)
    expect(r.stderr).to.match(/^Orka could not start: SEED_FILE \/nonexistent\/seed.json: ENOENT/)
  })

  it('exits 1 when CONNECTOR_ENDPOINTS names a connector Orka does not have', () => {
    const r = node('main.js', [], { PORT: '0', CONNECTOR_ENDPOINTS: 'paypal-card=http://127.0.0.1:9', LOG_LEVEL: 'silent' })
    expect([r.status, r.stderr]).to.deep.equal([
      1,
      'Orka could not start: CONNECTOR_ENDPOINTS names paypal-card: Orka has no such connector (it has: mock-card, stripe-card, adyen-card, mock-gift-card)\n',
    ])
  })

  it('exits 1 naming a card service definition Orka has no connector for', () => {
    const seed = join(mkdtempSync(join(tmpdir(), 'orka-seed-')), 'seed.json')
    const service = { merchant_account_id: 'default', payment_service_definition_id: 'worldpay-card', display_name: 'Worldpay' }
    writeFileSync(seed, JSON.stringify({ payment_services: [service] }))
    const r = node('main.js', [], { PORT: '0', SEED_FILE: seed, LOG_LEVEL: 'silent' })
    expect([r.status, r.stderr]).to.deep.equal([
      1,
      "Orka could not start: seed: payment service Worldpay: /payment_service_definition_id: Orka has no connector 'worldpay-card' (it has: mock-card, stripe-card, adyen-card)\n",
    ])
  })

  it('starts with no configuration: dev key written owner-only, start-up log says how to mint a token', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orka-main-'))
    const child = spawn(process.execPath, [join(dist, 'main.js')], {
      env: { ...process.env, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', DATA_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += String(d)))
    while (!out.includes('Orka listening')) await once(child.stdout, 'data')
    const pem = join(dir, 'dev-api-key.pem')
    expect(existsSync(pem)).to.equal(true)
    expect(statSync(pem).mode & 0o777).to.equal(0o600)
    expect(out).to.include(`mint a token with: pnpm orka token --key ${pem}`)
    const url = /Orka listening on (\S+)"/.exec(out)![1]
    const token = node('cli.js', ['token', '--key', pem, '--scopes', 'roles.read']).stdout.trim()
    const res = await fetch(`${url}/roles?limit=1`, { headers: { authorization: `Bearer ${token}` } })
    expect(res.status).to.equal(200)
    expect(((await res.json()) as { items: { slug: string }[] }).items[0]!.slug).to.equal('administrator')
    child.kill('SIGTERM')
    const [code] = (await once(child, 'exit')) as [number | null]
    expect(code).to.equal(0)
    expect(readFileSync(pem, 'utf8')).to.match(/^-----BEGIN PRIVATE KEY-----/)
  })

  it('CLI: mints an ES512 token with the requested scopes, embed and lifetime', () => {
    const dir = mkdtempSync(join(tmpdir(), 'orka-cli-'))
    const pem = join(dir, 'k.pem')
    writeFileSync(pem, generateKeyPair().privateKeyPem)
    const r = node('cli.js', ['token', '--key', pem, '--scopes', 'buyers.read,roles.read', '--embed', '--expires', '5m'])
    expect(r.status).to.equal(0)
    const [h, p] = r.stdout
      .trim()
      .split('.')
      .slice(0, 2)
      .map((s) => JSON.parse(Buffer.from(s, 'base64url').toString()) as { kid?: string; scopes?: string[]; exp: number; iat: number })
    expect(h).to.include({ alg: 'ES512', typ: 'JWT' })
    expect(h!.kid).to.match(/^[A-Za-z0-9_-]{43}$/)
    expect(p!.scopes).to.deep.equal(['buyers.read', 'roles.read', 'embed'])
    expect(p!.exp - p!.iat).to.equal(300)
  })

  it('CLI: without MONGODB_URI, generates a key pair and prints both PEMs and its kid, storing nothing', () => {
    const r = node('cli.js', ['keys', 'create'], { MONGODB_URI: '' })
    expect(r.status).to.equal(0)
    expect(r.stdout).to.match(/-----BEGIN PRIVATE KEY-----[\s\S]+-----BEGIN PUBLIC KEY-----[\s\S]+\nkid: [A-Za-z0-9_-]{43}\n$/)
  })

  it('CLI: prints help for every command, exit 0', () => {
    for (const args of [
      ['--help'],
      ['token', '--help'],
      ['keys', '--help'],
      ['keys', 'list', '--help'],
      ['payment-services', '--help'],
      ['payment-services', 'set', '--help'],
      ['seed', '--help'],
      ['config', '--help'],
      ['serve', '--help'],
    ]) {
      const r = node('cli.js', args)
      expect(r.status, args.join(' ')).to.equal(0)
      expect(r.stdout, args.join(' ')).to.match(/^Usage: orka /)
    }
  })

  it('CLI: config prints every variable with secrets masked, and exits 1 naming a bad one', () => {
    const r = node('cli.js', ['config'], { VAULT_KEY: 'cd'.repeat(32), MONGODB_URI: 'mongodb://user:hunter2@db.internal/', PORT: '9090' })
    expect(r.status).to.equal(0)
    expect(r.stdout).to.include('PORT=9090\n')
    expect(r.stdout).to.include('VAULT_KEY=********\n')
    expect(r.stdout).to.include('MONGODB_URI=********\n')
    expect(r.stdout).not.to.include('hunter2')
    expect(r.stdout).not.to.include('cdcdcd')
    expect(r.stdout).to.include('CONNECTOR_ENDPOINTS=(unset)\n')
    expect(r.stdout).to.include('WEBHOOK_RETRY_DELAYS_S=10,60,300,')
    const bad = node('cli.js', ['config'], { RATE_LIMIT_WINDOW_S: 'soon' })
    expect(bad.status).to.equal(1)
    expect(bad.stderr).to.equal("orka: configuration error: RATE_LIMIT_WINDOW_S: expected an integer from 1 to 86400, got 'soon'\n")
  })

  it('CLI: storage commands without MONGODB_URI exit 1 saying why', () => {
    const r = node('cli.js', ['keys', 'list'], { MONGODB_URI: '' })
    expect(r.status).to.equal(1)
    expect(r.stderr).to.equal(
      'orka: keys list needs MONGODB_URI: the embedded store lives inside the server process (provision it with SEED_FILE)\n',
    )
    const services = node('cli.js', ['payment-services', 'list'], { MONGODB_URI: '' })
    expect([services.status, services.stderr]).to.deep.equal([
      1,
      'orka: payment-services list needs MONGODB_URI: the embedded store lives inside the server process (provision it with SEED_FILE)\n',
    ])
  })

  it('CLI: a usage error exits 2 with the usage text', () => {
    const r = node('cli.js', ['token'])
    expect(r.status).to.equal(2)
    expect(r.stderr).to.match(/^orka: token: --key FILE is required\n\nUsage: orka token --key FILE/)
    expect(node('cli.js', ['frobnicate']).status).to.equal(2)
  })
})
