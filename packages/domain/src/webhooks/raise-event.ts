import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as T from 'fp-ts/Task'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import { macUuid } from '../shared/mac-uuid'
import { Unavailable } from '../shared/errors'
import { deliveriesOf } from './webhook-delivery'
import { WebhookDeliveryStore, WebhookDispatch, WebhookOutbox } from './webhook-delivery.ports'
import { Environment, OutboxEntry, outboxEntryOf } from './webhook-event'
import { FanOut, PrepareEvent, RaiseEvent, RecordWithEvent, WebhookEvents } from './webhook-events.ports'
import { WebhookSubscriptionRepository } from './webhooks.ports'

/** An event about to be raised, with no recipients yet (see `PrepareEvent`). */
export const makePrepareEvent =
  (deps: { ids: IdGenerator; clock: Clock; environment: Environment }): PrepareEvent =>
  (name, merchantAccountId, target) =>
    outboxEntryOf({
      name,
      merchantAccountId,
      target,
      environment: deps.environment,
      eventId: deps.ids.uuid(),
      at: deps.clock.now(),
      deliveries: [],
    })

/**
 * An event about to be raised, fanned out to the account's active subscriptions and the active
 * instance-wide ones at this moment. None when nobody listens: the write then costs nothing more.
 */
export const makeRaiseEvent =
  (deps: { webhooks: WebhookSubscriptionRepository; ids: IdGenerator; clock: Clock; environment: Environment }): RaiseEvent =>
  (name, merchantAccountId, target) =>
    pipe(
      deps.webhooks.recipients(merchantAccountId),
      TE.map((subs) =>
        subs.length === 0
          ? O.none
          : O.some({
              ...makePrepareEvent(deps)(name, merchantAccountId, target),
              deliveries: subs.map((s) => ({ id: deps.ids.uuid(), subscription_id: s.id })),
            }),
      ),
    )

/**
 * Runs `write` with its event in the outbox first, so that without a transaction a crash can
 * neither lose the event of a stored write nor send one for a write that did not happen: the
 * relay hands over an entry whose write it finds, and drops one whose write it does not. A
 * failed write removes its entry at once; a stored one is handed over at once.
 */
export const makeRecordWithEvent =
  (deps: { outbox: WebhookOutbox; dispatch: WebhookDispatch }): RecordWithEvent =>
  <Err, A>(event: O.Option<OutboxEntry>, write: TE.TaskEither<Err, A>): TE.TaskEither<Err | Unavailable, A> => {
    if (O.isNone(event)) return write
    const entry = event.value
    const forget = pipe(
      deps.outbox.remove(entry.event_id),
      T.map(() => undefined),
    )
    return pipe(
      deps.outbox.add(entry),
      TE.flatMap((): TE.TaskEither<Err | Unavailable, A> =>
        pipe(
          write,
          TE.orElseFirstTaskK(() => forget),
        ),
      ),
      TE.tap(() => TE.fromTask(deps.dispatch.publish(entry))),
    )
  }

/**
 * Fans prepared events out to the active subscriptions of their accounts and the active
 * instance-wide ones at this moment (one read per account), each delivery's id a MAC of its
 * event and subscription.
 */
export const makeFanOut =
  (deps: { webhooks: WebhookSubscriptionRepository; deliveries: WebhookDeliveryStore; dispatch: WebhookDispatch; mac: Mac }): FanOut =>
  (events) =>
  async () => {
    const recipients = new Map<string, readonly { readonly id: string }[]>()
    for (const account of new Set(events.map((e) => e.merchant_account_id))) {
      const subs = await deps.webhooks.recipients(account)()
      if (E.isLeft(subs)) return subs
      recipients.set(account, subs.right)
    }
    const deliveries = events.flatMap((e) =>
      deliveriesOf({
        ...e,
        deliveries: (recipients.get(e.merchant_account_id) ?? []).map((s) => ({
          id: macUuid(deps.mac, 'webhook-delivery', `${e.event_id}\u0000${s.id}`),
          subscription_id: s.id,
        })),
      }),
    )
    if (deliveries.length === 0) return E.right(undefined)
    const stored = await deps.deliveries.enqueue(deliveries)()
    if (E.isRight(stored)) deps.dispatch.wake()
    return stored
  }

export const makeWebhookEvents = (
  deps: Parameters<typeof makeRaiseEvent>[0] & Parameters<typeof makeRecordWithEvent>[0],
): WebhookEvents => ({ raise: makeRaiseEvent(deps), record: makeRecordWithEvent(deps), prepare: makePrepareEvent(deps) })
