import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { BuyerRepository } from '../buyers/buyers.ports'
import { Clock } from '../shared/clock.ports'
import { oneOf, RuleViolation } from '../shared/codecs'
import { Forbidden, Unavailable } from '../shared/errors'
import { buyerInReach, BuyerRef, CardReach } from '../reach/card-reach'
import { BalanceCheckDeps, checkBalance } from './card-balance'
import { GiftCard, GiftCardSummary } from './gift-card.codecs'
import { GiftCardVault } from './gift-card.ports'

/** The most cards of one buyer that `GET /buyers/gift-cards` checks: its newest stored ones. */
export const MAX_BUYER_GIFT_CARDS = 50

export const BuyerGiftCardsSortBy = oneOf('BuyerGiftCardsSortBy', ['last_used_at', 'usage_count', 'cit_last_used_at', 'cit_usage_count'])
export const OrderBy = oneOf('OrderBy', ['asc', 'desc'])

/** The buyer is named exactly one way. */
export const ONE_BUYER_RULES: readonly {
  description: string
  check: (q: { buyer_id?: string; buyer_external_identifier?: string }) => RuleViolation | undefined
}[] = [
  {
    description: 'One of `buyer_id` and `buyer_external_identifier` is required.',
    check: (q) =>
      q.buyer_id === undefined && q.buyer_external_identifier === undefined
        ? { path: ['buyer_id'], msg: 'one of `buyer_id` and `buyer_external_identifier` is required' }
        : undefined,
  },
  {
    description: '`buyer_id` and `buyer_external_identifier` must not both be set.',
    check: (q) =>
      q.buyer_id !== undefined && q.buyer_external_identifier !== undefined
        ? { path: ['buyer_external_identifier'], msg: '`buyer_id` and `buyer_external_identifier` must not both be set' }
        : undefined,
  },
]

export interface BuyerGiftCardsDeps extends BalanceCheckDeps {
  readonly giftCardVault: GiftCardVault
  readonly buyers: BuyerRepository
  readonly clock: Clock
}

export interface BuyerGiftCardsQuery {
  readonly merchantAccountId: string
  readonly buyer: BuyerRef
  readonly sortBy: t.TypeOf<typeof BuyerGiftCardsSortBy> | null
  readonly orderBy: t.TypeOf<typeof OrderBy>
  readonly reach: CardReach
}

const compare = (x: string | number | null, y: string | number | null): number =>
  x === y ? 0 : x === null ? -1 : y === null ? 1 : x < y ? -1 : 1

/** By `sortBy` (a never-used card's null sorts as the smallest), then by age, then id; `orderBy` turns all three. */
const order =
  (q: Pick<BuyerGiftCardsQuery, 'sortBy' | 'orderBy'>) =>
  (a: GiftCard, b: GiftCard): number => {
    const c =
      (q.sortBy === null ? 0 : compare(a[q.sortBy] ?? null, b[q.sortBy] ?? null)) ||
      compare(a.created_at, b.created_at) ||
      compare(a.id, b.id)
    return q.orderBy === 'asc' ? c : -c
  }

/**
 * `GET /buyers/gift-cards`: the buyer's stored cards that can still pay, with their current
 * balances (`MAX_BUYER_GIFT_CARDS` newest, checked concurrently). A card stored as expired,
 * one the service answers is empty, expired (`expired_card`) or past its expiration date, is
 * left out; a card whose balance could not be fetched is listed with its `balance_error_code`.
 * An unknown buyer, or another buyer than an embed token's, has no cards to show.
 */
export const makeListBuyerGiftCards =
  (deps: BuyerGiftCardsDeps) =>
  (q: BuyerGiftCardsQuery): TE.TaskEither<Forbidden | Unavailable, { readonly items: readonly GiftCardSummary[] }> =>
  async () => {
    const buyer = await buyerInReach(deps.buyers, q.merchantAccountId, q.reach, q.buyer)()
    if (E.isLeft(buyer)) return buyer
    if (buyer.right === null) return E.right({ items: [] })
    const cards = await deps.giftCardVault.forBuyer(q.merchantAccountId, buyer.right.id, MAX_BUYER_GIFT_CARDS)()
    if (E.isLeft(cards)) return cards
    const now = deps.clock.now().getTime()
    const live = (expiration: string | null | undefined) => expiration == null || Date.parse(expiration) > now
    const checked = await Promise.all(
      cards.right
        .filter((v) => live(v.card.expiration_date))
        .sort((a, b) => order(q)(a.card, b.card))
        .map((vaulted) => checkBalance(deps, q.merchantAccountId)({ kind: 'stored', vaulted })()),
    )
    return E.right({ items: checked.filter((s) => s.balance !== 0 && s.balance_error_code !== 'expired_card' && live(s.expiration_date)) })
  }
