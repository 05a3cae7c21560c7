import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { paginate, PageQuery } from '../pagination/paginate'
import { Page } from '../pagination/page'
import { Clock, IdGenerator } from '../shared/clock'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { InvalidRequest, NotFound, notFound, Unavailable } from '../shared/errors'
import {
  presentWebhookSubscription,
  sealAuthentication,
  webhookSortKey,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionRecord,
} from './webhook-subscription'
import { WebhookScope, WebhookSubscriptionRepository } from './webhooks.ports'

type Deps = { webhooks: WebhookSubscriptionRepository; box: SecretBox }
const present = (deps: Deps) => (r: WebhookSubscriptionRecord) => presentWebhookSubscription(r, (s) => deps.box.open(s))

/** A signing secret for notifications: 32 random bytes as hex, from the id generator's randomness. */
const newSecret = (ids: IdGenerator) => (ids.uuid() + ids.uuid()).replace(/-/g, '')

export const makeCreateWebhookSubscription =
  (deps: Deps & { clock: Clock; ids: IdGenerator }) =>
  (cmd: { merchantAccountId: string; input: WebhookSubscriptionCreate }): TE.TaskEither<Unavailable, WebhookSubscription> => {
    const record: WebhookSubscriptionRecord = {
      id: deps.ids.uuid(),
      merchant_account_id: cmd.merchantAccountId,
      active: cmd.input.active ?? true,
      url: cmd.input.url,
      authentication: cmd.input.authentication ? sealAuthentication(cmd.input.authentication, (s) => deps.box.seal(s)) : null,
      sealed_secret: deps.box.seal(newSecret(deps.ids)),
      created_at: deps.clock.now().toISOString(),
    }
    return pipe(deps.webhooks.create(record), TE.map(() => present(deps)(record)))
  }

export const makeGetWebhookSubscription =
  (deps: Deps) =>
  (q: { scope: WebhookScope; id: string }): TE.TaskEither<NotFound | Unavailable, WebhookSubscription> =>
    pipe(
      deps.webhooks.findById(q.scope, q.id),
      TE.flatMap(O.match(() => TE.left<NotFound | Unavailable>(notFound('WebhookSubscription', q.id)), (r) => TE.right(present(deps)(r)))),
    )

export const makeListWebhookSubscriptions =
  (deps: Deps & { mac: Mac }) =>
  (q: PageQuery & { scope: WebhookScope }): TE.TaskEither<InvalidRequest | Unavailable, Page<WebhookSubscription>> =>
    pipe(
      paginate(
        deps,
        `webhook-subscriptions\u0000${q.scope.merchantAccountId}\u0000${q.scope.includeInstanceWide}`,
        webhookSortKey,
        (seek) => deps.webhooks.list(q.scope, seek),
      )(q),
      TE.map((page) => ({ ...page, items: page.items.map(present(deps)) })),
    )

export const makeDeleteWebhookSubscription =
  (deps: { webhooks: WebhookSubscriptionRepository }) =>
  (q: { scope: WebhookScope; id: string }): TE.TaskEither<NotFound | Unavailable, void> =>
    pipe(
      deps.webhooks.delete(q.scope, q.id),
      TE.flatMap((deleted) => (deleted ? TE.right(undefined) : TE.left(notFound('WebhookSubscription', q.id)))),
    )
