import { createHash } from 'node:crypto'
import { WebhookAuthenticationCreate } from '@orka/domain'
import { OutboundFailure, postOnce, PostOptions } from './outbound-post'

type OAuth = Extract<WebhookAuthenticationCreate, { kind: 'oauth_client_credentials' | 'oauth_password' }>

/** Why no token could be had: the endpoint failed or refused, or the attempt ran out of time. */
export class TokenFailure extends Error {
  constructor(readonly timedOut: boolean) {
    super('token endpoint failed')
  }
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded, then sent as HTTP Basic. */
const clientAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${encodeURIComponent(id).replace(/%20/g, '+')}:${encodeURIComponent(secret).replace(/%20/g, '+')}`).toString('base64')}`

const form = (a: OAuth) =>
  new URLSearchParams({
    grant_type: a.kind === 'oauth_password' ? 'password' : 'client_credentials',
    ...(a.kind === 'oauth_password' ? { username: a.username, password: a.password } : {}),
    ...(a.scope ? { scope: a.scope } : {}),
  }).toString()

/**
 * OAuth access tokens for webhook endpoints, fetched with the subscription's credentials and
 * kept until shortly before `expires_in` runs out (not kept without one). Keyed by subscription
 * and a hash of the credentials, so changed credentials never reuse an old token. Bounded:
 * the oldest entry goes first.
 */
export class OAuthTokens {
  private readonly tokens = new Map<string, { readonly token: string; readonly until: number }>()
  constructor(
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  key(subscriptionId: string, a: OAuth): string {
    return `${subscriptionId}:${createHash('sha256').update(JSON.stringify([a.kind, a.token_url, a.client_id, a.client_secret, a.scope, a.kind === 'oauth_password' ? [a.username, a.password] : null])).digest('base64url')}`
  }

  forget(key: string): void {
    this.tokens.delete(key)
  }

  async get(key: string, a: OAuth, o: PostOptions): Promise<string> {
    const held = this.tokens.get(key)
    if (held !== undefined && held.until > this.now()) return held.token
    let answer
    try {
      answer = await postOnce(
        a.token_url,
        { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json', Authorization: clientAuth(a.client_id, a.client_secret) },
        form(a),
        o,
      )
    } catch (e) {
      throw new TokenFailure(e instanceof OutboundFailure && e.kind === 'timeout')
    }
    if (answer.status < 200 || answer.status >= 300) throw new TokenFailure(false)
    let parsed: unknown
    try {
      parsed = JSON.parse(answer.body.toString('utf8'))
    } catch {
      throw new TokenFailure(false)
    }
    const t = parsed as { access_token?: unknown; token_type?: unknown; expires_in?: unknown }
    if (typeof t.access_token !== 'string' || t.access_token === '') throw new TokenFailure(false)
    if (t.token_type !== undefined && (typeof t.token_type !== 'string' || t.token_type.toLowerCase() !== 'bearer')) throw new TokenFailure(false)
    if (typeof t.expires_in === 'number' && t.expires_in > 0) {
      const lifeMs = t.expires_in * 1000
      // Renewed a little early, so a token never expires on the way.
      this.keep(key, t.access_token, this.now() + lifeMs - Math.min(30_000, lifeMs / 10))
    }
    return t.access_token
  }

  private keep(key: string, token: string, until: number): void {
    this.tokens.delete(key)
    if (this.tokens.size >= this.maxEntries) this.tokens.delete(this.tokens.keys().next().value!)
    this.tokens.set(key, { token, until })
  }
}
