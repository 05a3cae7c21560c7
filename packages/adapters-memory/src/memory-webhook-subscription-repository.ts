import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  Seek,
  seekIn,
  unavailable,
  Unavailable,
  WebhookScope,
  webhookSortKey,
  WebhookSubscriptionRecord,
  WebhookSubscriptionRepository,
} from '@orka/domain'
import { atomically, keep } from './memory-support'

const inScope = (scope: WebhookScope, s: WebhookSubscriptionRecord) =>
  s.merchant_account_id === scope.merchantAccountId || (s.merchant_account_id === null && scope.includeInstanceWide)

export class MemoryWebhookSubscriptionRepository implements WebhookSubscriptionRepository {
  private readonly subs = new Map<string, WebhookSubscriptionRecord>()
  /** Ids deleted for good: `ensure` never recreates them. */
  private readonly deleted = new Set<string>()

  create(sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      // Ids come from the id generator; a clash is a bug, reported like a database's duplicate key.
      if (this.subs.has(sub.id)) return E.left(unavailable(new Error(`webhook subscription ${sub.id} already exists`)))
      this.subs.set(sub.id, keep(sub))
      return E.right(undefined)
    })
  }

  ensure(sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      if (!this.subs.has(sub.id) && !this.deleted.has(sub.id)) this.subs.set(sub.id, keep(sub))
      return E.right(undefined)
    })
  }

  findById(scope: WebhookScope, id: string): TE.TaskEither<Unavailable, O.Option<WebhookSubscriptionRecord>> {
    return atomically(() => {
      const s = this.subs.get(id)
      return E.right(s !== undefined && inScope(scope, s) ? O.some(s) : O.none)
    })
  }

  list(scope: WebhookScope, seek: Seek): TE.TaskEither<Unavailable, readonly WebhookSubscriptionRecord[]> {
    return atomically(() => {
      const visible = [...this.subs.values()].filter((s) => inScope(scope, s))
      return E.right(seekIn(visible, webhookSortKey, 'descending', seek))
    })
  }

  delete(scope: WebhookScope, id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const s = this.subs.get(id)
      if (s === undefined || !inScope(scope, s)) return E.right(false)
      this.deleted.add(id)
      return E.right(this.subs.delete(id))
    })
  }

  update(scope: WebhookScope, sub: WebhookSubscriptionRecord): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const s = this.subs.get(sub.id)
      if (s === undefined || !inScope(scope, s)) return E.right(false)
      this.subs.set(sub.id, keep(sub))
      return E.right(true)
    })
  }

  findForDelivery(id: string): TE.TaskEither<Unavailable, O.Option<WebhookSubscriptionRecord>> {
    return atomically(() => E.right(O.fromNullable(this.subs.get(id))))
  }

  recipients(merchantAccountId: string): TE.TaskEither<Unavailable, readonly WebhookSubscriptionRecord[]> {
    return atomically(() =>
      E.right(
        [...this.subs.values()].filter((s) => s.active && (s.merchant_account_id === merchantAccountId || s.merchant_account_id === null)),
      ),
    )
  }
}
