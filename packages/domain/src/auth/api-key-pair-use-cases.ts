import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { AuditActor } from '../audit/audit-entry'
import { apiKeyPairWitness } from '../audit/change-witness'
import { changeOf, RecordAudited } from '../audit/record-audited'
import { MerchantAccount } from '../merchant-accounts/merchant-account'
import { MerchantAccountRepository } from '../merchant-accounts/merchant-account.ports'
import { Page } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { Role } from '../roles/role'
import { RoleRepository } from '../roles/roles.ports'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import {
  duplicate,
  Duplicate,
  Forbidden,
  forbidden,
  InvalidRequest,
  NotFound,
  notFound,
  refusedInput,
  Unavailable,
  unavailable,
} from '../shared/errors'
import { ApiKeyCrypto } from './api-key-crypto.ports'
import { ApiKeyPair, apiKeyPairSortKey, keyDisplayName } from './api-key-pair'
import { ApiKeyPairChanges, ApiKeyPairRepository } from './api-key-pair.ports'
import { ApiKeyPairCreate, ApiKeyPairUpdate, ApiKeyPairView, toApiKeyPairView } from './api-key-pair-view'
import { accountWithinReach, allRoles, boundOf, grantedTo, KeyCaller, permissionsOf, rolesOf, rolesWithinReach } from './key-reach'

export interface ApiKeyPairDeps {
  readonly keys: ApiKeyPairRepository
  readonly roles: RoleRepository
  readonly merchantAccounts: MerchantAccountRepository
  readonly crypto: ApiKeyCrypto
  readonly ids: IdGenerator
  readonly clock: Clock
  readonly mac: Mac
  readonly audited: RecordAudited
}

/** Who administers keys: the request's principal (its token's scopes, its key's roles and account), or the CLI's operator. */
export interface KeyAdmin {
  readonly actor: AuditActor
  readonly caller: KeyCaller
}

type Failure = Forbidden | InvalidRequest | NotFound | Unavailable

/** A key another account's caller may not even know of: a bound caller sees its account's keys only. */
const visibleTo = (caller: KeyCaller, k: ApiKeyPair): boolean => {
  const bound = boundOf(caller)
  return !k.revoked && (bound === null || k.merchant_account_id === bound)
}

const resourceOf = (k: ApiKeyPair) => ({ type: 'api-key-pair' as const, id: k.id, name: keyDisplayName(k) })

/** The key as answered: with its account's summary (read through the lookup cache) and its roles. */
const viewOf = async (
  deps: Pick<ApiKeyPairDeps, 'merchantAccounts'>,
  k: ApiKeyPair,
  roles: readonly Role[],
): Promise<E.Either<Unavailable, ApiKeyPairView>> => {
  const account = k.merchant_account_id === null ? E.right(O.none) : await deps.merchantAccounts.find(k.merchant_account_id)()
  return E.map((a: O.Option<MerchantAccount>) => toApiKeyPairView(k, { account: O.toNullable(a), roles: rolesOf(roles, k.roles) }))(account)
}

/** The key `id` as this caller may see it, with the roles catalogue read once for what follows. */
const visibleKey = async (
  deps: Pick<ApiKeyPairDeps, 'keys' | 'roles'>,
  caller: KeyCaller,
  id: string,
): Promise<E.Either<NotFound | Unavailable, { readonly key: ApiKeyPair; readonly roles: readonly Role[] }>> => {
  const found = await deps.keys.findById(id)()
  if (E.isLeft(found)) return found
  if (O.isNone(found.right) || !visibleTo(caller, found.right.value)) return E.left(notFound('ApiKeyPair', id))
  const roles = await allRoles(deps.roles)
  return E.isLeft(roles) ? roles : E.right({ key: found.right.value, roles: roles.right })
}

/**
 * A key the caller may change or delete: one it could have made. Another account's key is not
 * found; one whose roles reach beyond the caller's token and key is refused, so that a narrow
 * key cannot suspend, delete or rewrite a broader one.
 */
