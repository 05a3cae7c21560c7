import { createHash } from 'node:crypto'
import { WebhookAuthenticationCreate } from '@orka/domain'
import { orAbort } from './outbound-failure'
import { postOnce, PostOptions } from './outbound-post'

export type OAuth = Extract<WebhookAuthenticationCreate, { kind: 'oauth_client_credentials' | 'oauth_password' }>

/**
 * No token could be had: the endpoint refused, failed, answered something unusable, could not
 * be reached or was refused by the address policy, or the attempt ran out of time meanwhile.
 * All of them are `authentication_failed`: the event was not sent, and the fault is the token
 * endpoint's, whatever the webhook endpoint would have done.
 */
export class TokenFailure extends Error {
  constructor() {
    super('token endpoint failed')
  }
}

/** RFC 6749 §2.3.1: the client id and secret are form-encoded, then sent as HTTP Basic. */
const formEncode = (s: string) => new URLSearchParams({ s }).toString().slice(2)
const clientAuth = (id: string, secret: string) =>
  `Basic ${Buffer.from(`${formEncode(id)}:${formEncode(secret)}`, 'utf8').toString('base64')}`

const grant = (a: OAuth) =>
  new URLSearchParams({
    grant_type: a.kind === 'oauth_password' ? 'password' : 'client_credentials',
    ...(a.kind === 'oauth_password' ? { username: a.username, password: a.password } : {}),
    ...(a.scope ? { scope: a.scope } : {}),
  }).toString()

/** Visible ASCII only: a token goes into a header line as it is. */
const USABLE_TOKEN = /^[\x21-\x7e]+$/

interface Granted {
  readonly token: string
  /** Seconds the token lives, when the endpoint said. */
  readonly expiresIn: number | null
}

/** RFC 6749 §5.1: a bearer `access_token`, `expires_in` optional (some servers send it as a string). */
const parseGrant = (body: Buffer): Granted => {
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    throw new TokenFailure()
  }
  if (typeof parsed !== 'object' || parsed === null) throw new TokenFailure()
  const t = parsed as { access_token?: unknown; token_type?: unknown; expires_in?: unknown }
  if (typeof t.access_token !== 'string' || !USABLE_TOKEN.test(t.access_token)) throw new TokenFailure()
  if (t.token_type !== undefined && (typeof t.token_type !== 'string' || t.token_type.toLowerCase() !== 'bearer')) throw new TokenFailure()
  const expiresIn = typeof t.expires_in === 'number' || typeof t.expires_in === 'string' ? Number(t.expires_in) : NaN
  return { token: t.access_token, expiresIn: Number.isFinite(expiresIn) && expiresIn > 0 ? expiresIn : null }
}

/**
 * OAuth access tokens for webhook endpoints, fetched with the subscription's credentials and
 * kept until shortly before `expires_in` runs out (not kept without one). Keyed by subscription
 * and a hash of the credentials, so changed credentials never reuse an old token. Bounded:
 * the oldest entry goes first. Attempts that need the same token at once share one fetch.
 */
export class OAuthTokens {
  private readonly tokens = new Map<string, { readonly token: string; readonly until: number }>()
  private readonly fetching = new Map<string, Promise<string>>()
  constructor(
    private readonly now: () => number,
    private readonly maxEntries = 10_000,
  ) {}

  key(subscriptionId: string, a: OAuth): string {
    const credentials = [
      a.kind,
      a.token_url,
      a.client_id,
      a.client_secret,
      a.scope,
      a.kind === 'oauth_password' ? [a.username, a.password] : null,
    ]
    return `${subscriptionId}:${createHash('sha256').update(JSON.stringify(credentials)).digest('base64url')}`
  }

  /** The endpoint refused the token: the next attempt fetches another. */
  forget(key: string): void {
    this.tokens.delete(key)
  }

  /** A token for `a`; rejects with a `TokenFailure` only. */
  async get(key: string, a: OAuth, o: PostOptions): Promise<string> {
    const held = this.tokens.get(key)
    if (held !== undefined) {
      if (held.until > this.now()) return held.token
      this.tokens.delete(key)
    }
    let shared = this.fetching.get(key)
    if (shared === undefined) {
      // The fetch runs under the attempt that started it; the others wait within their own time.
      shared = this.fetch(key, a, o).finally(() => this.fetching.delete(key))
      this.fetching.set(key, shared)
    }
    try {
      return await orAbort(shared, o.signal)
    } catch {
      throw new TokenFailure()
    }
  }

  private async fetch(key: string, a: OAuth, o: PostOptions): Promise<string> {
    const headers = {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
      Authorization: clientAuth(a.client_id, a.client_secret),
    }
    const answer = await postOnce(a.token_url, headers, grant(a), o)
    if (answer.status < 200 || answer.status >= 300) throw new TokenFailure()
    const g = parseGrant(answer.body)
    if (g.expiresIn !== null) {
      const lifeMs = g.expiresIn * 1000
      // Renewed a little early (10 %, at most 30 s), so a token does not expire on the way.
      this.keep(key, g.token, this.now() + lifeMs - Math.min(30_000, lifeMs / 10))
    }
    return g.token
  }

  private keep(key: string, token: string, until: number): void {
    this.tokens.delete(key)
    if (this.tokens.size >= this.maxEntries) {
      const oldest = this.tokens.keys().next()
      if (oldest.done !== true) this.tokens.delete(oldest.value)
    }
    this.tokens.set(key, { token, until })
  }
}
