import { performance } from 'node:perf_hooks'
import * as T from 'fp-ts/Task'
import { WebhookAttemptError, WebhookRequest, WebhookResponse, WebhookSender } from '@orka/domain'
import { OAuthTokens, TokenFailure } from './oauth-tokens'
import { OutboundFailure, postOnce, PostOptions, Resolve, systemResolve } from './outbound-post'
import { signatureHeader } from './webhook-signature'

export interface WebhookSenderConfig {
  /** `X-Orka`: headers `<prefix>-Webhook-ID`, `-Timestamp`, `-Signatures`. */
  readonly headerPrefix: string
  /** The whole attempt: token fetch, resolving, connecting, sending, reading the answer. */
  readonly timeoutMs: number
  readonly allowPrivateAddresses: boolean
  readonly requireHttps: boolean
  readonly userAgent?: string
}

/** Of an answer, at most this much is read, and this much kept for the delivery log. */
export const MAX_ANSWER_BYTES = 64 * 1024
export const EXCERPT_BYTES = 1024

const errorOf = (status: number): WebhookAttemptError | null =>
  status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect' : 'unexpected_status'

/**
 * Sends webhook attempts with node's http/https. Every way an attempt can go wrong becomes a
 * `WebhookResponse`; nothing of the credentials, secrets or body is ever in one.
 */
export class NodeWebhookSender implements WebhookSender {
  private readonly tokens: OAuthTokens
  constructor(
    private readonly config: WebhookSenderConfig,
    private readonly resolve: Resolve = systemResolve,
    now: () => number = Date.now,
  ) {
    this.tokens = new OAuthTokens(now)
  }

  send(req: WebhookRequest): T.Task<WebhookResponse> {
    return async () => {
      const started = performance.now()
      const abort = new AbortController()
      const timer = setTimeout(() => abort.abort(), this.config.timeoutMs)
      const end = (status: number | null, error: WebhookAttemptError | null, body: Buffer | null = null): WebhookResponse => ({
        status,
        error,
        excerpt: body === null || body.length === 0 ? null : body.subarray(0, EXCERPT_BYTES).toString('utf8'),
        durationMs: Math.max(0, Math.round(performance.now() - started)),
      })
      try {
        const o: PostOptions = {
          signal: abort.signal,
          allowPrivateAddresses: this.config.allowPrivateAddresses,
          requireHttps: this.config.requireHttps,
          resolve: this.resolve,
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
        if (a?.kind === 'basic') headers['Authorization'] = `Basic ${Buffer.from(`${a.username}:${a.password}`, 'utf8').toString('base64')}`
        else if (a) {
          tokenKey = this.tokens.key(req.subscriptionId, a)
          headers['Authorization'] = `Bearer ${await this.tokens.get(tokenKey, a, o)}`
        }
        const answer = await postOnce(req.url, headers, req.body, o)
        // A refused token is not used again: the next attempt fetches a new one.
        if (answer.status === 401 && tokenKey !== null) this.tokens.forget(tokenKey)
        return end(answer.status, errorOf(answer.status), answer.body)
      } catch (e) {
        if (e instanceof TokenFailure) return end(null, e.timedOut ? 'timeout' : 'authentication_failed')
        if (e instanceof OutboundFailure) return end(null, e.kind)
        return end(null, abort.signal.aborted ? 'timeout' : 'connection_failed')
      } finally {
        clearTimeout(timer)
        abort.abort()
      }
    }
  }
}
