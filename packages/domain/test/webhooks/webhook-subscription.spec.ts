import { expect } from 'chai'
import {
  isRotating,
  openAuthentication,
  presentWebhookSubscription,
  sealAuthentication,
  signingSecrets,
  WebhookSecretRotation,
  WebhookSubscriptionUpdate,
  WebhookSubscription,
  WebhookSubscriptionRecord,
} from '../../src/webhooks/webhook-subscription'
import { decoded, faultsOf } from '../helpers'

const URL = 'https://merchant.example/hooks/orka'

describe('sealAuthentication', () => {
  const seal = (s: string) => `sealed(${s})`
  it('seals the password of basic authentication and nothing else', () => {
    expect(sealAuthentication({ kind: 'basic', username: 'u', password: 'p' }, seal)).to.deep.equal({
      kind: 'basic',
      username: 'u',
      password: 'sealed(p)',
    })
  })
  it('seals client_secret and password of OAuth password authentication, leaving a null scope null', () => {
    expect(
      sealAuthentication(
        {
          kind: 'oauth_password',
          client_id: 'c',
          client_secret: 's',
          token_url: 'https://a.example/t',
          username: 'u',
          password: 'p',
          scope: null,
        },
        seal,
      ),
    ).to.deep.equal({
      kind: 'oauth_password',
      client_id: 'c',
      client_secret: 'sealed(s)',
      token_url: 'https://a.example/t',
      username: 'u',
      password: 'sealed(p)',
      scope: null,
    })
  })
})

describe('presentWebhookSubscription', () => {
  const open = (s: string) => {
    const m = /^sealed\((.*)\)$/.exec(s)
    if (!m) throw new Error(`not sealed: ${s}`)
    return m[1]!
  }
  const record = (authentication: WebhookSubscriptionRecord['authentication']): WebhookSubscriptionRecord => ({
    id: '3b241101-e2bb-4255-8caf-4136c566a962',
    merchant_account_id: 'default',
    active: true,
    url: URL,
    authentication,
    sealed_secret: 'sealed(whsec_abc)',
    previous_sealed_secret: null,
    previous_secret_expires_at: null,
    created_at: '2025-01-01T00:00:00.000Z',
  })
  const NOW = new Date('2025-01-02T00:00:00.000Z')
  const base = {
    type: 'webhook-subscription',
    id: '3b241101-e2bb-4255-8caf-4136c566a962',
    merchant_account_id: 'default',
    active: true,
    url: URL,
    secret: 'whsec_abc',
    rotating: false,
    creator: null,
  }

  it('masks the password of basic authentication and opens the signing secret', () => {
    expect(presentWebhookSubscription(record({ kind: 'basic', username: 'u', password: 'sealed(p)' }), open, NOW)).to.deep.equal({
      ...base,
      authentication: { type: 'webhook-authentication', kind: 'basic', username: 'u', password: '********' },
    })
  })

  it('masks both client_secret and password of OAuth password authentication', () => {
    const presented = presentWebhookSubscription(
      record({
        kind: 'oauth_password',
        client_id: 'c',
        client_secret: 'sealed(s)',
        token_url: 'https://a.example/t',
        username: 'u',
        password: 'sealed(p)',
        scope: 'hooks',
      }),
      open,
      NOW,
    )
    expect(presented).to.deep.equal({
      ...base,
      authentication: {
        type: 'webhook-authentication',
        kind: 'oauth_password',
        client_id: 'c',
        client_secret: '********',
        token_url: 'https://a.example/t',
        username: 'u',
        password: '********',
        scope: 'hooks',
      },
    })
  })

  it('masks the client_secret of OAuth client credentials', () => {
    expect(
      presentWebhookSubscription(
        record({
          kind: 'oauth_client_credentials',
          client_id: 'c',
          client_secret: 'sealed(s)',
          token_url: 'https://a.example/t',
          scope: null,
        }),
        open,
        NOW,
      ).authentication,
    ).to.deep.equal({
      type: 'webhook-authentication',
      kind: 'oauth_client_credentials',
      client_id: 'c',
      client_secret: '********',
      token_url: 'https://a.example/t',
      scope: null,
    })
  })

  it('presents no authentication as null', () => {
    expect(presentWebhookSubscription(record(null), open, NOW)).to.deep.equal({ ...base, authentication: null })
  })

  it('presents a subscription that its own wire codec accepts', () => {
    const presented = presentWebhookSubscription(record({ kind: 'basic', username: 'u', password: 'sealed(p)' }), open, NOW)
    expect(decoded(WebhookSubscription, presented)).to.deep.equal(presented)
  })
})

