import type { Account } from './transaction-expect'

/**
 * What the run knows of the payment method vault, shared by the payment method model and the
 * transaction model (which stores cards with `store: true` and pays with stored ones): every
 * method a modelled request stored, with what it holds now. A method is named by one modelled
 * request at a time (`busy`), and no other request changes it meanwhile: a store of a card whose
 * method is busy, or that another store is under way for (`storing`), is sent with another card
 * (or, for a payment, without `store`). A buyer whose methods a write is changing (`writing`,
 * `generation`) makes that buyer's lists undecided until the answer, so that predictions hold
 * while properties run in parallel.
 */

/** A buyer as the model knows it (a method's owner). */
export interface KnownBuyer {
  readonly id: string
  readonly external: string
  readonly name: string
}

export interface KnownMethod {
  readonly id: string
  readonly account: Account
  readonly owner: KnownBuyer | null
  readonly digits: string
  readonly createdAt: string
  expiry: string
  /** `unknown`: a payment whose end the model cannot tell (a timeout) settles it. */
  status: 'succeeded' | 'failed' | 'processing' | 'unknown'
  externalId: string | null
  schemeTxId: string | null
  schemeTxScheme: string | null
  linkId: string | null
  deleted: boolean
  busy: boolean
}

/** `MM/YY` as months since year 0 (the domain's `expiryMonth`, written again). */
export const monthOf = (mmYY: string): number | null => {
  const m = /^(0[1-9]|1[0-2])\/(\d{2})$/.exec(mmYY)
  return m === null ? null : (2000 + Number(m[2])) * 12 + Number(m[1]) - 1
}
/** Past its expiry month at `now` (UTC): a card is good through the last day of that month. */
export const expired = (mmYY: string, now: Date): boolean => {
  const m = monthOf(mmYY)
  return m === null || now.getUTCFullYear() * 12 + now.getUTCMonth() > m
}
/** The expiry a store leaves: the one sent when it is later than the one stored (a renewed card), else the stored one. */
export const laterExpiry = (sent: string, stored: string): string => ((monthOf(sent) ?? 0) > (monthOf(stored) ?? 0) ? sent : stored)

const ownerKey = (account: Account, owner: string | null) => `${account}\u0000${owner ?? ''}`
const cardKey = (account: Account, owner: string | null, digits: string) => `${ownerKey(account, owner)}\u0000${digits}`

export class KnownVault {
  readonly methods: KnownMethod[] = []
  /** Stores under way, by account, owner and card: until they are answered, that card's method is undecided. */
  private readonly storing = new Map<string, number>()
  /** Writes under way per account and owner (stores, changes, deletes): lists of that owner are undecided. */
  private readonly writing = new Map<string, number>()
  /** Writes begun per account and owner, ever: a list whose owner saw one begin after it was predicted is undecided. */
  private readonly begun = new Map<string, number>()
  /** Fingerprints learned, by card number (a keyed MAC of the number: the same in every account). */
  readonly fingerprints = new Map<string, string>()

  /** The live method the vault holds for this account, owner and card. */
  find(account: Account, owner: string | null, digits: string): KnownMethod | undefined {
    return this.methods.find((m) => !m.deleted && m.account === account && (m.owner?.id ?? null) === owner && m.digits === digits)
  }

  /** Whether what the vault holds for this card is undecided: a store of it under way, or its method named by another request. */
  undecided(account: Account, owner: string | null, digits: string): boolean {
    return (this.storing.get(cardKey(account, owner, digits)) ?? 0) > 0 || this.find(account, owner, digits)?.busy === true
  }

  /** Whether a store of this card for this owner is under way. */
  storingNow(account: Account, owner: string | null, digits: string): boolean {
    return (this.storing.get(cardKey(account, owner, digits)) ?? 0) > 0
  }

  /** Whether a write to this owner's methods is under way. */
  changing(account: Account, owner: string | null): boolean {
    return (this.writing.get(ownerKey(account, owner)) ?? 0) > 0
  }

  /** How many writes to this owner's methods have begun. */
  generation(account: Account, owner: string | null): number {
    return this.begun.get(ownerKey(account, owner)) ?? 0
  }

  /** Marks a store of this card and a write to its owner's methods under way; the returned function ends both. */
  begin(account: Account, owner: string | null, digits: string | null): () => void {
    this.begun.set(ownerKey(account, owner), this.generation(account, owner) + 1)
    const keys = [ownerKey(account, owner), ...(digits === null ? [] : [cardKey(account, owner, digits)])]
    const maps = [this.writing, this.storing]
    keys.forEach((k, i) => maps[i]!.set(k, (maps[i]!.get(k) ?? 0) + 1))
    let ended = false
    return () => {
      if (ended) return
      ended = true
      keys.forEach((k, i) => maps[i]!.set(k, (maps[i]!.get(k) ?? 1) - 1))
    }
  }

  /** A method for a request to name, held (`busy`) until its answer: one of the account's that `ok` accepts, picked by `n`. */
  take(account: Account, n: number, ok: (m: KnownMethod) => boolean): KnownMethod | undefined {
    const free = this.methods.filter((m) => m.account === account && !m.busy && ok(m))
    const m = free.length === 0 ? undefined : free[n % free.length]!
    if (m) m.busy = true
    return m
  }

  /** Learns a method from an answer that shows it (a store's, a payment's with `store: true`). */
  learn(m: Omit<KnownMethod, 'busy' | 'deleted'>, fingerprint: unknown): KnownMethod {
    if (typeof fingerprint === 'string') this.fingerprints.set(m.digits, fingerprint)
    const known = this.methods.find((x) => x.id === m.id && x.account === m.account)
    if (known) {
      Object.assign(known, { ...m, busy: known.busy, deleted: false })
      return known
    }
    const fresh: KnownMethod = { ...m, busy: false, deleted: false }
    this.methods.push(fresh)
    return fresh
  }

  /** A summary for the report. */
  summary(): string {
    const live = this.methods.filter((m) => !m.deleted)
    const by = new Map<string, number>()
    for (const m of live) by.set(m.status, (by.get(m.status) ?? 0) + 1)
    return `${live.length} live methods (${[...by.entries()].map(([k, n]) => `${k}: ${n}`).join(', ')}), ${this.methods.length - live.length} deleted`
  }
}
