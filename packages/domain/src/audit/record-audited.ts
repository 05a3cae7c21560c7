import * as T from 'fp-ts/Task'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock, IdGenerator } from '../shared/clock.ports'
import * as O from 'fp-ts/Option'
import { NotFound, Unavailable } from '../shared/errors'
import { OutboxEntry } from '../webhooks/webhook-event'
import { RecordWithEvent } from '../webhooks/webhook-events.ports'
import { token } from '../shared/token'
import { AuditActor, AuditedResource, AuditLogAction, AuditRecord, ChangeCheck, ChangeProbe } from './audit-entry'
import { AuditLog } from './audit.ports'

const isUnavailable = (e: unknown): boolean => typeof e === 'object' && e !== null && (e as { _tag?: unknown })._tag === 'Unavailable'

/** A change about to be made through the API (or the CLI), as its audit entry will tell it. */
export interface AuditedChange {
  /** Null for an instance-wide change (a key bound to no account): no account lists it. */
  readonly merchantAccountId: string | null
  readonly actor: AuditActor
  readonly resource: { readonly type: AuditedResource; readonly id: string; readonly name: string }
  readonly action: AuditLogAction
  /** How the relay tells that the change happened, should this process stop before it commits the entry. */
  readonly check: ChangeCheck
  /** What an update changed, by name (never a value), when it knows. */
  readonly changes?: readonly string[]
}

/** The entry a change will have, written with the version that makes it (`committed`: that version's existence is the change). */
export const auditRecordOf = (deps: { ids: IdGenerator; clock: Clock }, change: AuditedChange, committed: boolean): AuditRecord => ({
  id: deps.ids.uuid(),
  merchant_account_id: change.merchantAccountId,
  resource: change.resource,
  action: change.action,
  user: { id: change.actor.id, name: change.actor.name },
  timestamp: deps.clock.now().toISOString(),
  committed,
  check: committed ? null : change.check,
  changes: change.changes ?? null,
})

/** Runs a write with its audit entry pending first (see `makeRecordAudited`). */
export type RecordAudited = <Err, A>(change: AuditedChange, write: TE.TaskEither<Err, A>) => TE.TaskEither<Err | Unavailable, A>
export const RecordAudited = token<RecordAudited>('RecordAudited')

/**
 * Runs `write` with its audit entry stored pending first, the webhook outbox's guarantee
 * without a transaction: a write refused drops the entry, a stored one commits it, and after a
 * crash between the two the relay (`makeSettleAudit`) commits the entry whose change it finds
 * and drops the one whose change it does not. So an entry is never lost for a change that was
 * stored, and never listed for one that was not. A write that ends `Unavailable` (a timeout)
 * may have been stored all the same: its entry is left to the relay too, as is one whose
 * commit fails (the change stands, and the request that made it succeeds).
 */
export const makeRecordAudited =
  (deps: { audit: AuditLog; ids: IdGenerator; clock: Clock }): RecordAudited =>
  <Err, A>(change: AuditedChange, write: TE.TaskEither<Err, A>): TE.TaskEither<Err | Unavailable, A> => {
    const record = auditRecordOf(deps, change, false)
    const settle = (how: 'commit' | 'drop') =>
      pipe(
        deps.audit[how](record.id),
        T.map(() => undefined),
      )
    return pipe(
      deps.audit.add(record),
      TE.flatMap((): TE.TaskEither<Err | Unavailable, A> =>
        pipe(
          write,
          TE.orElseFirstTaskK((e) => (isUnavailable(e) || e instanceof NotKnownYet ? T.of(undefined) : settle('drop'))),
        ),
      ),
      TE.tap(() => TE.fromTask(settle('commit'))),
    )
  }

/** A write's answer that says it changed nothing, carried past the audit wrapper. */
class NothingChanged<A> {
  constructor(readonly answer: A) {}
}

/** A write's answer that says its outcome is not known yet: the entry stays pending, for the relay to settle. */
class NotKnownYet<A> {
  constructor(readonly answer: A) {}
}

/** What a write's answer says of the change its entry names. */
export type ChangeOutcome = 'happened' | 'not-happened' | 'not-known'

/**
 * For a write whose answer says whether the change its entry names happened (a capture the
 * service declined is no capture): committed when it did, dropped when it did not, left
 * pending while it is not known (the relay settles it by its check once it is).
 */
export const auditedOutcome = <Err, A>(
  audited: RecordAudited,
  change: AuditedChange,
  write: TE.TaskEither<Err, A>,
  outcome: (answer: A) => ChangeOutcome,
): TE.TaskEither<Err | Unavailable, A> =>
  pipe(
    audited(
      change,
      pipe(
        write,
        TE.flatMap((a): TE.TaskEither<Err | NothingChanged<A> | NotKnownYet<A>, A> => {
          const o = outcome(a)
          return o === 'happened' ? TE.right(a) : TE.left(o === 'not-happened' ? new NothingChanged(a) : new NotKnownYet(a))
        }),
      ),
    ),
    TE.orElse((e): TE.TaskEither<Err | Unavailable, A> =>
      e instanceof NothingChanged || e instanceof NotKnownYet ? TE.right(e.answer) : TE.left(e),
    ),
  )

/**
 * For a write whose answer can say it changed nothing (it lost a race, found nothing): its
 * entry is dropped then, and the answer goes through as it was.
 */
export const auditedWhen = <Err, A>(
  audited: RecordAudited,
  change: AuditedChange,
  write: TE.TaskEither<Err, A>,
  changed: (answer: A) => boolean,
): TE.TaskEither<Err | Unavailable, A> => auditedOutcome(audited, change, write, (a) => (changed(a) ? 'happened' : 'not-happened'))

/** The usual change: a resource of the command's account, checked by the resource's own id. */
export const changeOf = (
  cmd: { readonly merchantAccountId: string | null; readonly actor: AuditActor },
  resource: AuditedChange['resource'],
  action: AuditLogAction,
  probe: ChangeProbe,
  witness: string | null = null,
): AuditedChange => ({
  merchantAccountId: cmd.merchantAccountId,
  actor: cmd.actor,
  resource,
  action,
  check: { probe, id: resource.id, witness },
})

/**
 * A stored card's deletion (a gift card's, a payment method's): its event in the outbox and its
 * entry pending first; a delete that finds it gone meanwhile (a racing delete) is a 404, which
 * takes both back.
 */
export const recordedDelete = (
  deps: { readonly audited: RecordAudited; readonly record: RecordWithEvent },
  event: O.Option<OutboxEntry>,
  change: AuditedChange,
  remove: TE.TaskEither<Unavailable, boolean>,
  gone: NotFound,
): TE.TaskEither<NotFound | Unavailable, void> =>
  deps.audited(
    change,
    deps.record(
      event,
      pipe(
        remove,
        TE.flatMap((removed): TE.TaskEither<NotFound | Unavailable, void> => (removed ? TE.right(undefined) : TE.left(gone))),
      ),
    ),
  )
