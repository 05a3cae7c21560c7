import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock } from '../shared/clock.ports'
import { Duplicate, NotFound, notFound, Unavailable } from '../shared/errors'
import { AuditActor } from '../audit/audit-entry'
import { buyerWitness } from '../audit/change-witness'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { Mac } from '../shared/crypto.ports'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import { applyBuyerUpdate, Buyer, buyerResource, BuyerUpdate } from './buyer'
import { BuyerRepository } from './buyers.ports'

const found = (id: string) =>
  O.match(
    () => TE.left<NotFound | Unavailable, Buyer>(notFound('Buyer', id)),
    (b: Buyer) => TE.right(b),
  )

/** A write that found no buyer (deleted by another request meanwhile) is a 404. */
const stored =
  (id: string) =>
  (done: boolean): TE.TaskEither<NotFound, void> =>
    done ? TE.right(undefined) : TE.left(notFound('Buyer', id))

export const makeGetBuyer =
  (deps: { buyers: BuyerRepository }) =>
  (q: { merchantAccountId: string; id: string }): TE.TaskEither<NotFound | Unavailable, Buyer> =>
    pipe(deps.buyers.findById(q.merchantAccountId, q.id), TE.flatMap(found(q.id)))

/**
 * Changes what the input names and moves `updated_at`, raising `buyer.updated` with the buyer as
 * stored. Two updates of one buyer at once: the last write wins, field by field of its input.
 */
export const makeUpdateBuyer =
  (deps: { buyers: BuyerRepository; clock: Clock; events: WebhookEvents; audited: RecordAudited; mac: Mac }) =>
  (cmd: {
    merchantAccountId: string
    actor: AuditActor
    id: string
    input: BuyerUpdate
  }): TE.TaskEither<NotFound | Duplicate | Unavailable, Buyer> =>
    pipe(
      deps.buyers.findById(cmd.merchantAccountId, cmd.id),
      TE.flatMap(found(cmd.id)),
      TE.map((buyer) => applyBuyerUpdate(buyer, cmd.input, deps.clock.now().toISOString())),
      TE.tap((next) =>
        pipe(
          deps.events.raise('buyer.updated', cmd.merchantAccountId, next),
          TE.flatMap((event) =>
            deps.audited(
              changeOf(cmd, buyerResource(next), 'updated', 'buyer-state', buyerWitness(deps.mac, next)),
              deps.events.record(event, pipe(deps.buyers.update(next), TE.flatMap(stored(next.id)))),
            ),
          ),
        ),
      ),
    )

/**
 * Removes what belongs to a buyer being deleted (its stored gift cards, say). Runs before the
 * buyer is deleted, so a delete that fails halfway leaves the buyer there to delete again.
 */
export type BuyerCascade = (buyer: Buyer) => TE.TaskEither<Unavailable, void>

/**
 * Deletes the buyer for good, after its `cascade` steps, raising `buyer.deleted` with the buyer
 * as it was. Its `external_identifier` is free again at once. A second delete is a 404.
 */
export const makeDeleteBuyer =
  (deps: { buyers: BuyerRepository; events: WebhookEvents; audited: RecordAudited; cascade: readonly BuyerCascade[] }) =>
  (cmd: { merchantAccountId: string; actor: AuditActor; id: string }): TE.TaskEither<NotFound | Unavailable, void> =>
    pipe(
      deps.buyers.findById(cmd.merchantAccountId, cmd.id),
      TE.flatMap(found(cmd.id)),
      TE.tap((buyer) => TE.traverseSeqArray((step: BuyerCascade) => step(buyer))(deps.cascade)),
      TE.flatMap((buyer) =>
        pipe(
          deps.events.raise('buyer.deleted', cmd.merchantAccountId, buyer),
          TE.flatMap((event) =>
            deps.audited(
              changeOf(cmd, buyerResource(buyer), 'deleted', 'buyer-absent'),
              deps.events.record(event, pipe(deps.buyers.delete(cmd.merchantAccountId, cmd.id), TE.flatMap(stored(cmd.id)))),
            ),
          ),
        ),
      ),
    )