const manageableKey = async (
  deps: Pick<ApiKeyPairDeps, 'keys' | 'roles'>,
  caller: KeyCaller,
  id: string,
): Promise<E.Either<Forbidden | NotFound | Unavailable, { readonly key: ApiKeyPair; readonly roles: readonly Role[] }>> => {
  const found = await visibleKey(deps, caller, id)
  if (E.isLeft(found)) return found
  return permissionsOf(rolesOf(found.right.roles, found.right.key.roles)).every(grantedTo(caller, found.right.roles))
    ? found
    : E.left(forbidden('restricted_api_key'))
}

export const makeCreateApiKeyPair =
  (deps: Omit<ApiKeyPairDeps, 'mac'>) =>
  (cmd: KeyAdmin & { readonly input: ApiKeyPairCreate }): TE.TaskEither<Failure | Duplicate, ApiKeyPairView> =>
  async () => {
    const { caller, input } = cmd
    const roles = await allRoles(deps.roles)
    if (E.isLeft(roles)) return roles
    const keyRoles = rolesWithinReach(caller, roles.right, input.role_ids)
    if (E.isLeft(keyRoles)) return keyRoles
    const account = await accountWithinReach(deps, caller, input.merchant_account_ids ?? [])
    if (E.isLeft(account)) return account
    const publicKey = await publicKeyOf(deps, input.public_key ?? null)
    if (E.isLeft(publicKey)) return publicKey
    const now = deps.clock.now().toISOString()
    const key: ApiKeyPair = {
      id: deps.ids.uuid(),
      thumbprint: publicKey.right.thumbprint,
      public_key_pem: publicKey.right.publicKeyPem,
      merchant_account_id: account.right?.id ?? null,
      roles: keyRoles.right.map((r) => r.slug),
      revoked: false,
      created_at: now,
      display_name: input.display_name,
      active: input.active ?? true,
      updated_at: now,
      ...(caller === null ? {} : { creator: { id: caller.key.id, name: keyDisplayName(caller.key), thumbprint: caller.key.thumbprint } }),
    }
    const stored = await deps.audited(
      changeOf({ merchantAccountId: key.merchant_account_id, actor: cmd.actor }, resourceOf(key), 'created', 'api-key-pair-present'),
      // A public key already registered (a revoked one too) is named by what the caller holds, its thumbprint.
      TE.mapLeft((e: Duplicate | Unavailable) => (e._tag === 'Duplicate' ? duplicate('ApiKeyPair', key.thumbprint) : e))(
        deps.keys.create(key),
      ),
    )()
    if (E.isLeft(stored)) return stored
    const view = toApiKeyPairView(key, { account: account.right, roles: keyRoles.right })
    return E.right(publicKey.right.privateKeyPem === undefined ? view : { ...view, private_key: publicKey.right.privateKeyPem })
  }

/** The caller's own public key, read; or a new pair, whose private half is answered once and kept nowhere. */
const publicKeyOf = async (
  deps: Pick<ApiKeyPairDeps, 'crypto'>,
  pem: string | null,
): Promise<E.Either<InvalidRequest | Unavailable, { thumbprint: string; publicKeyPem: string; privateKeyPem?: string }>> => {
  if (pem !== null)
    return pipe(
      deps.crypto.inspect(pem),
      E.fromOption(() => refusedKey),
    )
  const made = await deps.crypto.generate()()
  if (E.isLeft(made)) return made
  const inspected = deps.crypto.inspect(made.right.publicKeyPem)
  if (O.isNone(inspected)) return E.left(unavailable(new Error('a generated key pair did not read back')))
  return E.right({ ...inspected.value, privateKeyPem: made.right.privateKeyPem })
}

const refusedKey = refusedInput(['public_key'], 'must be a PEM-encoded ECDSA P-521 public key')

