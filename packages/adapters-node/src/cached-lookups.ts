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
  PaymentServiceRecord,
  PaymentServiceRepository,
  Role,
  RoleRepository,
} from '@orka/domain'

/**
 * Answers kept for `ttlMs` by the clock, at most `max` of them (the oldest written is dropped
 * first). Only answers are kept, never a storage failure, so an outage is retried at once.
 * Callers missing the same key at once share one read: under load an expiry costs one round
 * trip, not one per request in flight.
 */
class TtlCache<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly until: number }>()
  private readonly loading = new Map<string, Promise<E.Either<unknown, V>>>()
  /** Moves at every `clear`: a read started before a write neither keeps nor shares its answer after it. */
  private generation = 0
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number,
    private readonly max: number,
  ) {}

  through<L>(key: string, load: () => TE.TaskEither<L, V>): TE.TaskEither<L, V> {
    const now = this.clock.now().getTime()
    const hit = this.entries.get(key)
    if (hit !== undefined && hit.until > now) return TE.right(hit.value)
    return () => {
      // The same `load` for the same key: its failure has the type of this caller's.
      const shared = this.loading.get(key) as Promise<E.Either<L, V>> | undefined
      if (shared !== undefined) return shared
      const generation = this.generation
      const loaded = load()().then((r) => {
        if (generation !== this.generation) return r
        this.loading.delete(key)
        if (E.isRight(r)) {
          this.entries.delete(key)
          if (this.entries.size >= this.max) {
            const oldest = this.entries.keys().next()
            if (oldest.done !== true) this.entries.delete(oldest.value)
          }
          this.entries.set(key, { value: r.right, until: now + this.ttlMs })
        }
        return r
      })
      this.loading.set(key, loaded)
      return loaded
    }
  }

  clear(): void {
    this.generation++
    this.entries.clear()
    this.loading.clear()
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
  readonly giftCardServices: GiftCardServiceRepository
  readonly cardServices: PaymentServiceRepository
}

/**
 * The three lookups every request makes (its key by `kid`, the key's roles, the merchant
 * account), the account's primary gift card service every activation, store and balance
 * check reads, and the account's card services every payment routes through, answered from
 * memory for `ttlMs` instead of a storage round trip each. A change made through this instance
 * (a key created, updated, upserted or revoked, a role, account or service upserted, an account
 * created) clears
 * the cache at once; one made through another instance, the CLI, or straight in the database, is seen within
 * `ttlMs`: a revoked key stops working, a card service taken down stops being routed to,
 * everywhere within that bound.
 */
export const cachedLookups = <P extends LookedUp>(ports: P, o: LookupCacheOptions): P => {
  const { keys, roles, merchantAccounts, giftCardServices: services, cardServices: paymentServices } = ports
  const byKid = new TtlCache<O.Option<ApiKeyPair>>(o.clock, o.ttlMs, o.max ?? 10_000)
  const bySlugs = new TtlCache<readonly Role[]>(o.clock, o.ttlMs, o.max ?? 10_000)
  const byId = new TtlCache<O.Option<MerchantAccount>>(o.clock, o.ttlMs, o.max ?? 10_000)
  const primaryOf = new TtlCache<O.Option<GiftCardServiceRecord>>(o.clock, o.ttlMs, o.max ?? 10_000)
  const routeOf = new TtlCache<readonly PaymentServiceRecord[]>(o.clock, o.ttlMs, o.max ?? 10_000)
  const serviceById = new TtlCache<O.Option<PaymentServiceRecord>>(o.clock, o.ttlMs, o.max ?? 10_000)
  const bothServiceCaches = {
    clear: () => {
      routeOf.clear()
      serviceById.clear()
    },
  }
  /** A write through this instance: its own cache forgets at once. */
  const clearing = <L, A>(cache: { clear(): void }, write: TE.TaskEither<L, A>): TE.TaskEither<L, A> =>
    TE.map((a: A) => {
      cache.clear()
      return a
    })(write)
  const clearingAlways =
    <L, A>(cache: { clear(): void }, write: TE.TaskEither<L, A>): TE.TaskEither<L, A> =>
    () =>
      write().finally(() => {
        cache.clear()
      })
  return {
    ...ports,
    keys: {
      findByThumbprint: (kid) => byKid.through(kid, () => keys.findByThumbprint(kid)),
      findById: (id) => keys.findById(id),
      upsert: (key) => clearing(byKid, keys.upsert(key)),
      // Cleared whatever the answer: a cached "none" must not outlive a key made elsewhere (a
      // Duplicate), nor a cached key a suspension or revocation that timed out yet was stored.
      create: (key) => clearingAlways(byKid, keys.create(key)),
      list: () => keys.list(),
      listPage: (seek, merchantAccountId) => keys.listPage(seek, merchantAccountId),
      update: (id, changes) => clearingAlways(byKid, keys.update(id, changes)),
      revoke: (id) => clearingAlways(byKid, keys.revoke(id)),
      // Every request marks its key used: clearing here would empty the cache at every request.
      markUsed: (uses) => keys.markUsed(uses),
    } satisfies ApiKeyPairRepository,
    roles: {
      list: (seek) => roles.list(seek),
      findBySlugs: (slugs) => bySlugs.through(JSON.stringify(slugs), () => roles.findBySlugs(slugs)),
      upsert: (role) => clearing(bySlugs, roles.upsert(role)),
    },
    merchantAccounts: {
      find: (id) => byId.through(id, () => merchantAccounts.find(id)),
      upsert: (account) => clearing(byId, merchantAccounts.upsert(account)),
      // A cached "none" must not outlive the account's creation: cleared on a Duplicate too (made elsewhere).
      create: (account) => clearingAlways(byId, merchantAccounts.create(account)),
      list: (seek) => merchantAccounts.list(seek),
    } satisfies MerchantAccountRepository,
    giftCardServices: {
      findPrimary: (accountId) => primaryOf.through(accountId, () => services.findPrimary(accountId)),
      upsert: (record) => clearing(primaryOf, services.upsert(record)),
    } satisfies GiftCardServiceRepository,
    cardServices: {
      listForAccount: (accountId) => routeOf.through(accountId, () => paymentServices.listForAccount(accountId)),
      findById: (accountId, id) => serviceById.through(`${accountId}\u0000${id}`, () => paymentServices.findById(accountId, id)),
      listAll: () => paymentServices.listAll(),
      write: (record) => clearing(bothServiceCaches, paymentServices.write(record)),
    } satisfies PaymentServiceRepository,
  }
}
