import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { paginate, PageQuery } from '../pagination/paginate'
import { Page } from '../pagination/page'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { InvalidInput, invalidInput, InvalidRequest, NotFound, notFound, Unavailable } from '../shared/errors'
import { AuditActor } from '../audit/audit-entry'
import { subscriptionWitness } from '../audit/change-witness'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { WebhookDeliveryStore } from './webhook-delivery.ports'
import {
  presentWebhookSubscription,
  sealAuthentication,
  urlViolations,
  webhookSortKey,
  WebhookSecretRotation,
  WebhookSubscription,
  WebhookSubscriptionCreate,
  WebhookSubscriptionRecord,
  WebhookSubscriptionUpdate,
  WebhookUrlPolicy,
} from './webhook-subscription'
import { WebhookScope, WebhookSubscriptionRepository } from './webhooks.ports'

interface Deps {
  webhooks: WebhookSubscriptionRepository
  box: SecretBox
  clock: Clock
}
const present = (deps: Deps) => (r: WebhookSubscriptionRecord) => presentWebhookSubscription(r, (s) => deps.box.open(s), deps.clock.now())

/** A signing secret for notifications: 32 random bytes as hex, from the id generator's randomness. */
const newSecret = (ids: IdGenerator) => (ids.uuid() + ids.uuid()).replace(/-/g, '')

/** The URLs of the input that the policy refuses, as a 422; checked before anything is read or written. */
const allowed = <A extends Parameters<typeof urlViolations>[0]>(input: A, policy: WebhookUrlPolicy): E.Either<InvalidInput, A> => {
  const violations = urlViolations(input, policy)
  return violations.length === 0 ? E.right(input) : E.left(invalidInput(...violations))
}

const found = (id: string) =>
  O.match(
    () => TE.left<NotFound | Unavailable, WebhookSubscriptionRecord>(notFound('WebhookSubscription', id)),
    (r: WebhookSubscriptionRecord) => TE.right(r),
  )

/** What an audited change of a subscription needs. */
interface Audit {
  audited: RecordAudited
  mac: Mac
}

const subscriptionResource = (id: string) => ({ type: 'webhook-subscription' as const, id, name: 'Webhook subscription' })

/** Whose entry a change of a subscription is: the account that made it (an instance-wide subscription's too). */
const madeBy = (q: { scope: WebhookScope; actor: AuditActor }) => ({ merchantAccountId: q.scope.merchantAccountId, actor: q.actor })

/** Stores the changed subscription, audited; gone meanwhile (deleted by another request) is a 404. */
const saved = (
  deps: Deps & Audit,
  q: { scope: WebhookScope; actor: AuditActor },
  next: WebhookSubscriptionRecord,
): TE.TaskEither<NotFound | Unavailable, WebhookSubscriptionRecord> =>
  deps.audited(
    changeOf(madeBy(q), subscriptionResource(next.id), 'updated', 'webhook-subscription-state', subscriptionWitness(deps.mac, next)),
    pipe(
      deps.webhooks.update(q.scope, next),
      TE.flatMap((updated) => (updated ? TE.right(next) : TE.left(notFound('WebhookSubscription', next.id)))),
    ),
  )

export const makeCreateWebhookSubscription =
  (deps: Deps & Audit & { ids: IdGenerator; policy: WebhookUrlPolicy }) =>
  (cmd: {
    merchantAccountId: string
    actor: AuditActor
    input: WebhookSubscriptionCreate
  }): TE.TaskEither<InvalidInput | Unavailable, WebhookSubscription> =>
    pipe(
      TE.fromEither(allowed(cmd.input, deps.policy)),
      TE.flatMap((input) => {
        const record: WebhookSubscriptionRecord = {
          id: deps.ids.uuid(),
          merchant_account_id: cmd.merchantAccountId,
          active: input.active ?? true,
          url: input.url,
          authentication: input.authentication ? sealAuthentication(input.authentication, (s) => deps.box.seal(s)) : null,
          sealed_secret: deps.box.seal(newSecret(deps.ids)),
          previous_sealed_secret: null,
          previous_secret_expires_at: null,
          created_at: deps.clock.now().toISOString(),
        }
        const change = changeOf(cmd, subscriptionResource(record.id), 'created', 'webhook-subscription-present')
        return pipe(
          deps.audited(change, deps.webhooks.create(record)),
          TE.map(() => present(deps)(record)),
        )
      }),
    )

