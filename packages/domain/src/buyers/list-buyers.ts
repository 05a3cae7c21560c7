import * as TE from 'fp-ts/TaskEither'
import { paginate, PageQuery } from '../pagination/paginate'
import { Page } from '../pagination/page'
import { Mac } from '../shared/crypto.ports'
import { InvalidRequest, Unavailable } from '../shared/errors'
import { Buyer, buyerSortKey } from './buyer'
import { BuyerFilter, BuyerRepository } from './buyers.ports'

export const makeListBuyers =
  (deps: { buyers: BuyerRepository; mac: Mac }) =>
  (q: PageQuery & { merchantAccountId: string; filter: BuyerFilter }): TE.TaskEither<InvalidRequest | Unavailable, Page<Buyer>> =>
    paginate(
      deps,
      // The filters are part of the cursor's scope: a cursor cannot be reused with other filters.
      // Without `search` the scope is what it was before `search` existed, so earlier cursors stay valid.
      `buyers\u0000${q.merchantAccountId}\u0000${JSON.stringify(
        q.filter.search === undefined ? [q.filter.external_identifier ?? null] : [q.filter.external_identifier ?? null, q.filter.search],
      )}`,
      buyerSortKey,
      (seek) => deps.buyers.list(q.merchantAccountId, q.filter, seek),
    )(q)
