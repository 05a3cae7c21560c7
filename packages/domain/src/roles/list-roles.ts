import * as TE from 'fp-ts/TaskEither'
import { paginate, PageQuery } from '../pagination/paginate'
import { Page } from '../pagination/page'
import { Mac } from '../shared/crypto.ports'
import { InvalidRequest, Unavailable } from '../shared/errors'
import { Role, roleSortKey } from './role'
import { RoleRepository } from './roles.ports'

/**
 * The catalogue is instance-wide, yet its cursors are bound to the merchant account that
 * asked, so a cursor never crosses accounts.
 */
export const makeListRoles =
  (deps: { roles: RoleRepository; mac: Mac }) =>
  (q: PageQuery & { merchantAccountId: string }): TE.TaskEither<InvalidRequest | Unavailable, Page<Role>> =>
    paginate(deps, `roles\u0000${q.merchantAccountId}`, roleSortKey, (seek) => deps.roles.list(seek))(q)