export const makeGetWebhookSubscription =
  (deps: Deps) =>
  (q: { scope: WebhookScope; id: string }): TE.TaskEither<NotFound | Unavailable, WebhookSubscription> =>
    pipe(deps.webhooks.findById(q.scope, q.id), TE.flatMap(found(q.id)), TE.map(present(deps)))

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

/**
 * Changes what the input names. A subscription made inactive gets nothing more: its queued
 * deliveries are cancelled once the change is stored, and the dispatcher, which reads the
 * subscription before every attempt, starts none for it from then on.
 */
export const makeUpdateWebhookSubscription =
  (deps: Deps & Audit & { deliveries: WebhookDeliveryStore; policy: WebhookUrlPolicy }) =>
  (q: {
    scope: WebhookScope
    actor: AuditActor
    id: string
    input: WebhookSubscriptionUpdate
  }): TE.TaskEither<InvalidInput | NotFound | Unavailable, WebhookSubscription> =>
    pipe(
      TE.fromEither(allowed(q.input, deps.policy)),
      TE.flatMap((input) =>
        pipe(
          deps.webhooks.findById(q.scope, q.id),
          TE.flatMap(found(q.id)),
          TE.flatMap((r) =>
            saved(deps, q, {
              ...r,
              url: input.url ?? r.url,
              active: input.active ?? r.active,
              authentication:
                input.authentication === undefined
                  ? r.authentication
                  : input.authentication === null
                    ? null
                    : sealAuthentication(input.authentication, (s) => deps.box.seal(s)),
            }),
          ),
        ),
      ),
      TE.tap((r) => (r.active ? TE.right(0) : deps.deliveries.cancelPending(r.id, deps.clock.now()))),
      TE.map(present(deps)),
    )

/**
 * A new signing secret. With `delta` minutes the current one goes on signing too for that
 * long (deliveries carry both signatures, the new one first), so receivers can switch over;
 * without, it stops at once. A rotation during a rotation keeps only the latest previous secret.
 */
export const makeRotateWebhookSecret =
  (deps: Deps & Audit & { ids: IdGenerator }) =>
  (q: {
    scope: WebhookScope
    actor: AuditActor
    id: string
    input: WebhookSecretRotation
  }): TE.TaskEither<NotFound | Unavailable, WebhookSubscription> => {
    const deltaMs = (q.input.delta ?? 0) * 60_000
    return pipe(
      deps.webhooks.findById(q.scope, q.id),
      TE.flatMap(found(q.id)),
      TE.flatMap((r) =>
        saved(deps, q, {
          ...r,
          sealed_secret: deps.box.seal(newSecret(deps.ids)),
          previous_sealed_secret: deltaMs > 0 ? r.sealed_secret : null,
          previous_secret_expires_at: deltaMs > 0 ? new Date(deps.clock.now().getTime() + deltaMs).toISOString() : null,
        }),
      ),
      TE.map(present(deps)),
    )
  }

/**
 * Deletes for good, then cancels what was queued for it. From the moment the subscription is
 * gone no attempt starts for it on any instance (the dispatcher reads it before each one); an
 * attempt already under way may finish.
 */
export const makeDeleteWebhookSubscription =
  (deps: { webhooks: WebhookSubscriptionRepository; deliveries: WebhookDeliveryStore; clock: Clock; audited: RecordAudited }) =>
  (q: { scope: WebhookScope; actor: AuditActor; id: string }): TE.TaskEither<NotFound | Unavailable, void> =>
    pipe(
      deps.audited(
        changeOf(madeBy(q), subscriptionResource(q.id), 'deleted', 'webhook-subscription-absent'),
        pipe(
          deps.webhooks.delete(q.scope, q.id),
          TE.flatMap((deleted) => (deleted ? TE.right(undefined) : TE.left(notFound('WebhookSubscription', q.id)))),
        ),
      ),
      TE.flatMap(() => deps.deliveries.cancelPending(q.id, deps.clock.now())),
      TE.map(() => undefined),
    )
