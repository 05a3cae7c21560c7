import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { isEmbedToken, Principal } from '../auth/authorize'
import { Clock } from '../shared/clock.ports'
import { Quota, RateLimited, rateLimited, Unavailable } from '../shared/errors'
import { RateLimitStore } from './rate-limit.ports'

export interface RateLimitConfig {
  readonly limit: number
  readonly windowS: number
}

/**
 * The quotas a request may draw on, named by the operation that draws on them: `embed` for the
 * routes a browser could use to iterate over card numbers (one quota per token), and
 * `checkout-session` for the Secure Fields route (one quota per checkout session, which a
 * request without a token draws on too: the session id is its only credential).
 */
export type RateLimitPolicy = 'embed' | 'checkout-session'

export type RateLimitRequest =
  | { readonly policy: 'embed'; readonly principal: Principal }
  /** `principal` null: a request without a token (Secure Fields need none). */
  | { readonly policy: 'checkout-session'; readonly principal: Principal | null; readonly sessionId: string }

export interface Bucket {
  readonly policy: RateLimitPolicy
  readonly key: string
}

/**
 * Which quota a request draws on, if any. Server-to-server tokens are never limited; `embed`
 * (browser) tokens are, and so are requests without a token. A session id is keyed in lower
 * case: ids are compared case-insensitively, and the cases of one id must not be so many quotas.
 */
export const bucketFor = (req: RateLimitRequest): O.Option<Bucket> => {
  switch (req.policy) {
    case 'embed':
      return isEmbedToken(req.principal) ? O.some({ policy: req.policy, key: `embed:${req.principal.tokenId}` }) : O.none
    case 'checkout-session':
      return req.principal === null || isEmbedToken(req.principal)
        ? O.some({ policy: req.policy, key: `checkout-session:${req.sessionId.toLowerCase()}` })
        : O.none
  }
}

/** Draws one request from the request's bucket; `none` when the request is not limited. */
export const makeCheckRateLimit =
  (deps: { store: RateLimitStore; clock: Clock; config: RateLimitConfig }) =>
  (req: RateLimitRequest): TE.TaskEither<RateLimited | Unavailable, O.Option<Quota>> =>
    pipe(
      bucketFor(req),
      O.match(
        () => TE.right(O.none),
        (bucket) =>
          pipe(
            deps.store.admit(bucket.key, deps.config.limit, deps.config.windowS * 1000, deps.clock.now()),
            TE.flatMap((a) => {
              const quota: Quota = {
                policy: bucket.policy,
                limit: deps.config.limit,
                windowS: deps.config.windowS,
                remaining: a.remaining,
                resetS: Math.ceil(a.resetMs / 1000),
              }
              return a.admitted ? TE.right(O.some(quota)) : TE.left(rateLimited(Math.max(1, quota.resetS), quota))
            }),
          ),
      ),
    )
