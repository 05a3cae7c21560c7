import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  learnedFacts,
  StoredCardFacts,
  Duplicate,
  duplicate,
  PaymentMethod,
  PaymentMethodChanges,
  PaymentMethodFilter,
  paymentMethodSortKey,
  PaymentMethodStatus,
  PaymentMethodVault,
  Seek,
  Unavailable,
  VaultedPaymentMethod,
} from '@orka/domain'
import { atomically, keep } from './memory-support'
import { SortedIndex } from './sorted-index'

// Listed so that a key added to `PaymentMethodChanges` fails to compile until `update` applies it.
const CHANGEABLE = {
  expiration_date: true,
  external_identifier: true,
  scheme_transaction_id: true,
  scheme_transaction_id_scheme: true,
  transaction_link_id: true,
} satisfies Record<keyof PaymentMethodChanges, true>
const CHANGE_KEYS = Object.keys(CHANGEABLE) as (keyof PaymentMethodChanges)[]

/** The given changes only: a key set to undefined is as absent as a missing one. */
const given = (changes: PaymentMethodChanges): PaymentMethodChanges =>
  Object.fromEntries(CHANGE_KEYS.filter((k) => changes[k] !== undefined).map((k) => [k, changes[k]]))

/** The vault's uniqueness: one method per (account, buyer or none, fingerprint). */
const slot = (merchantAccountId: string, owner: string | null, fingerprint: string | null) =>
  JSON.stringify([merchantAccountId, owner, fingerprint])
const slotOf = (m: PaymentMethod) => slot(m.merchant_account_id, m.buyer?.id ?? null, m.fingerprint ?? null)

/** `succeeded` from any other status, `failed` only from `processing`. */
const settles = (from: PaymentMethodStatus, outcome: 'succeeded' | 'failed') =>
  outcome === 'succeeded' ? from !== 'succeeded' : from === 'processing'

export class MemoryPaymentMethodVault implements PaymentMethodVault {
  private readonly byId = new Map<string, VaultedPaymentMethod>()
  private readonly idBySlot = new Map<string, string>()
  /** Each account's methods in list order (newest last): pages and a buyer's newest methods seek instead of sorting. */
  private readonly listed = new Map<string, SortedIndex<VaultedPaymentMethod>>()

