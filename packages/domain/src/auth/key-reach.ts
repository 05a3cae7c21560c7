import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { MerchantAccount } from '../merchant-accounts/merchant-account'
import { MerchantAccountRepository } from '../merchant-accounts/merchant-account.ports'
import { Seek } from '../pagination/page'
import { Role } from '../roles/role'
import { RoleRepository } from '../roles/roles.ports'
import { Forbidden, forbidden, InvalidRequest, refusedInput, Unavailable } from '../shared/errors'
import { Principal } from './authorize'
import { grants, Scope } from './scopes'

/**
 * What a key made or changed through the API may reach, checked against the caller: never more
 * than the caller's token and key grant together (the escalations a reviewer tries: a broader
 * role, another account, every account from a bound key).
 */

/** The catalogue is a handful of roles: one read. */
const EVERY_ROLE: Seek = { direction: 'forward', from: O.none, limit: 1000 }
export const allRoles = (roles: RoleRepository) => roles.list(EVERY_ROLE)()

/** The roles with these slugs, in the slugs' order; a slug the catalogue lacks grants nothing. */
export const rolesOf = (all: readonly Role[], slugs: readonly string[]): readonly Role[] =>
  slugs.flatMap((s) => all.filter((r) => r.slug === s))

export const permissionsOf = (roles: readonly Role[]): readonly Scope[] => roles.flatMap((r) => r.permissions.allow)

/**
 * Who administers keys: a request's principal, or null for the operator (the CLI, on the storage
 * itself), who reaches every account and role.
 */
export type KeyCaller = Principal | null

export const boundOf = (caller: KeyCaller): string | null => caller?.key.merchant_account_id ?? null

/** What the caller may pass on: a permission its token asks for and its key's roles grant. */
export const grantedTo = (caller: KeyCaller, all: readonly Role[]): ((p: Scope) => boolean) => {
  if (caller === null) return () => true
  const held = permissionsOf(rolesOf(all, caller.key.roles))
  return (p) => grants(caller.scopes, p) && grants(held, p)
}

/** Roles named by id: each known, assignable to a key, and an add-on role only beside one it applies to. */
const resolveRoles = (all: readonly Role[], ids: readonly string[]): E.Either<InvalidRequest, readonly Role[]> => {
  if (ids.length === 0) return E.left(refusedInput(['role_ids'], 'give the key at least one role'))
  const picked: Role[] = []
  for (const [i, id] of ids.entries()) {
    const role = all.find((r) => r.id === id)
    if (role === undefined) return E.left(refusedInput(['role_ids', `${i}`], 'no role has this id'))
    if (!role.assignable_to.includes('api-key-pair'))
      return E.left(refusedInput(['role_ids', `${i}`], `role '${role.slug}' cannot be given to an API key pair`))
    if (!picked.includes(role)) picked.push(role)
  }
  for (const role of picked)
    if (!role.is_standalone_assignable && !role.applies_to.some((base) => picked.some((r) => r.slug === base)))
      return E.left(
        refusedInput(['role_ids'], `role '${role.slug}' cannot stand alone: give the key one of ${role.applies_to.join(', ')} too`),
      )
  return E.right(picked)
}

/** The roles `ids` name, if every permission they hold is the caller's to give. */
export const rolesWithinReach = (
  caller: KeyCaller,
  all: readonly Role[],
  ids: readonly string[],
): E.Either<Forbidden | InvalidRequest, readonly Role[]> => {
  const roles = resolveRoles(all, ids)
  if (E.isLeft(roles)) return roles
  return permissionsOf(roles.right).every(grantedTo(caller, all)) ? roles : E.left(forbidden('restricted_api_key'))
}

/**
 * The account `ids` name (none: every account), if the caller reaches it: a bound caller names
 * its own account and no other, and cannot make a key for every account. Orka's keys reach one
 * account or all of them, so a list of two is refused.
 */
export const accountWithinReach = async (
  deps: { readonly merchantAccounts: MerchantAccountRepository },
  caller: KeyCaller,
  ids: readonly string[],
): Promise<E.Either<Forbidden | InvalidRequest | Unavailable, MerchantAccount | null>> => {
  const named = [...new Set(ids)]
  if (named.length > 1)
    return E.left(
      refusedInput(['merchant_account_ids'], 'a key reaches one merchant account, or every one (an empty list): give at most one id'),
    )
  const target = named[0] ?? null
  const bound = boundOf(caller)
  // Before any read: a bound caller learns nothing of which other accounts exist.
  if (bound !== null && target !== bound) return E.left(forbidden('merchant_account'))
  if (target === null) return E.right(null)
  const found = await deps.merchantAccounts.find(target)()
  if (E.isLeft(found)) return found
  return O.isSome(found.right)
    ? E.right(found.right.value)
    : E.left(refusedInput(['merchant_account_ids', '0'], 'no merchant account has this id'))
}
