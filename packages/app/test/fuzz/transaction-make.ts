import { randomUUID } from 'node:crypto'
import { defaultCardServiceId } from '../../src/card-services'
import type { Harness, Resource } from '../support/harness'
import { Obj, Secret } from './model'
import type { KnownMethod } from './payment-method-vault'
import { Account, expiryText } from './transaction-expect'
import { CardSpec, CreateSpec, Prop, SessionCase, Slot } from './transaction-spec'

const ACCOUNTS: readonly Account[] = ['default', 'acme']

/**
 * What the model makes for its requests: its own buyer in each account (the other families
 * delete and change the seeded ones), checkout sessions to pay with, the values only the run
 * knows (`Slot`), and payment bodies.
 */
export class Makings {
  readonly buyers = {} as Record<Account, { id: string; external: string; name: string }>
  readonly paidSessions: Record<Account, string[]> = { default: [], acme: [] }
  sessions = 0
  private picks = 0

  constructor(
    private readonly h: Harness,
    private readonly externalIdOf: (account: Account) => string | undefined,
  ) {}

  async setup(): Promise<void> {
    for (const account of ACCOUNTS) {
      const external = `tx-model-${randomUUID()}`
      const r = await this.h.request<Resource>('POST', '/buyers', {
        merchantAccount: account,
        body: { display_name: 'Model Buyer', external_identifier: external },
      })
      if (r.status !== 201) throw new Error(`the model's buyer: ${r.status} ${r.text}`)
      this.buyers[account] = { id: r.body.id, external, name: 'Model Buyer' }
    }
  }

  /**
   * A checkout session for a payment: made for it (with the card, with a stored method Secure
   * Fields name, `method`, or without), deleted, another account's, or one paid before. A
   * `stored` session with no method to name holds the card instead.
   */
  async madeSession(
    spec: CreateSpec,
    account: Account,
    method: KnownMethod | null = null,
  ): Promise<{ id: string; state: SessionCase; secret?: Secret } | null> {
    const pm = spec.pm
    if (pm.kind !== 'session') return null
    if (pm.session === 'malformed') return { id: pm.bad ?? 'x', state: 'malformed' }
    if (pm.session === 'unknown') return { id: randomUUID(), state: 'unknown' }
    if (pm.session === 'used') {
      const paid = this.paidSessions[account]
      return paid.length === 0 ? { id: randomUUID(), state: 'unknown' } : { id: paid[this.picks++ % paid.length]!, state: 'used' }
    }
    const where = pm.session === 'otherAccount' ? (account === 'default' ? 'acme' : 'default') : account
    const s = await this.h.request<Resource>('POST', '/checkout/sessions', {
      merchantAccount: where,
      body: { amount: 100, currency: 'USD' },
    })
    if (s.status !== 201) throw new Error(`the model's checkout session: ${s.status} ${s.text}`)
    this.sessions++
    if (pm.session === 'empty') return { id: s.body.id, state: 'empty' }
    const card = pm.card
    if (pm.session === 'stored' && method !== null) {
      const named = { payment_method: { method: 'id', id: method.id, ...(card.cvv == null ? {} : { security_code: card.cvv }) } }
      const f = await this.h.request('PUT', `/checkout/sessions/${s.body.id}/fields`, { auth: null, body: named })
      if (f.status !== 204) throw new Error(`the model's Secure Fields naming a stored method: ${f.status} ${f.text}`)
      return { id: s.body.id, state: 'stored' }
    }
    const fields = {
      payment_method: {
        method: 'card',
        number: card.digits,
        expiration_date: expiryText(this.h.clock.now(), 'months' in card.expiry ? card.expiry.months : 12),
        ...(card.cvv == null ? {} : { security_code: card.cvv }),
      },
    }
    const f = await this.h.request('PUT', `/checkout/sessions/${s.body.id}/fields`, { auth: null, body: fields })
    if (f.status !== 204) throw new Error(`the model's Secure Fields: ${f.status} ${f.text}`)
    const secret = new Secret('card', card.digits ?? '')
    if (pm.session === 'deleted') {
      const d = await this.h.request('DELETE', `/checkout/sessions/${s.body.id}`, { merchantAccount: where })
      if (d.status !== 204) throw new Error(`the model's session delete: ${d.status} ${d.text}`)
      return { id: s.body.id, state: 'deleted', secret }
    }
    return { id: s.body.id, state: pm.session === 'otherAccount' ? 'otherAccount' : 'fresh', secret }
  }

  slot(s: Slot, account: Account): string {
    switch (s.name) {
      case 'buyerId':
        return this.buyers[account].id
      case 'buyerIdUpper':
        return this.buyers[account].id.toUpperCase()
      case 'buyerExternal':
        return this.buyers[account].external
      case 'serviceId':
        return defaultCardServiceId(account)
      case 'otherServiceId':
        return defaultCardServiceId(account === 'default' ? 'acme' : 'default')
      case 'externalId':
        return this.externalIdOf(account) ?? 'ext-none'
      case 'sessionId':
        return this.paidSessions[account][0] ?? randomUUID()
      case 'now':
        return new Date(this.h.clock.now().getTime() + s.n * 3_600_000).toISOString()
    }
  }
  fill = (tree: unknown, account: Account): unknown =>
    tree instanceof Slot
      ? this.slot(tree, account)
      : tree instanceof Obj
        ? new Obj(tree.entries.map(([k, v]) => [k, this.fill(v, account)]))
        : tree

  private card(c: CardSpec): Obj {
    const expiry = 'bad' in c.expiry ? c.expiry.bad : expiryText(this.h.clock.now(), c.expiry.months)
    return new Obj([
      ['method', 'card'],
      ['number', c.number],
      ['expiration_date', expiry],
      ...(c.cvv === undefined ? [] : [['security_code', c.cvv] as const]),
    ])
  }

  /** The body of a payment; `storedId` is the id a stored method is named by (`{method: "id"}`). */
  createBody(spec: CreateSpec, account: Account, sessionId: string | null, storedId = ''): Obj {
    const pm = spec.pm
    const extras = (ps: readonly Prop[]) => ps.map((p) => [p.key, p.tree] as const)
    const method =
      pm.kind === 'card'
        ? new Obj([...this.card(pm.card).entries, ...extras(pm.extras)])
        : pm.kind === 'session'
          ? new Obj([['method', 'checkout-session'], ['id', sessionId ?? ''], ...extras(pm.extras)])
          : pm.kind === 'stored'
            ? new Obj([
                ['method', 'id'],
                ['id', storedId],
                ...(pm.cvv === undefined ? [] : [['security_code', pm.cvv] as const]),
                ...extras(pm.extras),
              ])
            : pm.tree
    const entries = spec.props.map((p) => [p.key, this.fill(p.tree, account)] as const)
    const at = Math.min(2, entries.length)
    const dup = spec.duplicateAmount === undefined ? [] : [['amount', spec.duplicateAmount] as const]
    return new Obj([...dup, ...entries.slice(0, at), ['payment_method', method], ...entries.slice(at)])
  }
}
