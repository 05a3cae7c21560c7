import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { AuditActor } from '../audit/audit-entry'
import { merchantAccountWitness } from '../audit/change-witness'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { DEFAULT_LIMIT, Page } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { Clock } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { Duplicate, duplicate, Forbidden, forbidden, InvalidRequest, NotFound, notFound, Unavailable } from '../shared/errors'
import {
  applyMerchantAccountChanges,
  MerchantAccount,
  MerchantAccountCreate,
  merchantAccountResource,
  merchantAccountSortKey,
  MerchantAccountUpdate,
  MerchantAccountView,
  newMerchantAccount,
  toMerchantAccountView,
} from './merchant-account'
import { MerchantAccountRepository } from './merchant-account.ports'

/**
 * What a new account starts with beside itself: the app's sandbox services (a primary mock gift
 * card service, an active mock card service). Runs for an id no account has, before the account
 * is stored, and only adds what the account has none of: a create retried after a failure adds
 * nothing twice, and a create that loses a race for the id added only what that account lacked.
 */
export type MerchantAccountOnboarding = (merchantAccountId: string) => TE.TaskEither<Unavailable, void>

export interface MerchantAccountDeps {
  readonly merchantAccounts: MerchantAccountRepository
  readonly onboard: MerchantAccountOnboarding
  readonly clock: Clock
  readonly box: SecretBox
  readonly mac: Mac
  readonly audited: RecordAudited
}

/**
 * Who asks: the merchant account its key is bound to (null: an instance-wide key). A bound key
 * administers its own account only: it creates none, and any other is not found for it.
 */
export interface AccountAdmin {
  readonly actor: AuditActor
  readonly boundTo: string | null
}

const reachable = (admin: AccountAdmin, id: string): boolean => admin.boundTo === null || admin.boundTo === id

const found =
  (id: string) =>
  (a: O.Option<MerchantAccount>): E.Either<NotFound, MerchantAccount> =>
    O.isSome(a) ? E.right(a.value) : E.left(notFound('MerchantAccount', id))

const readable = (
  deps: Pick<MerchantAccountDeps, 'merchantAccounts'>,
  admin: AccountAdmin,
  id: string,
): TE.TaskEither<NotFound | Unavailable, MerchantAccount> =>
  reachable(admin, id) ? pipe(deps.merchantAccounts.find(id), TE.flatMapEither(found(id))) : TE.left(notFound('MerchantAccount', id))

export const makeCreateMerchantAccount =
  (deps: MerchantAccountDeps) =>
  (
    cmd: AccountAdmin & { readonly input: MerchantAccountCreate },
  ): TE.TaskEither<Forbidden | Duplicate | Unavailable, MerchantAccountView> => {
    if (cmd.boundTo !== null) return TE.left(forbidden('merchant_account'))
    const account = newMerchantAccount(cmd.input, deps.clock.now().toISOString(), deps.box)
    return pipe(
      deps.merchantAccounts.find(account.id),
      // A taken id is refused before onboarding runs: a refused request adds nothing to the account that has it.
      TE.flatMap((taken): TE.TaskEither<Duplicate | Unavailable, void> =>
        O.isSome(taken) ? TE.left(duplicate('MerchantAccount', account.id)) : deps.onboard(account.id),
      ),
      TE.flatMap(() =>
        deps.audited(
          changeOf(
            { merchantAccountId: account.id, actor: cmd.actor },
            merchantAccountResource(account),
            'created',
            'merchant-account-present',
          ),
          deps.merchantAccounts.create(account),
        ),
      ),
      TE.map(() => toMerchantAccountView(account)),
    )
  }

export const makeListMerchantAccounts =
  (deps: Pick<MerchantAccountDeps, 'merchantAccounts' | 'mac'>) =>
  (q: PageQuery & { readonly admin: AccountAdmin }): TE.TaskEither<InvalidRequest | Unavailable, Page<MerchantAccountView>> => {
    const { boundTo } = q.admin
    // A bound key's list is its own account: one page, no cursor.
    if (boundTo !== null)
      return pipe(
        deps.merchantAccounts.find(boundTo),
        TE.map((a) => ({
          items: O.isSome(a) ? [toMerchantAccountView(a.value)] : [],
          limit: q.limit ?? DEFAULT_LIMIT,
          next_cursor: null,
          previous_cursor: null,
        })),
      )
    return pipe(
      paginate(deps, 'merchant-accounts', merchantAccountSortKey, (seek) => deps.merchantAccounts.list(seek))(q),
      TE.map((page) => ({ ...page, items: page.items.map(toMerchantAccountView) })),
    )
  }

export const makeGetMerchantAccount =
  (deps: Pick<MerchantAccountDeps, 'merchantAccounts'>) =>
  (q: { readonly admin: AccountAdmin; readonly id: string }): TE.TaskEither<NotFound | Unavailable, MerchantAccountView> =>
    TE.map(toMerchantAccountView)(readable(deps, q.admin, q.id))

/** Changes what the body names (absent left as it is, `null` cleared). Two at once: the last write wins. */
export const makeUpdateMerchantAccount =
  (deps: MerchantAccountDeps) =>
  (
    cmd: AccountAdmin & { readonly id: string; readonly input: MerchantAccountUpdate },
  ): TE.TaskEither<NotFound | Unavailable, MerchantAccountView> =>
    pipe(
      readable(deps, cmd, cmd.id),
      TE.map((a) => applyMerchantAccountChanges(a, cmd.input, deps.clock.now().toISOString(), deps.box)),
      TE.tap((next) =>
        deps.audited(
          changeOf(
            { merchantAccountId: next.id, actor: cmd.actor },
            merchantAccountResource(next),
            'updated',
            'merchant-account-state',
            merchantAccountWitness(deps.mac, next),
          ),
          deps.merchantAccounts.upsert(next),
        ),
      ),
      TE.map(toMerchantAccountView),
    )
