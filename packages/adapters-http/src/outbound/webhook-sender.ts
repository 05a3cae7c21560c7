import { performance } from 'node:perf_hooks'
import * as T from 'fp-ts/Task'
import { WebhookAttemptError, WebhookRequest, WebhookResponse, WebhookSender } from '@orka/domain'
import { excerptOf, MAX_ANSWER_BYTES } from './answer-excerpt'
import { Agents, destroyAgents, makeAgents } from './outbound-agents'
import { OutboundFailure } from './outbound-failure'
import { OAuthTokens, TokenFailure } from './oauth-tokens'
import { postOnce, PostOptions } from './outbound-post'
import { HostLookup, systemLookup } from './pinned-lookup'
import { signatureHeader } from './webhook-signature'

export interface WebhookSenderConfig {
  /** `X-Orka`: headers `<prefix>-Webhook-ID`, `-Timestamp`, `-Signatures`. */
  readonly headerPrefix: string
  /** The whole attempt: resolving, token fetch, connecting, sending, reading the answer. */
  readonly timeoutMs: number
  /** Lets deliveries go to loopback and private networks (development and tests only). */
  readonly allowPrivateAddresses: boolean
  /** Refuses `http:` URLs, the webhook's and the token endpoint's (production). */
  readonly requireHttps: boolean
  /** `Orka-Webhooks/1.0` unless given. */
  readonly userAgent?: string
}

export interface WebhookSenderDeps {
  /** Resolves host names; `dns.lookup` with `all: true` unless given. */
  readonly lookup?: HostLookup
  /** Epoch milliseconds, for the token cache; `Date.now` unless given. */
  readonly now?: () => number
}

const errorOf = (status: number): WebhookAttemptError | null =>
  status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect' : 'unexpected_status'

/**
 * Sends webhook attempts with node's http/https. Every way an attempt can go wrong becomes a
 * `WebhookResponse`; nothing of the credentials, secrets or body is ever in one, nor logged.
 */
export class NodeWebhookSender implements WebhookSender {
  private readonly tokens: OAuthTokens
  private readonly agents: Agents = makeAgents()
  private readonly lookup: HostLookup

  constructor(
    private readonly config: WebhookSenderConfig,
    deps: WebhookSenderDeps = {},
  ) {
    this.lookup = deps.lookup ?? systemLookup
    this.tokens = new OAuthTokens(deps.now ?? Date.now)
  }

  send(req: WebhookRequest): T.Task<WebhookResponse> {
    return async () => {
      const started = performance.now()
      const abort = new AbortController()
      const timer = setTimeout(() => {
        abort.abort()
      }, this.config.timeoutMs)
      const end = (status: number | null, error: WebhookAttemptError | null, body: Buffer | null = null): WebhookResponse => ({
        status,
        error,
        excerpt: excerptOf(body),
        durationMs: Math.max(0, Math.round(performance.now() - started)),
      })
      try {
        const o: PostOptions = {
          signal: abort.signal,
          allowPrivateAddresses: this.config.allowPrivateAddresses,
          requireHttps: this.config.requireHttps,
          lookup: this.lookup,
          agents: this.agents,
          maxRead: MAX_ANSWER_BYTES,
        }
        const p = this.config.headerPrefix
        const headers: Record<string, string> = {
          'Content-Type': 'application/json',
          'User-Agent': this.config.userAgent ?? 'Orka-Webhooks/1.0',
          [`${p}-Webhook-ID`]: req.eventId,
          [`${p}-Webhook-Timestamp`]: String(req.timestamp),
          [`${p}-Webhook-Signatures`]: signatureHeader(req.secrets, req.timestamp, req.body),
        }
        const a = req.authentication
        let tokenKey: string | null = null
        if (a?.kind === 'basic') headers.Authorization = `Basic ${Buffer.from(`${a.username}:${a.password}`, 'utf8').toString('base64')}`
        else if (a) {
          tokenKey = this.tokens.key(req.subscriptionId, a)
          headers.Authorization = `Bearer ${await this.tokens.get(tokenKey, a, o)}`
        }
        const answer = await postOnce(req.url, headers, req.body, o)
        // A refused token is not used again: the next attempt fetches a new one (not this one).
        if (answer.status === 401 && tokenKey !== null) this.tokens.forget(tokenKey)
        return end(answer.status, errorOf(answer.status), answer.body)
      } catch (e) {
        // Tear down whatever is still under way for this attempt.
        abort.abort()
        if (e instanceof TokenFailure) return end(null, 'authentication_failed')
        if (e instanceof OutboundFailure) return end(null, e.kind)
        // Anything else (a header node refuses, say) is a request that could not be made.
        return end(null, 'connection_failed')
      } finally {
        clearTimeout(timer)
      }
    }
  }

  /** Closes the kept-alive connections; attempts still running fail as `connection_failed`. */
  close(): void {
    destroyAgents(this.agents)
  }
}

export { signWebhook } from './webhook-signature'
export { MAX_ANSWER_BYTES, EXCERPT_BYTES } from './answer-excerpt'
export { HostLookup } from './pinned-lookup'
