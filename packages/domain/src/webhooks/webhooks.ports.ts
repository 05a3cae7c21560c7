import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Seek } from '../pagination/page'
import { Unavailable } from '../shared/errors'
import { token } from '../shared/token'
import { WebhookSubscriptionRecord } from './webhook-subscription'

/**
 * Which subscriptions a caller sees: its merchant account's, plus the instance-wide ones
 * (merchant_account_id null) when its key is not bound to one account.
 */
export interface WebhookScope {
  readonly merchantAccountId: string
  readonly includeInstanceWide: boolean
}

export interface WebhookSubscriptionRepository {
  create(sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, void>
  /**
   * Creates the subscription unless one with its id exists or ever existed (idempotent
   * provisioning): a deleted subscription stays deleted, even when a seed names it again.
   */
  ensure(sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, void>
  findById(scope: WebhookScope, id: string): TE.TaskEither<Unavailable, O.Option<WebhookSubscriptionRecord>>
  /** Keyset read in descending (created_at, id) order: newest first. */
  list(scope: WebhookScope, seek: Seek): TE.TaskEither<Unavailable, readonly WebhookSubscriptionRecord[]>
  /** Deletes for good; false when nothing in scope has this id (unknown, already deleted, another account's). */
  delete(scope: WebhookScope, id: string): TE.TaskEither<Unavailable, boolean>
  /** Replaces the stored subscription with `sub` (same id); false when none in scope has its id (a deleted one stays deleted). */
  update(scope: WebhookScope, sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, boolean>
  /** The subscription with this id whatever its account: for the dispatcher, which acts for no caller. */
  findForDelivery(id: string): TE.TaskEither<Unavailable, O.Option<WebhookSubscriptionRecord>>
  /** Who receives an event of this account: its active subscriptions and the active instance-wide ones, in no particular order. */
  recipients(merchantAccountId: string): TE.TaskEither<Unavailable, readonly WebhookSubscriptionRecord[]>
}
export const WebhookSubscriptionRepository = token<WebhookSubscriptionRepository>('WebhookSubscriptionRepository')
