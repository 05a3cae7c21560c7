import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { isEmbedToken, Principal } from '../auth/authorize'
import { Clock } from '../shared/clock'
import { Quota, RateLimited, rateLimited, Unavailable } from '../shared/errors'
import { RateLimitStore } from './rate-limit.ports'

export interface RateLimitConfig {
  readonly limit: number
  readonly windowS: number
}

/**
 * Routes a browser could use to iterate over card numbers. `POST /gift-cards/activations` is
 * our addition to the spec's list, for the same reason.
 */
export const EMBED_LIMITED_ROUTES: ReadonlyArray<string> = [
  'POST /gift-cards/balances',
  'POST /gift-cards',
  'POST /transactions',
  'POST /gift-cards/activations',
]
const SESSION_ROUTE = /^POST \/checkout\/sessions\/([^/]+)\/fields$/

export interface Bucket {
  readonly policy: string
  readonly key: string
}

/**
 * Which quota a request draws on, if any. Only `embed` (browser) tokens are limited: per token
 * on the card routes, per checkout session on the Secure Fields route. Server-to-server never.
 */
export const bucketFor = (method: string, path: string, principal: Principal): O.Option<Bucket> => {
  if (!isEmbedToken(principal)) return O.none
  const route = `${method.toUpperCase()} ${path.replace(/\/+$/, '') || '/'}`
  if (EMBED_LIMITED_ROUTES.includes(route)) return O.some({ policy: 'embed', key: `embed:${principal.tokenId}` })
  const session = SESSION_ROUTE.exec(route)
  return session ? O.some({ policy: 'checkout-session', key: `checkout-session:${session[1]}` }) : O.none
}

/** Draws one request from the request's bucket; `none` when the request is not limited. */
export const makeCheckRateLimit =
  (deps: { store: RateLimitStore; clock: Clock; config: RateLimitConfig }) =>
  (req: { method: string; path: string; principal: Principal }): TE.TaskEither<RateLimited | Unavailable, O.Option<Quota>> =>
    pipe(
      bucketFor(req.method, req.path, req.principal),
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