describe('secret rotation', () => {
  const open = (s: string) => s.replace(/^sealed\((.*)\)$/, '$1')
  const record = (o: Partial<WebhookSubscriptionRecord>): WebhookSubscriptionRecord => ({
    id: '3b241101-e2bb-4255-8caf-4136c566a962',
    merchant_account_id: 'default',
    active: true,
    url: URL,
    authentication: null,
    sealed_secret: 'sealed(new)',
    previous_sealed_secret: 'sealed(old)',
    previous_secret_expires_at: '2025-01-01T01:00:00.000Z',
    created_at: '2025-01-01T00:00:00.000Z',
    ...o,
  })

  it('signs with the new secret first and the previous one until it expires', () => {
    expect(signingSecrets(record({}), open, new Date('2025-01-01T00:59:59.999Z'))).to.deep.equal(['new', 'old'])
    expect(isRotating(record({}), new Date('2025-01-01T00:59:59.999Z'))).to.equal(true)
    expect(signingSecrets(record({}), open, new Date('2025-01-01T01:00:00.000Z'))).to.deep.equal(['new'])
    expect(isRotating(record({}), new Date('2025-01-01T01:00:00.000Z'))).to.equal(false)
  })

  it('signs with the one secret when none was rotated out', () => {
    const r = record({ previous_sealed_secret: null, previous_secret_expires_at: null })
    expect(signingSecrets(r, open, new Date('2025-01-01T00:00:00.000Z'))).to.deep.equal(['new'])
    expect(presentWebhookSubscription(r, open, new Date('2025-01-01T00:00:00.000Z')).rotating).to.equal(false)
  })

  it('opens the endpoint credentials for the sender only', () => {
    const r = record({ authentication: { kind: 'basic', username: 'u', password: 'sealed(p)' } })
    expect(openAuthentication(r, open)).to.deep.equal({ kind: 'basic', username: 'u', password: 'p' })
    expect(openAuthentication(record({ authentication: null }), open)).to.equal(null)
  })

  it('takes a rotation delta of 0 to 7 days in minutes, or none', () => {
    expect(decoded(WebhookSecretRotation, {})).to.deep.equal({})
    expect(decoded(WebhookSecretRotation, { delta: null })).to.deep.equal({ delta: null })
    expect(decoded(WebhookSecretRotation, { delta: 10080 })).to.deep.equal({ delta: 10080 })
    expect(faultsOf(WebhookSecretRotation, { delta: 10081 })).to.deep.equal([
      {
        path: ['delta'],
        type: 'less_than_equal',
        value: 10081,
        ctx: { le: 10080 },
      },
    ])
    expect(faultsOf(WebhookSecretRotation, { delta: -1 })[0]!.type).to.equal('greater_than_equal')
    expect(faultsOf(WebhookSecretRotation, { delta: 1.5 })[0]!.type).to.equal('int_type')
  })
})

describe('WebhookSubscriptionUpdate', () => {
  it('accepts any subset, nulls included', () => {
    for (const body of [
      {},
      { active: false },
      { url: null, active: null, authentication: null },
      { url: URL, authentication: { kind: 'basic', username: 'u', password: 'p' } },
    ])
      expect(decoded(WebhookSubscriptionUpdate, body)).to.deep.equal(body)
  })
  it('rejects unknown properties and a bad url', () => {
    expect(faultsOf(WebhookSubscriptionUpdate, { url: 'ftp://x.example/', secret: 's' }).map((f) => [f.path, f.type])).to.deep.equal([
      [['secret'], 'extra_forbidden'],
      [['url'], 'string_pattern_mismatch'],
    ])
  })
})
