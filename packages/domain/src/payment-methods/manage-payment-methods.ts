import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { BuyerCascade } from '../buyers/buyer-use-cases'
import { BuyerRepository } from '../buyers/buyers.ports'
import { audienceOf, CardReach, sees } from '../reach/card-reach'
import { listedBuyer } from '../gift-cards/manage-gift-cards'
import { Page } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { Clock } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import { Forbidden, InvalidRequest, NotFound, notFound, Unavailable } from '../shared/errors'
import { AuditActor } from '../audit/audit-entry'
import { paymentMethodWitness } from '../audit/change-witness'
import { changeOf, RecordAudited, recordedDelete } from '../audit/record-audited'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import {
  PaymentMethod,
  paymentMethodResource,
  paymentMethodSortKey,
  PaymentMethodStatus,
  PaymentMethodUpdate,
} from './payment-method.codecs'
import { PaymentMethodVault } from './payment-method.ports'

/** The filters of `GET /payment-methods`, as sent. */
export interface PaymentMethodListFilter {
  readonly buyer_id?: string
  readonly buyer_external_identifier?: string
  readonly status?: readonly PaymentMethodStatus[]
  readonly external_identifier?: string
}

interface ReadDeps {
  readonly paymentMethods: PaymentMethodVault
  readonly buyers: BuyerRepository
}

/**
 * The account's payment methods, newest first. The buyer filters work as for stored gift cards
 * (`listedBuyer`: an embed token sees only its buyer's); `status` keeps any of the statuses given.
 */
export const makeListPaymentMethods =
  (deps: ReadDeps & { mac: Mac }) =>
  (
    q: PageQuery & { merchantAccountId: string; filter: PaymentMethodListFilter; reach: CardReach },
  ): TE.TaskEither<Forbidden | InvalidRequest | Unavailable, Page<PaymentMethod>> => {
    const { buyer_id, buyer_external_identifier, status, external_identifier } = q.filter
    // The filters are part of the cursor's scope: a cursor cannot be reused with other filters.
    const filters = [buyer_id ?? null, buyer_external_identifier ?? null, status ?? null, external_identifier ?? null]
    const scope = `payment-methods\u0000${q.merchantAccountId}\u0000${JSON.stringify(filters)}`
    return pipe(
      listedBuyer(deps.buyers, q.merchantAccountId, q.reach, q.filter),
      TE.flatMap((buyer) =>
        paginate(deps, scope, paymentMethodSortKey, (seek) =>
          O.isNone(buyer)
            ? TE.right<Unavailable, readonly PaymentMethod[]>([])
            : deps.paymentMethods.list(
                q.merchantAccountId,
                {
                  ...(buyer.value === undefined ? {} : { buyer_id: buyer.value }),
                  ...(status === undefined ? {} : { status }),
                  ...(external_identifier === undefined ? {} : { external_identifier }),
                },
                seek,
              ),
        )(q),
      ),
    )
  }

/** One payment method of the account; another account's (or another buyer's, for an embed token) is not found, as one never stored. */
export const makeGetPaymentMethod =
  (deps: ReadDeps) =>
  (q: { merchantAccountId: string; id: string; reach: CardReach }): TE.TaskEither<Forbidden | NotFound | Unavailable, PaymentMethod> =>
    pipe(
      audienceOf(deps.buyers, q.merchantAccountId, q.reach),
      TE.flatMap((audience) =>
        pipe(deps.paymentMethods.findById(q.merchantAccountId, q.id), TE.map(O.filter((v) => sees(audience, v.method)))),
      ),
      TE.flatMap(
        O.match(
          () => TE.left<Forbidden | NotFound | Unavailable, PaymentMethod>(notFound('PaymentMethod', q.id)),
          (v) => TE.right(v.method),
        ),
      ),
    )

/**
 * `PUT /payment-methods/{id}`: changes what the body names (absent: as it was; null clears it).
 * The expiry is checked for its form only: a card past it is kept, and refused when it pays.
 */
export const makeUpdatePaymentMethod =
  (deps: ReadDeps & { clock: Clock; mac: Mac; audited: RecordAudited }) =>
  (q: {
    merchantAccountId: string
    actor: AuditActor
    id: string
    input: PaymentMethodUpdate
    reach: CardReach
  }): TE.TaskEither<Forbidden | NotFound | Unavailable, PaymentMethod> =>
    pipe(
      makeGetPaymentMethod(deps)(q),
      TE.flatMap((method) => {
        const at = deps.clock.now().toISOString()
        return deps.audited(
          changeOf(q, paymentMethodResource(method), 'updated', 'payment-method-state', paymentMethodWitness(deps.mac, { updated_at: at })),
          pipe(
            deps.paymentMethods.update(q.merchantAccountId, q.id, q.input, at),
            TE.flatMap(TE.fromOption((): Forbidden | NotFound | Unavailable => notFound('PaymentMethod', q.id))),
          ),
        )
      }),
    )

/**
 * Deletes a payment method: the vault removes it with its sealed number, nothing is kept, and it
 * can pay no more. `payment-method.deleted` goes to the outbox before the delete; a delete that
 * finds the method gone meanwhile (a racing delete) is a 404 and takes its entry back.
 */
export const makeDeletePaymentMethod =
  (deps: ReadDeps & { events: WebhookEvents; audited: RecordAudited }) =>
  (q: {
    merchantAccountId: string
    actor: AuditActor
    id: string
    reach: CardReach
  }): TE.TaskEither<Forbidden | NotFound | Unavailable, void> =>
    pipe(
      makeGetPaymentMethod(deps)(q),
      TE.flatMap((method) =>
        pipe(
          deps.events.raise('payment-method.deleted', q.merchantAccountId, method),
          TE.flatMap((event) =>
            recordedDelete(
              { audited: deps.audited, record: deps.events.record },
              event,
              changeOf(q, paymentMethodResource(method), 'deleted', 'payment-method-absent'),
              deps.paymentMethods.delete(q.merchantAccountId, q.id),
              notFound('PaymentMethod', q.id),
            ),
          ),
        ),
      ),
    )

/** The step of a buyer's deletion that deletes its payment methods with it (sealed numbers destroyed). */
export const deleteBuyersPaymentMethods =
  (vault: PaymentMethodVault): BuyerCascade =>
  (buyer) =>
    pipe(
      vault.deleteByBuyer(buyer.merchant_account_id, buyer.id),
      TE.map(() => undefined),
    )
