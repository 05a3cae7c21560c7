import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { BuyerRepository } from '../buyers/buyers.ports'
import { buyerInReach, BuyerRef, CardReach } from '../reach/card-reach'
import { Clock } from '../shared/clock.ports'
import { oneOf } from '../shared/codecs'
import { Forbidden, Unavailable } from '../shared/errors'
import { expiredAt } from '../cards/card-number'
import { PaymentMethod, PaymentMethodSummary, toSummary } from './payment-method.codecs'
import { PaymentMethodVault } from './payment-method.ports'

/** The most methods of one buyer that `GET /buyers/payment-methods` lists: its newest usable ones. */
export const MAX_BUYER_PAYMENT_METHODS = 100

/** What `GET /buyers/payment-methods` may sort by (the original API's one choice); absent, by age. */
export const BuyerPaymentMethodsSortBy = oneOf('BuyerPaymentMethodsSortBy', ['last_used_at'])

export interface BuyerPaymentMethodsQuery {
  readonly merchantAccountId: string
  readonly buyer: BuyerRef
  readonly sortBy: t.TypeOf<typeof BuyerPaymentMethodsSortBy> | null
  readonly orderBy: 'asc' | 'desc'
  readonly reach: CardReach
}

const compare = (x: string | null, y: string | null): number => (x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1)

/** By `sortBy` (a never-used card's null sorts as the smallest), then by age, then id; `orderBy` turns all three. */
const order =
  (q: Pick<BuyerPaymentMethodsQuery, 'sortBy' | 'orderBy'>) =>
  (a: PaymentMethod, b: PaymentMethod): number => {
    const c =
      (q.sortBy === null ? 0 : compare(a.last_used_at ?? null, b.last_used_at ?? null)) ||
      compare(a.created_at, b.created_at) ||
      compare(a.id, b.id)
    return q.orderBy === 'asc' ? c : -c
  }

/**
 * `GET /buyers/payment-methods`: the buyer's methods that can pay now (`succeeded`, not past
 * their expiry month), at most `MAX_BUYER_PAYMENT_METHODS`. A card pays in any currency and
 * country, so the vendor's `country` and `currency` narrow nothing. An unknown buyer, or another
 * buyer than an embed token's, has no methods to show.
 */
export const makeListBuyerPaymentMethods =
  (deps: { paymentMethods: PaymentMethodVault; buyers: BuyerRepository; clock: Clock }) =>
  (q: BuyerPaymentMethodsQuery): TE.TaskEither<Forbidden | Unavailable, { readonly items: readonly PaymentMethodSummary[] }> =>
  async () => {
    const buyer = await buyerInReach(deps.buyers, q.merchantAccountId, q.reach, q.buyer)()
    if (E.isLeft(buyer)) return buyer
    if (buyer.right === null) return E.right({ items: [] })
    const methods = await deps.paymentMethods.forBuyer(q.merchantAccountId, buyer.right.id, ['succeeded'], MAX_BUYER_PAYMENT_METHODS)()
    if (E.isLeft(methods)) return methods
    const now = deps.clock.now()
    const live = methods.right.filter((m) => m.expiration_date == null || !expiredAt(m.expiration_date, now))
    return E.right({ items: [...live].sort(order(q)).map(toSummary) })
  }
