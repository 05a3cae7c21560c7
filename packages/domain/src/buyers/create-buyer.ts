import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Duplicate, Unavailable } from '../shared/errors'
import { AuditActor } from '../audit/audit-entry'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import { Buyer, BuyerCreate, buyerResource, reconciliationId } from './buyer'
import { BuyerRepository } from './buyers.ports'

export const makeCreateBuyer =
  (deps: { buyers: BuyerRepository; clock: Clock; ids: IdGenerator; events: WebhookEvents; audited: RecordAudited }) =>
  (cmd: { merchantAccountId: string; actor: AuditActor; input: BuyerCreate }): TE.TaskEither<Duplicate | Unavailable, Buyer> => {
    const id = deps.ids.uuid()
    const now = deps.clock.now().toISOString()
    const buyer: Buyer = {
      type: 'buyer',
      id,
      reconciliation_id: reconciliationId(id),
      merchant_account_id: cmd.merchantAccountId,
      display_name: cmd.input.display_name ?? null,
      external_identifier: cmd.input.external_identifier ?? null,
      billing_details: cmd.input.billing_details ?? null,
      account_number: cmd.input.account_number ?? null,
      created_at: now,
      updated_at: now,
    }
    return pipe(
      deps.events.raise('buyer.created', cmd.merchantAccountId, buyer),
      TE.flatMap((event) =>
        deps.audited(changeOf(cmd, buyerResource(buyer), 'created', 'buyer-present'), deps.events.record(event, deps.buyers.create(buyer))),
      ),
      TE.map(() => buyer),
    )
  }