export const makeListApiKeyPairs =
  (deps: Pick<ApiKeyPairDeps, 'keys' | 'roles' | 'merchantAccounts' | 'mac'>) =>
  (q: PageQuery & { readonly caller: KeyCaller }): TE.TaskEither<InvalidRequest | Unavailable, Page<ApiKeyPairView>> =>
  async () => {
    const bound = boundOf(q.caller) ?? undefined
    const page = await paginate(deps, 'api-key-pairs', apiKeyPairSortKey, (seek) => deps.keys.listPage(seek, bound))(q)()
    if (E.isLeft(page)) return page
    const roles = await allRoles(deps.roles)
    if (E.isLeft(roles)) return roles
    const items: ApiKeyPairView[] = []
    for (const k of page.right.items) {
      const view = await viewOf(deps, k, roles.right)
      if (E.isLeft(view)) return view
      items.push(view.right)
    }
    return E.right({ ...page.right, items })
  }

export const makeGetApiKeyPair =
  (deps: Pick<ApiKeyPairDeps, 'keys' | 'roles' | 'merchantAccounts'>) =>
  (q: { readonly caller: KeyCaller; readonly id: string }): TE.TaskEither<NotFound | Unavailable, ApiKeyPairView> =>
  async () => {
    const found = await visibleKey(deps, q.caller, q.id)
    if (E.isLeft(found)) return found
    return viewOf(deps, found.right.key, found.right.roles)
  }

/**
 * Renames, suspends or resumes a key, or gives it other roles or another account, each within
 * the caller's reach as at creation. A key revoked meanwhile is a `404`: an update never brings one back.
 */
export const makeUpdateApiKeyPair =
  (deps: ApiKeyPairDeps) =>
  (cmd: KeyAdmin & { readonly id: string; readonly input: ApiKeyPairUpdate }): TE.TaskEither<Failure, ApiKeyPairView> =>
  async () => {
    const { caller, input } = cmd
    const found = await manageableKey(deps, caller, cmd.id)
    if (E.isLeft(found)) return found
    const { key, roles } = found.right
    const keyRoles = input.role_ids == null ? E.right(undefined) : rolesWithinReach(caller, roles, input.role_ids)
    if (E.isLeft(keyRoles)) return keyRoles
    const account =
      input.merchant_account_ids == null ? E.right(undefined) : await accountWithinReach(deps, caller, input.merchant_account_ids)
    if (E.isLeft(account)) return account
    const changes: ApiKeyPairChanges = {
      ...(input.display_name == null ? {} : { display_name: input.display_name }),
      ...(input.active == null ? {} : { active: input.active }),
      ...(keyRoles.right === undefined ? {} : { roles: keyRoles.right.map((r) => r.slug) }),
      ...(account.right === undefined ? {} : { merchant_account_id: account.right?.id ?? null }),
      updated_at: deps.clock.now().toISOString(),
    }
    const updated = await deps.audited(
      {
        ...changeOf(
          { merchantAccountId: key.merchant_account_id, actor: cmd.actor },
          resourceOf({ ...key, ...changes, roles: key.roles }),
          'updated',
          'api-key-pair-state',
          apiKeyPairWitness(deps.mac, changes),
        ),
        changes: Object.keys(changes).filter((c) => c !== 'updated_at'),
      },
      pipe(deps.keys.update(key.id, changes), TE.flatMap(TE.fromOption(() => notFound('ApiKeyPair', key.id)))),
    )()
    if (E.isLeft(updated)) return updated
    return viewOf(deps, updated.right, roles)
  }

/** Revokes the key for good: its tokens are refused from now on, and its public key cannot come back. */
export const makeDeleteApiKeyPair =
  (deps: Pick<ApiKeyPairDeps, 'keys' | 'roles' | 'audited'>) =>
  (cmd: KeyAdmin & { readonly id: string }): TE.TaskEither<Forbidden | NotFound | Unavailable, void> =>
  async () => {
    const found = await manageableKey(deps, cmd.caller, cmd.id)
    if (E.isLeft(found)) return found
    const { key } = found.right
    return deps.audited(
      changeOf({ merchantAccountId: key.merchant_account_id, actor: cmd.actor }, resourceOf(key), 'revoked', 'api-key-pair-revoked'),
      pipe(
        deps.keys.revoke(key.id),
        TE.flatMap((revoked) => (revoked ? TE.right(undefined) : TE.left(notFound('ApiKeyPair', key.id)))),
      ),
    )()
  }
