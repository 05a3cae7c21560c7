import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { AuditActor } from '../audit/audit-entry'
import { shippingDetailsWitness } from '../audit/change-witness'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { BuyerCascade } from '../buyers/buyer-use-cases'
import { BuyerRepository } from '../buyers/buyers.ports'
import { audienceOf, CardReach } from '../reach/card-reach'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import { conflict, Conflict, Forbidden, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import {
  applyShippingDetailsUpdate,
  MAX_SHIPPING_DETAILS,
  ShippingDetails,
  ShippingDetailsCreate,
  ShippingDetailsList,
  ShippingDetailsRecord,
  shippingDetailsResource,
  ShippingDetailsUpdate,
  toShippingDetails,
} from './shipping-details'
import { ShippingDetailsRepository } from './shipping-details.ports'

export interface ShippingDetailsDeps {
  readonly buyers: BuyerRepository
  readonly shippingDetails: ShippingDetailsRepository
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly mac: Mac
  readonly audited: RecordAudited
}

/** A request about one buyer's shipping details: the buyer its path names, and who may reach it. */
export interface OfBuyer {
  readonly merchantAccountId: string
  readonly buyerId: string
  /** A server's token reaches every buyer of the account; an embed token only the buyer its claim names. */
  readonly reach: CardReach
}

type Refused = NotFound | Forbidden | Unavailable

/**
 * The buyer the path names, if the caller reaches it: an unknown buyer, and for an embed token
 * any buyer but its own, is a `404` (a browser cannot tell another buyer from none); an embed
 * token naming no buyer is a `403`.
 */
const reachedBuyer = (deps: ShippingDetailsDeps, q: OfBuyer): TE.TaskEither<Refused, void> =>
  pipe(
    audienceOf(deps.buyers, q.merchantAccountId, q.reach),
    // An embed token's buyer was just read to find its audience: only a server's is read here.
    TE.flatMap((audience) =>
      audience.all
        ? TE.map((b: O.Option<unknown>) => O.isSome(b))(deps.buyers.findById(q.merchantAccountId, q.buyerId))
        : TE.right(audience.buyerId === q.buyerId),
    ),
    TE.flatMap((reached): TE.TaskEither<Refused, void> => (reached ? TE.right(undefined) : TE.left(notFound('Buyer', q.buyerId)))),
  )

/** The buyer's shipping details with this id: another buyer's are not found under this one. */
const reachedRecord = (deps: ShippingDetailsDeps, q: OfBuyer & { readonly id: string }): TE.TaskEither<Refused, ShippingDetailsRecord> =>
  pipe(
    reachedBuyer(deps, q),
    TE.flatMap(() => deps.shippingDetails.findById(q.merchantAccountId, q.id)),
    TE.flatMap((found) =>
      O.isSome(found) && found.value.buyer_id === q.buyerId
        ? TE.right(found.value)
        : TE.left<Refused, ShippingDetailsRecord>(notFound('ShippingDetails', q.id)),
    ),
  )

/** A write that found nothing (deleted by another request meanwhile) is a `404`. */
const stored =
  (id: string) =>
  (done: boolean): TE.TaskEither<NotFound, void> =>
    done ? TE.right(undefined) : TE.left(notFound('ShippingDetails', id))

export const makeCreateShippingDetails =
  (deps: ShippingDetailsDeps) =>
  (
    cmd: OfBuyer & { readonly actor: AuditActor; readonly input: ShippingDetailsCreate },
  ): TE.TaskEither<Refused | Conflict, ShippingDetails> =>
    pipe(
      reachedBuyer(deps, cmd),
      TE.flatMap(() => deps.shippingDetails.listOfBuyer(cmd.merchantAccountId, cmd.buyerId)),
      TE.flatMap((held): TE.TaskEither<Refused | Conflict, ShippingDetailsRecord> => {
        // Checked before the write, not with it: requests racing at the limit may each pass it (see docs/accounts.md).
        if (held.length >= MAX_SHIPPING_DETAILS)
          return TE.left(
            conflict(
              cmd.buyerId,
              problem('input', [], `A buyer holds at most ${String(MAX_SHIPPING_DETAILS)} shipping details`, 'too_many_shipping_details'),
            ),
          )
        const now = deps.clock.now().toISOString()
        const { input } = cmd
        return TE.right({
          type: 'shipping-details',
          id: deps.ids.uuid(),
          buyer_id: cmd.buyerId,
          merchant_account_id: cmd.merchantAccountId,
          first_name: input.first_name ?? null,
          last_name: input.last_name ?? null,
          email_address: input.email_address ?? null,
          phone_number: input.phone_number ?? null,
          address: input.address ?? null,
          created_at: now,
          updated_at: now,
        })
      }),
      TE.tap((r) =>
        deps.audited(changeOf(cmd, shippingDetailsResource(r), 'created', 'shipping-details-present'), deps.shippingDetails.create(r)),
      ),
      TE.map(toShippingDetails),
    )

export const makeListShippingDetails =
  (deps: ShippingDetailsDeps) =>
  (q: OfBuyer): TE.TaskEither<Refused, ShippingDetailsList> =>
    pipe(
      reachedBuyer(deps, q),
      TE.flatMap(() => deps.shippingDetails.listOfBuyer(q.merchantAccountId, q.buyerId)),
      TE.map((rs) => ({ items: rs.map(toShippingDetails) })),
    )

export const makeGetShippingDetails =
  (deps: ShippingDetailsDeps) =>
  (q: OfBuyer & { readonly id: string }): TE.TaskEither<Refused, ShippingDetails> =>
    TE.map(toShippingDetails)(reachedRecord(deps, q))

/** Changes what the input names (a `PUT` that merges, as the original API's does). Two at once: the last write wins, field by field of its input. */
export const makeUpdateShippingDetails =
  (deps: ShippingDetailsDeps) =>
  (
    cmd: OfBuyer & { readonly actor: AuditActor; readonly id: string; readonly input: ShippingDetailsUpdate },
  ): TE.TaskEither<Refused, ShippingDetails> =>
    pipe(
      reachedRecord(deps, cmd),
      TE.map((r) => applyShippingDetailsUpdate(r, cmd.input, deps.clock.now().toISOString())),
      TE.tap((next) =>
        deps.audited(
          changeOf(cmd, shippingDetailsResource(next), 'updated', 'shipping-details-state', shippingDetailsWitness(deps.mac, next)),
          pipe(deps.shippingDetails.update(next), TE.flatMap(stored(next.id))),
        ),
      ),
      TE.map(toShippingDetails),
    )

export const makeDeleteShippingDetails =
  (deps: ShippingDetailsDeps) =>
  (cmd: OfBuyer & { readonly actor: AuditActor; readonly id: string }): TE.TaskEither<Refused, void> =>
    pipe(
      reachedRecord(deps, cmd),
      TE.flatMap((r) =>
        deps.audited(
          changeOf(cmd, shippingDetailsResource(r), 'deleted', 'shipping-details-absent'),
          pipe(deps.shippingDetails.delete(cmd.merchantAccountId, r.id), TE.flatMap(stored(r.id))),
        ),
      ),
    )

/** A deleted buyer's shipping details go with it (no entry each: the buyer's delete is the change). */
export const shippingDetailsCascade =
  (deps: Pick<ShippingDetailsDeps, 'shippingDetails'>): BuyerCascade =>
  (buyer) =>
    deps.shippingDetails.deleteOfBuyer(buyer.merchant_account_id, buyer.id)
