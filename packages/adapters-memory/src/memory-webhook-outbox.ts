import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { compareSortKeys, OutboxEntry, Unavailable, WebhookOutbox } from '@orka/domain'
import { atomically, keep } from './memory-support'

export class MemoryWebhookOutbox implements WebhookOutbox {
  private readonly entries = new Map<string, OutboxEntry>()

  add(entry: OutboxEntry): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      if (!this.entries.has(entry.event_id)) this.entries.set(entry.event_id, keep(entry))
      return E.right(undefined)
    })
  }

  remove(eventId: string): TE.TaskEither<Unavailable, void> {
    return atomically(() => {
      this.entries.delete(eventId)
      return E.right(undefined)
    })
  }

  olderThan(before: Date, limit: number): TE.TaskEither<Unavailable, readonly OutboxEntry[]> {
    const cut = before.toISOString()
    return atomically(() =>
      E.right(
        [...this.entries.values()]
          .filter((e) => e.created_at < cut)
          .sort((a, b) => compareSortKeys([a.created_at, a.event_id], [b.created_at, b.event_id]))
          .slice(0, limit),
      ),
    )
  }
}
