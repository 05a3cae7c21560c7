import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { MerchantAccount } from '../merchant-accounts/merchant-account'
import { MerchantAccountRepository } from '../merchant-accounts/merchant-account.ports'
import { RoleRepository } from '../roles/roles.ports'
import { Forbidden, forbidden, Unavailable } from '../shared/errors'
import { ApiKeyPair } from './api-key-pair'
import { checkScope, EMBED, Scope } from './scopes'

/** Who is calling, once the token's signature and claims have been checked by the transport. */
export interface Principal {
  readonly key: ApiKeyPair
  readonly scopes: readonly Scope[]
  /** `jti` when the token has one, else a hash of the token: the rate-limit identity. */
  readonly tokenId: string
  /** The buyer an `embed` token's `embed` claim names, if any: see `cardReach`. */
  readonly embedBuyer?: EmbedBuyer
  /** What else an `embed` token's claim pins a payment to: a transaction it creates must match. */
  readonly embedPins?: EmbedPins
}

/** The original API's `embed` claim values that fix a checkout: amount, currency, checkout session. */
export interface EmbedPins {
  readonly amount?: number
  readonly currency?: string
  readonly checkoutSessionId?: string
}

/** A buyer as an `embed` claim names it: by `buyer_id`, by `buyer_external_identifier`, or both. */
export interface EmbedBuyer {
  readonly id: string | null
  readonly externalIdentifier: string | null
}

export const isEmbedToken = (p: Principal): boolean => p.scopes.includes(EMBED)

/** What a use case acts on behalf of, after authorization. */
export interface Access {
  readonly principal: Principal
  readonly merchantAccount: MerchantAccount
}

/**
 * Who may do what: the token must ask for the scope, the key's roles must grant it, and the
 * merchant account must exist, be reachable by the key and not be locked. An unknown account
 * and another account's id give the same answer, so ids cannot be probed.
 */
export const makeAuthorize =
  (deps: { merchantAccounts: MerchantAccountRepository; roles: RoleRepository }) =>
  (req: { principal: Principal; merchantAccountId: string; required: Scope }): TE.TaskEither<Forbidden | Unavailable, Access> =>
  // Every request runs this: one async step, not a chain of them.
  async () => {
    const roles = await deps.roles.findBySlugs(req.principal.key.roles)()
    if (E.isLeft(roles)) return roles
    const check = checkScope(
      req.principal.scopes,
      roles.right.flatMap((r) => r.permissions.allow),
      req.required,
    )
    if (check !== 'granted') return E.left(forbidden(check))
    const bound = req.principal.key.merchant_account_id
    if (bound !== null && bound !== req.merchantAccountId) return E.left(forbidden('merchant_account'))
    const account = await deps.merchantAccounts.find(req.merchantAccountId)()
    if (E.isLeft(account)) return account
    if (O.isNone(account.right)) return E.left(forbidden('merchant_account'))
    return account.right.value.locked
      ? E.left(forbidden('locked'))
      : E.right({ principal: req.principal, merchantAccount: account.right.value })
  }
