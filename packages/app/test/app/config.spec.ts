import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { loadConfig } from '../../src/config'
import { tracingRequested } from '../../src/tracing'

describe('configuration', () => {
  it('has working defaults with an empty environment', () => {
    const c = loadConfig({})
    expect(E.isRight(c) && c.right).to.deep.include({
      port: 8080,
      host: '0.0.0.0',
      environment: 'sandbox',
      mongodbUri: undefined,
      vaultKey: undefined,
      merchantAccountHeader: 'x-orka-merchant-account-id',
      connectorTimeoutMs: 10000,
      idempotencyReplayS: 86400,
      embedRateLimit: 50,
      rateLimitWindowS: 60,
    })
  })

  it('names every bad variable and what it expects', () => {
    expect(loadConfig({ PORT: 'abc', ENVIRONMENT: 'staging', EMBED_RATE_LIMIT: '0' })).to.deep.equal(
      E.left([
        "PORT: expected an integer from 0 to 65535, got 'abc'",
        "ENVIRONMENT: expected 'sandbox' or 'production', got 'staging'",
        "EMBED_RATE_LIMIT: expected an integer from 1 to 1000000, got '0'",
      ]),
    )
  })

  it('never repeats a secret it could not read', () => {
    const c = loadConfig({ VAULT_KEY: 'too-short-secret', MONGODB_URI: 'http://user:pw@host' })
    expect(c).to.deep.equal(
      E.left(['MONGODB_URI: expected a mongodb:// or mongodb+srv:// URI', 'VAULT_KEY: expected 32 bytes as 64 hex digits or base64']),
    )
  })

  it('accepts a 32-byte VAULT_KEY in hex or base64', () => {
    const hex = 'ab'.repeat(32)
    for (const v of [hex, Buffer.from(hex, 'hex').toString('base64')]) {
      const c = loadConfig({ VAULT_KEY: v })
      expect(E.isRight(c) && c.right.vaultKey?.equals(Buffer.from(hex, 'hex'))).to.equal(true)
    }
  })

  it('refuses production without VAULT_KEY', () => {
    expect(loadConfig({ ENVIRONMENT: 'production' })).to.deep.equal(
      E.left(['VAULT_KEY: required when ENVIRONMENT is production (32 bytes as 64 hex digits or base64)']),
    )
  })

  it('has webhook defaults: 5 s attempts, 10 s leases, retries over about 7 days', () => {
    const c = loadConfig({})
    expect(E.isRight(c) && c.right).to.deep.include({
      webhookHeaderPrefix: 'X-Orka',
      webhookTimeoutMs: 5000,
      webhookLeaseS: 10,
      webhookConcurrency: 32,
      webhookConcurrencyPerSubscription: 4,
      webhookAllowPrivateAddresses: false,
      webhookLogRetentionS: 30 * 86400,
    })
    const delays = E.isRight(c) ? c.right.webhookRetryDelaysS : []
    const total = delays.reduce((a, b) => a + b, 0)
    expect(total).to.be.within(7 * 86400, 7.5 * 86400)
  })

  it('reads retry delays as comma-separated seconds, and refuses a bad list', () => {
    const c = loadConfig({ WEBHOOK_RETRY_DELAYS_S: '0.5, 2,60', WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true' })
    expect(E.isRight(c) && [c.right.webhookRetryDelaysS, c.right.webhookAllowPrivateAddresses]).to.deep.equal([[0.5, 2, 60], true])
    for (const bad of ['1,,2', '0', '-1', 'ten', '90000', '1;2'])
      expect(E.isLeft(loadConfig({ WEBHOOK_RETRY_DELAYS_S: bad })), bad).to.equal(true)
    expect(E.isLeft(loadConfig({ WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'yes' }))).to.equal(true)
  })

  it('leaves tracing off unless OTEL_TRACES_EXPORTER names an exporter; the service is `orka` unless named', () => {
    const on = (env: Record<string, string>) => {
      const c = loadConfig(env)
      return E.isRight(c) && tracingRequested(c.right)
    }
    const off: Record<string, string>[] = [{}, { OTEL_TRACES_EXPORTER: 'none' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }]
    expect(off.map(on)).to.deep.equal([false, false, false])
    const asked: Record<string, string>[] = [{ OTEL_TRACES_EXPORTER: 'otlp' }, { OTEL_TRACES_EXPORTER: 'console, otlp' }]
    expect(asked.map(on)).to.deep.equal([true, true])
    const c = loadConfig({})
    expect(E.isRight(c) && c.right.otelServiceName).to.equal('orka')
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).to.deep.equal(
      E.left(["OTEL_EXPORTER_OTLP_ENDPOINT: expected an http:// or https:// URL, got 'collector:4318'"]),
    )
  })

  it('refuses a lease that does not outlast an attempt', () => {
    expect(loadConfig({ WEBHOOK_LEASE_S: '5', WEBHOOK_TIMEOUT_MS: '5000' })).to.deep.equal(
      E.left(['WEBHOOK_LEASE_S: must exceed WEBHOOK_TIMEOUT_MS by at least a second, or an attempt could run twice']),
    )
  })

  it('runs one process by default; WORKERS is an integer from 1 to 64, anything else is a configuration error', () => {
    const uri = 'mongodb://127.0.0.1/'
    const c = loadConfig({})
    expect(E.isRight(c) && c.right.workers).to.equal(1)
    for (const [raw, n] of [
      ['1', 1],
      ['2', 2],
      ['64', 64],
    ] as const) {
      const c = loadConfig({ WORKERS: raw, MONGODB_URI: uri })
      expect(E.isRight(c) && c.right.workers, raw).to.equal(n)
    }
    for (const bad of ['0', '65', '-1', '2.5', 'two', ' 2', 'auto'])
      expect(loadConfig({ WORKERS: bad, MONGODB_URI: uri }), bad).to.deep.equal(
        E.left([`WORKERS: expected an integer from 1 to 64, got '${bad}'`]),
      )
  })

  it('refuses WORKERS above 1 on the embedded store, saying why', () => {
    expect(loadConfig({ WORKERS: '1' })).to.satisfy(E.isRight)
    expect(loadConfig({ WORKERS: '2' })).to.deep.equal(
      E.left([
        'WORKERS: more than 1 needs MONGODB_URI: the embedded store lives inside each process, so every worker would have its own data, rate limits and idempotency keys',
      ]),
    )
  })

  describe('CORS_ALLOWED_ORIGINS', () => {
    const origins = (value?: string) => {
      const c = loadConfig(value === undefined ? {} : { CORS_ALLOWED_ORIGINS: value })
      return E.isRight(c) ? c.right.corsAllowedOrigins : c.left
    }

    it('is empty by default (no CORS at all)', () => {
      expect(origins()).to.deep.equal([])
      expect(origins('')).to.deep.equal([])
    })

    it('reads exact origins as browsers send them: lower case, default port left out, duplicates once', () => {
      expect(origins('https://Shop.example:443, http://localhost:5173,HTTP://127.0.0.1:80,https://shop.example')).to.deep.equal([
        'https://shop.example',
        'http://localhost:5173',
        'http://127.0.0.1',
      ])
      expect(origins('https://shop.example:8443,http://[::1]:3000')).to.deep.equal(['https://shop.example:8443', 'http://[::1]:3000'])
    })

    it('refuses anything but http(s) origins, with one line naming the variable', () => {
      const expects = 'comma-separated origins (http or https://host[:port], no path, no wildcard)'
      for (const bad of [
        '*',
        'https://*.shop.example',
        'https://shop.example/path',
        'https://shop.example/',
        'https://shop.example?x=1',
        'https://user@shop.example',
        'ftp://x',
        'not a url',
        'null',
        'https://shop.example,,https://other.example',
        'https://shop.example:99999',
      ])
        expect(origins(bad), bad).to.deep.equal([`CORS_ALLOWED_ORIGINS: expected ${expects}, got '${bad}'`])
    })
  })
  describe('CONNECTOR_ENDPOINTS', () => {
    const endpoints = (value?: string) => {
      const c = loadConfig(value === undefined ? {} : { CONNECTOR_ENDPOINTS: value })
      return E.isRight(c) ? c.right.connectorEndpoints : c.left
    }

    it('is empty by default: every connector calls its provider', () => {
      expect(endpoints()).to.deep.equal({})
    })

    it('reads connector-id=base-url pairs, each URL without a trailing slash', () => {
      expect(endpoints('stripe-card=http://127.0.0.1:12111, adyen-card=https://gateway.example/adyen/')).to.deep.equal({
        'stripe-card': 'http://127.0.0.1:12111',
        'adyen-card': 'https://gateway.example/adyen',
      })
    })

    it('refuses anything else, with one line naming the variable and never the value (a URL may carry credentials)', () => {
      const expects = 'comma-separated connector-id=http(s)://host[:port][/path] pairs, each id once'
      for (const bad of [
        'stripe-card',
        'stripe-card=ftp://x',
        'stripe-card=https://user:pw@x',
        'stripe-card=https://x?y=1',
        'stripe-card=https://x,stripe-card=https://y',
        'Stripe Card=https://x',
        'stripe-card=https://x,,adyen-card=https://y',
      ])
        expect(endpoints(bad), bad).to.deep.equal([`CONNECTOR_ENDPOINTS: expected ${expects}`])
    })
  })
})