  findById(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, O.Option<VaultedPaymentMethod>> {
    return atomically(() => E.right(O.fromNullable(this.held(merchantAccountId, id))))
  }

  findByFingerprint(
    merchantAccountId: string,
    owner: string | null,
    fingerprint: string,
  ): TE.TaskEither<Unavailable, O.Option<VaultedPaymentMethod>> {
    return atomically(() => {
      const id = this.idBySlot.get(slot(merchantAccountId, owner, fingerprint))
      return E.right(O.fromNullable(id === undefined ? undefined : this.byId.get(id)))
    })
  }

  insert(v: VaultedPaymentMethod): TE.TaskEither<Duplicate | Unavailable, void> {
    return atomically((): E.Either<Duplicate | Unavailable, void> => {
      const holder = this.idBySlot.get(slotOf(v.method)) ?? (this.byId.has(v.method.id) ? v.method.id : undefined)
      if (holder !== undefined) return E.left(duplicate('PaymentMethod', holder))
      this.idBySlot.set(slotOf(v.method), v.method.id)
      this.replace(v)
      return E.right(undefined)
    })
  }

  list(merchantAccountId: string, filter: PaymentMethodFilter, seek: Seek): TE.TaskEither<Unavailable, readonly PaymentMethod[]> {
    const { buyer_id, status, external_identifier } = filter
    const keeps = (m: PaymentMethod) =>
      (buyer_id === undefined || m.buyer?.id === buyer_id) &&
      (status === undefined || status.includes(m.status)) &&
      (external_identifier === undefined || m.external_identifier === external_identifier)
    return atomically(() => E.right(this.newestFirst(merchantAccountId, seek, keeps)))
  }

  forBuyer(
    merchantAccountId: string,
    buyerId: string,
    statuses: readonly PaymentMethodStatus[],
    limit: number,
  ): TE.TaskEither<Unavailable, readonly PaymentMethod[]> {
    const keeps = (m: PaymentMethod) => m.buyer?.id === buyerId && statuses.includes(m.status)
    return atomically(() => E.right(this.newestFirst(merchantAccountId, { direction: 'forward', from: O.none, limit }, keeps)))
  }

  update(
    merchantAccountId: string,
    id: string,
    changes: PaymentMethodChanges,
    at: string,
  ): TE.TaskEither<Unavailable, O.Option<PaymentMethod>> {
    return atomically(() => {
      const v = this.held(merchantAccountId, id)
      if (v === undefined) return E.right(O.none)
      return E.right(O.some(this.replace({ ...v, method: { ...v.method, ...given(changes), updated_at: at } }).method))
    })
  }

  settle(
    merchantAccountId: string,
    id: string,
    outcome: 'succeeded' | 'failed',
    at: string,
    learned?: StoredCardFacts,
  ): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const v = this.held(merchantAccountId, id)
      if (v === undefined || !settles(v.method.status, outcome)) return E.right(false)
      const facts = outcome === 'succeeded' ? learnedFacts(v.method, learned) : {}
      this.replace({ ...v, method: { ...v.method, ...facts, status: outcome, updated_at: at } })
      return E.right(true)
    })
  }

  recordUse(merchantAccountId: string, id: string, at: string, customerInitiated: boolean): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => {
      const v = this.held(merchantAccountId, id)
      if (v === undefined) return E.right(false)
      const m = v.method
      const cit = customerInitiated ? { cit_usage_count: m.cit_usage_count + 1, cit_last_used_at: at } : {}
      this.replace({ ...v, method: { ...m, usage_count: m.usage_count + 1, last_used_at: at, ...cit } })
      return E.right(true)
    })
  }

  delete(merchantAccountId: string, id: string): TE.TaskEither<Unavailable, boolean> {
    return atomically(() => E.right(this.remove(merchantAccountId, id)))
  }

  deleteByBuyer(merchantAccountId: string, buyerId: string): TE.TaskEither<Unavailable, number> {
    return atomically(() => {
      const ids = [...this.byId.values()]
        .filter((v) => v.method.merchant_account_id === merchantAccountId && v.method.buyer?.id === buyerId)
        .map((v) => v.method.id)
      return E.right(ids.filter((id) => this.remove(merchantAccountId, id)).length)
    })
  }

  private held(merchantAccountId: string, id: string): VaultedPaymentMethod | undefined {
    const v = this.byId.get(id)
    return v?.method.merchant_account_id === merchantAccountId ? v : undefined
  }

  /** Stores a copy of `v` under its id (new, or changed in place: its slot and sort key never change). */
  private replace(v: VaultedPaymentMethod): VaultedPaymentMethod {
    const kept = keep(v)
    const account =
      this.listed.get(v.method.merchant_account_id) ?? new SortedIndex((x: VaultedPaymentMethod) => paymentMethodSortKey(x.method))
    this.listed.set(v.method.merchant_account_id, account)
    this.byId.set(v.method.id, kept)
    account.put(kept)
    return kept
  }

  /** Drops the record itself (sealed number with it): nothing of the method is left. */
  private remove(merchantAccountId: string, id: string): boolean {
    const v = this.held(merchantAccountId, id)
    if (v === undefined) return false
    this.byId.delete(id)
    this.idBySlot.delete(slotOf(v.method))
    this.listed.get(merchantAccountId)?.remove(paymentMethodSortKey(v.method))
    return true
  }

  private newestFirst(merchantAccountId: string, seek: Seek, keeps: (m: PaymentMethod) => boolean): PaymentMethod[] {
    return (
      this.listed
        .get(merchantAccountId)
        ?.seek('descending', seek, (v) => keeps(v.method))
        .map((v) => v.method) ?? []
    )
  }
}
