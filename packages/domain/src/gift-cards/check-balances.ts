import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { BuyerRepository } from '../buyers/buyers.ports'
import { Forbidden, NotFound, notFound, problem, Unavailable } from '../shared/errors'
import { audienceOf, CardReach, EVERYONE, sees } from '../reach/card-reach'
import { BalanceCheckDeps, BalanceSubject, checkBalance } from './card-balance'
import { BalanceItem, GiftCardSummary } from './gift-card.codecs'
import { GiftCardServiceRepository, GiftCardVault } from './gift-card.ports'

export interface CheckBalancesDeps extends BalanceCheckDeps {
  readonly giftCardServices: GiftCardServiceRepository
  readonly giftCardVault: GiftCardVault
  readonly buyers: BuyerRepository
}

export interface CheckBalancesQuery {
  readonly merchantAccountId: string
  readonly items: readonly BalanceItem[]
  readonly reach: CardReach
}

const unknownItem = (i: number, id: string): NotFound =>
  notFound(
    'GiftCard',
    id,
    problem('input', ['items', String(i), 'id'], `No gift card with the id of item ${i} exists`, 'unknown_gift_card'),
  )

/**
 * `POST /gift-cards/balances`: each item's balance, in request order. A card given by number
 * and PIN is asked of the account's primary gift card service and forgotten (never stored or
 * logged); a stored card of the service it was stored with. Every `{id}` is resolved before any
 * service is asked: one the caller cannot see (unknown, deleted, another account's, or another
 * buyer's for an embed token) makes the whole request a 404 naming the first such item. After
 * that nothing fails the request: a card the service refuses, or a service that fails or does
 * not answer, is that item's `balance_error_code`. Items are checked concurrently.
 */
export const makeCheckBalances =
  (deps: CheckBalancesDeps) =>
  (q: CheckBalancesQuery): TE.TaskEither<Forbidden | NotFound | Unavailable, { readonly items: readonly GiftCardSummary[] }> =>
  async () => {
    // An embed token naming no buyer may still ask about cards by number.
    const audience = q.items.some((i) => 'id' in i) ? await audienceOf(deps.buyers, q.merchantAccountId, q.reach)() : E.right(EVERYONE)
    if (E.isLeft(audience)) return audience
    const [primary, ...found] = await Promise.all([
      deps.giftCardServices.findPrimary(q.merchantAccountId)(),
      ...q.items.map((item) => ('id' in item ? deps.giftCardVault.findById(q.merchantAccountId, item.id)() : E.right(O.none))),
    ])
    if (E.isLeft(primary)) return primary
    const service = O.toNullable(primary.right)?.service ?? null
    const subjects: BalanceSubject[] = []
    for (const [i, item] of q.items.entries()) {
      if (!('id' in item)) {
        subjects.push({ kind: 'unstored', number: item.number, pin: item.pin, service })
        continue
      }
      const f = found[i]
      if (f === undefined || E.isLeft(f)) return f ?? E.left(unknownItem(i, item.id))
      const vaulted = O.toNullable(f.right)
      if (vaulted === null || !sees(audience.right, vaulted.card)) return E.left(unknownItem(i, item.id))
      subjects.push({ kind: 'stored', vaulted })
    }
    return E.right({ items: await Promise.all(subjects.map((s) => checkBalance(deps, q.merchantAccountId)(s)())) })
  }
