import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import * as O from 'fp-ts/Option'
import {
  ApiKeyPair,
  ApiKeyPairRepository,
  Clock,
  GiftCardServiceRecord,
  GiftCardServiceRepository,
  MerchantAccount,
  MerchantAccountRepository,
  Role,
  RoleRepository,
} from '@orka/domain'

/**
 * Answers kept for `ttlMs` by the clock, at most `max` of them (the oldest written is dropped
 * first). Only answers are kept, never a storage failure, so an outage is retried at once.
 */
class TtlCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly until: number }>()
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  through<L>(key: string, load: () => TE.TaskEither<L, V>): TE.TaskEither<L, V> {
    const now = this.clock.now().getTime()
    const hit = this.entries.get(key)
    if (hit !== undefined && hit.until > now) return TE.right(hit.value)
    return async () => {
      const r = await load()()
      if (E.isRight(r)) {
        this.entries.delete(key)
        if (this.entries.size >= this.max) {
          const oldest = this.entries.keys().next()
          if (oldest.done !== true) this.entries.delete(oldest.value)
        }
        this.entries.set(key, { value: r.right, until: now + this.ttlMs })
      }
      return r
    }
  }

  clear(): void {
    this.entries.clear()
  }
}

export interface LookupCacheOptions {
  readonly clock: Clock
  /** How long an answer is used: a change made through another instance shows within this bound. */
  readonly ttlMs: number
  /** Answers kept per lookup, so random `kid`s cannot grow the cache without bound. */
  readonly max?: number
}

/** What `cachedLookups` puts in front of storage. */
export interface LookedUp {
  readonly keys: ApiKeyPairRepository
  readonly roles: RoleRepository
  readonly merchantAccounts: MerchantAccountRepository
  readonly services: GiftCardServiceRepository
}

/**
 * The three lookups every request makes (its key by `kid`, the key's roles, the merchant
 * account), and the account's primary gift card service every activation, store and balance
 * check reads, answered from memory for `ttlMs` instead of a storage round trip each. A change
 * made through this instance (a key upserted or revoked, a role, account or service upserted)
 * clears the cache at once; one made through another instance, or straight in the database, is
 * seen within `ttlMs`: a revoked key stops working everywhere within that bound.
 */
export const cachedLookups = <P extends LookedUp>(ports: P, o: LookupCacheOptions): P => {
  const { keys, roles, merchantAccounts, services } = ports
  const byKid = new TtlCache<O.Option<ApiKeyPair>>(o.clock, o.ttlMs, o.max ?? 10_000)
  const bySlugs = new TtlCache<readonly Role[]>(o.clock, o.ttlMs, o.max ?? 10_000)
  const byId = new TtlCache<O.Option<MerchantAccount>>(o.clock, o.ttlMs, o.max ?? 10_000)
  const primaryOf = new TtlCache<O.Option<GiftCardServiceRecord>>(o.clock, o.ttlMs, o.max ?? 10_000)
  /** A write through this instance: its own cache forgets at once. */
  const clearing = <L, A>(cache: { clear(): void }, write: TE.TaskEither<L, A>): TE.TaskEither<L, A> =>
    TE.map((a: A) => {
      cache.clear()
      return a
    })(write)
  return {
    ...ports,
    keys: {
      findByThumbprint: (kid) => byKid.through(kid, () => keys.findByThumbprint(kid)),
      upsert: (key) => clearing(byKid, keys.upsert(key)),
      list: () => keys.list(),
      revoke: (id) => clearing(byKid, keys.revoke(id)),
    },
    roles: {
      list: (seek) => roles.list(seek),
      findBySlugs: (slugs) => bySlugs.through(JSON.stringify(slugs), () => roles.findBySlugs(slugs)),
      upsert: (role) => clearing(bySlugs, roles.upsert(role)),
    },
    merchantAccounts: {
      find: (id) => byId.through(id, () => merchantAccounts.find(id)),
      upsert: (account) => clearing(byId, merchantAccounts.upsert(account)),
    },
    services: {
      findPrimary: (accountId) => primaryOf.through(accountId, () => services.findPrimary(accountId)),
      upsert: (record) => clearing(primaryOf, services.upsert(record)),
    } satisfies GiftCardServiceRepository,
  }
}
