import { randomUUID } from 'node:crypto'
import type { Harness, Resource } from '../support/harness'
import { Obj, Secret } from './model'
import type { RawResponse } from './raw-http'
import { encodeComponent, FuzzRequest, QueryPart, Segment, TokenName } from './requests'
import {
  BuyerListSpec,
  OwnerSpec,
  PmAuth,
  PmFuzzRequest,
  PmListSpec,
  PmSpec,
  PmTarget,
  PmTransport,
  StoreSpec,
} from './payment-method-spec'
import { expired, KnownBuyer, KnownMethod, KnownVault, laterExpiry } from './payment-method-vault'
import { checkAnswer } from './transaction-check'
import { Account, expiryText, Expectation, schemeOf } from './transaction-expect'
import type { Prepared } from './transaction-model'
import { CardSpec, ListParam, Prop, Slot } from './transaction-spec'

type Json = Record<string, unknown>

/**
 * The model of the payment method routes (issue 26), from docs/payments.md ("Cards on file") and the
 * schema: the cards the run stored (the shared `KnownVault`), a buyer of its own in each
 * account (no other family names it, so what it holds is the model's to tell), and the keys it
 * used. It makes each request from its spec (a checkout session with a card first, when a card
 * is stored from one), predicts the answer, and learns from it:
 *
 * - a store: the gates (401, the route's scope, 422 for every schema fault with its location,
 *   the one-buyer rule, an embed token naming a buyer not its own a 403, an unknown buyer a 404
 *   naming the field, an expired card or a session without a card a 400), then a 201 whose
 *   method is the one the vault holds for that card and buyer (same id, its expiry moved to a
 *   later one sent) or a new `succeeded` one, showing the card's last 4, BIN, scheme and the
 *   fingerprint every view of that number shows;
 * - a read, change or delete: 422 for a malformed id, 404 for an unknown, deleted or another
 *   account's method (or another buyer's, for an embed token), else the method as the model
 *   knows it (changed as the body says);
 * - the lists: every item within the filters, and for the model's buyer the exact page (newest
 *   first; the buyer's list: only `succeeded` methods not past their expiry month).
 *
 * Card numbers are `Secret`s (the suite checks that no response or log line carries one) and
 * every answer goes through `checkAnswer` with the security code sent, which must be neither in
 * the answer nor in the request's log lines.
 */

const AUTH: Record<PmAuth, { token: TokenName | null; merchant: string[] }> = {
  admin: { token: 'admin', merchant: [] },
  adminAcme: { token: 'admin', merchant: ['acme'] },
  readOnly: { token: 'readOnly', merchant: [] },
  narrow: { token: 'narrow', merchant: [] },
  giftCardOperator: { token: 'giftCardOperator', merchant: [] },
  none: { token: null, merchant: [] },
  expired: { token: 'expired', merchant: [] },
  embed: { token: 'embed', merchant: [] },
  embedBuyer: { token: 'embedBuyer', merchant: [] },
}
const accountOf = (auth: PmAuth): Account => (auth === 'adminAcme' ? 'acme' : 'default')
const isEmbed = (auth: PmAuth) => auth === 'embed' || auth === 'embedBuyer'

const of = (status: number, why: string, more: Partial<Expectation> = {}): Expectation => ({ status, why, ...more })

/** Authentication (401) and the route's scope (403 before anything is decoded). Embed tokens hold both payment method scopes. */
const gate = (auth: PmAuth, scope: 'read' | 'write'): Expectation | undefined => {
  if (auth === 'none' || auth === 'expired') return of(401, `${auth} token`)
  if (auth === 'narrow' || auth === 'giftCardOperator') return of(403, `${auth} token`)
  if (auth === 'readOnly' && scope === 'write') return of(403, 'read-only key writing')
  return undefined
}

/** A property name the client chose is shown only when it is a plain identifier (docs/api-conventions.md, "Errors"). */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/
const body = (...loc: readonly (string | number)[]) => [
  'body',
  ...loc.map((k) => (typeof k === 'number' || PLAIN_NAME.test(k) ? k : '<property>')),
]
const faultsOf = (props: readonly Prop[]) => props.filter((p) => p.effect === '422').map((p) => body(...(p.loc ?? [p.key])))
const cardFaults = (c: CardSpec) => [
  ...(c.numberOk ? [] : [body('number')]),
  ...('bad' in c.expiry ? [body('expiration_date')] : []),
  ...(c.cvvOk ? [] : [body('security_code')]),
]
const lastWins = (props: readonly Prop[]) => props.filter((p, i) => !props.slice(i + 1).some((q) => q.key === p.key))

/** The card numbers other families send too (the mock's test cards): stored for no buyer, the model cannot know what the vault holds for them. */
const SHARED_NUMBERS = new Set(['4111111111111111', '4242424242424242', '4000000000000002', '4000000000009995'])

/** A method's JSON as the model knows it: what every view of it shows. */
export const methodView = (m: KnownMethod, vault: KnownVault): Json => ({
  type: 'payment-method',
  id: m.id,
  merchant_account_id: m.account,
  method: 'card',
  mode: 'card',
  ...(m.status === 'unknown' ? {} : { status: m.status }),
  label: m.digits.slice(-4),
  scheme: schemeOf(m.digits),
  expiration_date: m.expiry,
  details: { bin: m.digits.slice(0, 6), card_type: null },
  ...(vault.fingerprints.has(m.digits) ? { fingerprint: vault.fingerprints.get(m.digits) } : {}),
  buyer: m.owner === null ? null : { type: 'buyer', id: m.owner.id, external_identifier: m.owner.external, display_name: m.owner.name },
  external_identifier: m.externalId,
  scheme_transaction_id: m.schemeTxId,
  scheme_transaction_id_scheme: m.schemeTxScheme,
  transaction_link_id: m.linkId,
  additional_schemes: null,
  approval_url: null,
  country: null,
  currency: null,
  last_replaced_at: null,
  has_replacement: false,
  created_at: m.createdAt,
})

/** The newest first, as the vault lists them (created_at, then id). */
const newestFirst = (a: KnownMethod, b: KnownMethod) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1

interface Keyed {
  readonly account: Account
  readonly request: FuzzRequest
  readonly auth: PmAuth
  readonly text: string
}

export class PaymentMethodModel {
  readonly buyers = {} as Record<Account, KnownBuyer>
  private readonly keyed: Keyed[] = []
  readonly stats = { predicted: new Map<string, number>(), sessions: 0 }
  private counter = 0

  constructor(
    private readonly h: Harness,
    private readonly tokenOf: (name: TokenName) => string,
    readonly vault: KnownVault,
  ) {}

  async setup(): Promise<void> {
    for (const account of ['default', 'acme'] as const) {
      const external = `pm-model-${randomUUID()}`
      const r = await this.h.request<Resource>('POST', '/buyers', {
        merchantAccount: account,
        body: { display_name: 'Card Holder', external_identifier: external },
      })
      if (r.status !== 201) throw new Error(`the payment method model's buyer: ${r.status} ${r.text}`)
      this.buyers[account] = { id: r.body.id, external, name: 'Card Holder' }
    }
  }

  summary(): string {
    const by = [...this.stats.predicted.entries()].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k}: ${n}`)
    return `${this.vault.summary()}, ${this.stats.sessions} checkout sessions made; predicted: ${by.join(', ')}`
  }

  /** The fresh embed token a request sends (each its own rate-limit identity; `embedBuyer` names the model's buyer), or the suite's token. */
  private tokens(auth: PmAuth, account: Account): (name: TokenName) => string {
    if (auth === 'embed') return (name) => (name === 'embed' ? this.h.token('admin', { scopes: ['embed'] }) : this.tokenOf(name))
    if (auth === 'embedBuyer')
      return (name) =>
        name === 'embedBuyer'
          ? this.h.token('admin', { scopes: ['embed'], embedClaim: { buyer_external_identifier: this.buyers[account].external } })
          : this.tokenOf(name)
    return this.tokenOf
  }

  async prepare(q: PmFuzzRequest): Promise<Prepared> {
    const { spec } = q.pm
    const t = q.pm.transport
    const account = accountOf(t.auth)
    const n = this.counter++
    const key = t.key === 'fresh' ? randomUUID() : t.key === 'bad' ? (n % 2 ? '' : 'k'.repeat(256)) : null
    const tokenOf = this.tokens(t.auth, account)
    const base = (method: string, path: Segment[], tree: unknown, query: QueryPart[] = []): FuzzRequest => ({
      family: q.family,
      method,
      path,
      trailingSlash: t.trailingSlash,
      query,
      auth: AUTH[t.auth].token === null ? { kind: 'none' } : { kind: 'bearer', token: AUTH[t.auth].token!, scheme: 'Bearer' },
      merchant: AUTH[t.auth].merchant,
      contentType: tree === undefined ? [] : ['application/json'],
      headers: key === null ? [] : [['idempotency-key', key]],
      headerCase: t.headerCase,
      body: tree === undefined ? null : { tree, escape: t.escape, spaced: t.spaced, wrap: { k: 'none' }, bytes: [], chunked: t.chunked },
    })
    if (spec.op === 'store' && t.key === 'replay') {
      const earlier = this.keyed.filter((k) => k.account === account)
      const replay = earlier[n % Math.max(1, earlier.length)]
      if (replay !== undefined)
        return this.prepared(replay.request, this.tokens(replay.auth, account), { status: 201, why: 'replay', text: replay.text }, null)
    }
    switch (spec.op) {
      case 'store':
        return this.store(spec, t, account, key, base, tokenOf)
      case 'get':
      case 'update':
      case 'delete':
        return this.one(spec, t.auth, account, base, tokenOf)
      case 'list':
        return this.list(spec, t.auth, account, base, tokenOf)
      case 'buyerList':
        return this.buyerList(spec, t.auth, account, base, tokenOf)
    }
  }

  /**
   * A request the model made, with what it predicts; `relax` tells, once the answer is in, that a
   * write began meanwhile that may have changed it: then only the status is checked.
   */
  private prepared(
    request: FuzzRequest,
    tokenOf: (name: TokenName) => string,
    expect: Expectation,
    cvv: string | null,
    learn: (res: RawResponse) => void = () => undefined,
    free: () => void = () => undefined,
    secrets: readonly Secret[] = [],
    relax: () => boolean = () => false,
  ): Prepared {
    this.stats.predicted.set(`${expect.status}`, (this.stats.predicted.get(`${expect.status}`) ?? 0) + 1)
    return {
      request,
      tokenOf,
      secrets,
      expect,
      check: (res, logs) => checkAnswer(relax() ? { status: expect.status, why: expect.why } : expect, res, logs, cvv),
      done: (res) => {
        try {
          // What the server did, whatever the prediction: a wrong one is reported once, not again by every request after it.
          if (res !== undefined && expect.text === undefined) learn(res)
        } finally {
          free()
        }
      },
    }
  }

  /** The buyer properties of a store, and whom they name. */
  private owner(
    spec: OwnerSpec,
    account: Account,
    n: number,
  ): {
    entries: (readonly [string, unknown])[]
    named: 'none' | 'model' | 'unknown'
    pointer?: string
    faults: (string | number)[][]
    rule: boolean
  } {
    const b = this.buyers[account]
    switch (spec) {
      case 'none':
        return { entries: [], named: 'none', faults: [], rule: false }
      case 'nulls':
        return {
          entries: [
            ['buyer_id', null],
            ['buyer_external_identifier', null],
          ],
          named: 'none',
          faults: [],
          rule: false,
        }
      case 'buyerId':
        return { entries: [['buyer_id', b.id]], named: 'model', faults: [], rule: false }
      case 'buyerIdUpper':
        return { entries: [['buyer_id', b.id.toUpperCase()]], named: 'model', faults: [], rule: false }
      case 'buyerExternal':
        return { entries: [['buyer_external_identifier', b.external]], named: 'model', faults: [], rule: false }
      case 'unknownId':
        return { entries: [['buyer_id', randomUUID()]], named: 'unknown', pointer: '/buyer_id', faults: [], rule: false }
      case 'unknownExternal':
        return {
          entries: [['buyer_external_identifier', `nobody-${n}`]],
          named: 'unknown',
          pointer: '/buyer_external_identifier',
          faults: [],
          rule: false,
        }
      case 'both':
        return {
          entries: [
            ['buyer_id', b.id],
            ['buyer_external_identifier', b.external],
          ],
          named: 'model',
          faults: [],
          rule: true,
        }
      case 'badId':
        return {
          entries: [['buyer_id', ['x', '', '11111111111141118111111111111111', 7][n % 4]]],
          named: 'none',
          faults: [body('buyer_id')],
          rule: false,
        }
      case 'badExternal':
        return {
          entries: [['buyer_external_identifier', ['', 'x'.repeat(201), 'a\u0000b'][n % 3]]],
          named: 'none',
          faults: [body('buyer_external_identifier')],
          rule: false,
        }
    }
  }

  /** A checkout session holding `card` (or none, or another account's), made for a store from it. */
  private async session(account: Account, state: 'fresh' | 'empty' | 'otherAccount', card: CardSpec): Promise<string> {
    const where = state === 'otherAccount' ? (account === 'default' ? 'acme' : 'default') : account
    const s = await this.h.request<Resource>('POST', '/checkout/sessions', { merchantAccount: where })
    if (s.status !== 201) throw new Error(`the payment method model's checkout session: ${s.status} ${s.text}`)
    this.stats.sessions++
    if (state === 'empty') return s.body.id
    const fields = {
      payment_method: {
        method: 'card',
        number: card.digits,
        expiration_date: expiryText(this.h.clock.now(), 'months' in card.expiry ? card.expiry.months : 12),
        ...(card.cvv == null ? {} : { security_code: card.cvv }),
      },
    }
    const f = await this.h.request('PUT', `/checkout/sessions/${s.body.id}/fields`, { auth: null, body: fields })
    if (f.status !== 204) throw new Error(`the payment method model's Secure Fields: ${f.status} ${f.text}`)
    return s.body.id
  }

  private async store(
    spec: StoreSpec,
    t: PmTransport,
    account: Account,
    key: string | null,
    base: (method: string, path: Segment[], tree: unknown) => FuzzRequest,
    tokenOf: (name: TokenName) => string,
  ): Promise<Prepared> {
    const now = this.h.clock.now()
    const n = this.counter
    let owner = this.owner(spec.owner, account, n)
    let ownerBuyer: KnownBuyer | null = owner.named === 'model' ? this.buyers[account] : null
    const secrets: Secret[] = []
    let source = spec.source
    let again: KnownMethod | undefined
    // A card the run stored sent again, for the buyer it was stored for (the model's, the transaction model's, or none).
    if (source.k === 'again') {
      again = this.vault.take(account, source.pick, (m) => !m.deleted && m.status !== 'unknown')
      if (again === undefined) source = { k: 'card', card: freshCard(n, source.months) }
      else {
        ownerBuyer = again.owner
        owner = {
          entries: again.owner === null ? [] : [['buyer_id', again.owner.id]],
          named: again.owner === null ? 'none' : again.owner.id === this.buyers[account].id ? 'model' : 'unknown',
          faults: [],
          rule: false,
        }
      }
    }
    // A card whose method another request names, that another store is under way for, or that other families store for no
    // buyer too: another card instead, so that what the vault holds for it stays the model's to tell.
    const ownerId0 = owner.named === 'model' ? this.buyers[account].id : null
    const clash = (digits: string) =>
      owner.named !== 'unknown' && (this.vault.undecided(account, ownerId0, digits) || (ownerId0 === null && SHARED_NUMBERS.has(digits)))
    const swapped = (c: CardSpec): CardSpec => {
      if (c.digits === null || !c.numberOk || !clash(c.digits)) return c
      const other = freshCard(n, 0)
      return { ...c, number: other.number, digits: other.digits }
    }
    if (source.k === 'card') source = { ...source, card: swapped(source.card) }
    if (source.k === 'session' && source.state === 'fresh') source = { ...source, card: swapped(source.card) }
    const extras = lastWins(spec.extras)
    let tree: Obj
    let card: { digits: string; expiry: string; months: number } | null = null
    let cvv: string | null = null
    const extraEntries = extras.map((p) => [p.key, p.tree] as const)
    if (source.k === 'again' && again !== undefined) {
      const expiry = expiryText(now, source.months)
      card = { digits: again.digits, expiry, months: source.months }
      tree = new Obj([
        ['method', 'card'],
        ['number', new Secret('card', again.digits)],
        ['expiration_date', expiry],
        ...owner.entries,
        ...extraEntries,
      ])
    } else if (source.k === 'card') {
      const c = source.card
      const expiry = 'bad' in c.expiry ? c.expiry.bad : expiryText(now, c.expiry.months)
      if (c.digits !== null && 'months' in c.expiry) card = { digits: c.digits, expiry: String(expiry), months: c.expiry.months }
      if (typeof c.cvv === 'string') cvv = c.cvv
      tree = new Obj([
        ['method', 'card'],
        ['number', c.number],
        ['expiration_date', expiry],
        ...(c.cvv === undefined ? [] : [['security_code', c.cvv] as const]),
        ...owner.entries,
        ...extraEntries,
      ])
    } else if (source.k === 'session') {
      const id =
        source.state === 'malformed'
          ? ['x', '', 'null', '11111111-1111-4111-8111-11111111111'][n % 4]!
          : source.state === 'unknown'
            ? randomUUID()
            : await this.session(account, source.state, source.card)
      if (source.state === 'fresh' && source.card.digits !== null && 'months' in source.card.expiry) {
        card = { digits: source.card.digits, expiry: expiryText(now, source.card.expiry.months), months: source.card.expiry.months }
        secrets.push(new Secret('card', source.card.digits))
      }
      if (typeof source.card.cvv === 'string') cvv = source.card.cvv
      tree = new Obj([['method', 'checkout-session'], ['id', id], ...owner.entries, ...extraEntries])
    } else {
      const bad = source.k === 'badMethod' ? source.method : undefined
      tree = new Obj([
        ...(bad === undefined ? [] : [['method', bad] as const]),
        ['number', new Secret('card', '4111111111111111')],
        ['expiration_date', '12/35'],
        ...owner.entries,
      ])
    }

    // What the vault holds for this card and buyer, read before this request is under way.
    const ownerId = ownerBuyer?.id ?? null
    const shared = card !== null && ownerId === null && SHARED_NUMBERS.has(card.digits) && again === undefined
    const undecided =
      card === null ||
      shared ||
      (again === undefined ? this.vault.undecided(account, ownerId, card.digits) : this.vault.storingNow(account, ownerId, card.digits))
    const existing = card === null ? undefined : (again ?? this.vault.find(account, ownerId, card.digits))

    const expect = ((): Expectation => {
      const gated = gate(t.auth, 'write')
      if (gated) return gated
      const header = key !== null && key.length !== 36 ? [['header', 'idempotency-key']] : []
      if (source.k === 'badMethod') return of(422, 'schema', { locs: [...header, body('method')] })
      const faults = [
        ...(source.k === 'card' ? cardFaults(source.card) : []),
        ...(source.k === 'session' && source.state === 'malformed' ? [body('id')] : []),
        ...owner.faults,
        ...faultsOf(extras),
      ]
      if (faults.length > 0) return of(422, 'schema', { locs: [...header, ...faults] })
      if (owner.rule || header.length > 0)
        return of(422, owner.rule ? 'one-buyer rule' : 'schema', {
          locs: [...header, ...(owner.rule ? [body('buyer_external_identifier')] : [])],
        })
      // An embed token stores for no buyer or its claim's: naming another (known or not) is a 403.
      if (t.auth === 'embed' && owner.named !== 'none') return of(403, 'embed token naming a buyer')
      if (t.auth === 'embedBuyer' && owner.named !== 'none' && owner.named !== 'model')
        return of(403, "another buyer than the embed claim's")
      if (owner.named === 'unknown' && again === undefined)
        return of(404, 'unknown buyer', { pointers: [owner.pointer!], detailType: 'unknown_buyer' })
      if (source.k === 'session' && source.state !== 'fresh')
        return of(400, 'no card in the session', { pointers: ['/id'], detailType: 'no_card_data' })
      if (card === null) throw new Error('a store without a card passed every check')
      if (card.months < 0) return of(400, 'expired card', { pointers: ['/expiration_date'], detailType: 'expired_card' })
      const ext = extras.find((p) => p.key === 'external_identifier')?.value as string | null | undefined
      const shown: Json = {
        type: 'payment-method',
        merchant_account_id: account,
        method: 'card',
        mode: 'card',
        label: card.digits.slice(-4),
        scheme: schemeOf(card.digits),
        details: { bin: card.digits.slice(0, 6), card_type: null },
        ...(this.vault.fingerprints.has(card.digits) ? { fingerprint: this.vault.fingerprints.get(card.digits) } : {}),
        buyer:
          ownerBuyer === null
            ? null
            : { type: 'buyer', id: ownerBuyer.id, external_identifier: ownerBuyer.external, display_name: ownerBuyer.name },
        additional_schemes: null,
        approval_url: null,
        country: null,
        currency: null,
        last_replaced_at: null,
        has_replacement: false,
      }
      if (undecided) return of(201, 'stored (undecided)', { body: shown })
      if (existing !== undefined)
        return of(201, 'stored again', {
          body: { ...methodView(existing, this.vault), expiration_date: laterExpiry(card.expiry, existing.expiry) },
        })
      return of(201, 'stored', {
        body: {
          ...shown,
          status: 'succeeded',
          expiration_date: card.expiry,
          external_identifier: ext ?? null,
          scheme_transaction_id: null,
          scheme_transaction_id_scheme: null,
          transaction_link_id: null,
          usage_count: 0,
          cit_usage_count: 0,
          last_used_at: null,
          cit_last_used_at: null,
        },
      })
    })()
    const request = base('POST', ['payment-methods'], tree)
    const end = expect.status === 201 && card !== null ? this.vault.begin(account, ownerId, card.digits) : () => undefined
    return this.prepared(
      request,
      tokenOf,
      expect,
      cvv,
      (res) => {
        if (res.status !== 201 || card === null) return
        const b = JSON.parse(res.text) as Json
        this.vault.learn(
          {
            id: String(b.id),
            account,
            owner: ownerBuyer,
            digits: card.digits,
            createdAt: String(b.created_at),
            expiry: String(b.expiration_date),
            status: b.status === 'succeeded' || b.status === 'failed' || b.status === 'processing' ? b.status : 'unknown',
            externalId: (b.external_identifier as string | null) ?? null,
            schemeTxId: (b.scheme_transaction_id as string | null) ?? null,
            schemeTxScheme: (b.scheme_transaction_id_scheme as string | null) ?? null,
            linkId: (b.transaction_link_id as string | null) ?? null,
          },
          b.fingerprint,
        )
        if (key !== null && key.length === 36 && !isEmbed(t.auth)) this.keyed.push({ account, request, auth: t.auth, text: res.text })
      },
      () => {
        end()
        if (again) again.busy = false
      },
      secrets,
    )
  }

  /** The method a read, change or delete names (held until its answer), and the path segment that names it. */
  private target(target: PmTarget, account: Account): { m: KnownMethod | null; segment: string; malformed: boolean } {
    switch (target.k) {
      case 'malformed':
        return { m: null, segment: target.segment, malformed: true }
      case 'unknown':
        return { m: null, segment: target.id, malformed: false }
      case 'otherAccount': {
        const other = this.vault.methods.filter((m) => m.account !== account)
        return { m: null, segment: other[target.pick % Math.max(1, other.length)]?.id ?? randomUUID(), malformed: false }
      }
      case 'deleted': {
        const m = this.vault.take(account, target.pick, (x) => x.deleted)
        return m === undefined ? { m: null, segment: randomUUID(), malformed: false } : { m, segment: m.id, malformed: false }
      }
      case 'pooled': {
        const m = this.vault.take(account, target.pick, (x) => !x.deleted)
        return m === undefined
          ? { m: null, segment: randomUUID(), malformed: false }
          : { m, segment: target.upper ? m.id.toUpperCase() : m.id, malformed: false }
      }
    }
  }

  private one(
    spec: Extract<PmSpec, { op: 'get' | 'update' | 'delete' }>,
    auth: PmAuth,
    account: Account,
    base: (method: string, path: Segment[], tree: unknown) => FuzzRequest,
    tokenOf: (name: TokenName) => string,
  ): Prepared {
    const { m, segment, malformed } = this.target(spec.target, account)
    const write = spec.op !== 'get'
    const end = write && m !== null && !m.deleted ? this.vault.begin(account, m.owner?.id ?? null, null) : () => undefined
    // An expiry to set is a `Slot` of months from the model's clock (payment-method-requests.ts).
    const now = this.h.clock.now()
    const resolve = (v: unknown) => (v instanceof Slot ? expiryText(now, v.n) : v)
    const sent = spec.op === 'update' ? spec.props.map((p) => ({ ...p, tree: resolve(p.tree), value: resolve(p.value) })) : []
    const props = lastWins(sent)
    const expect = ((): Expectation => {
      const gated = gate(auth, write ? 'write' : 'read')
      if (gated) return gated
      // A malformed id is refused before the body is read.
      if (malformed) return of(422, 'malformed id', { locs: [['path', 'payment_method_id']] })
      const faults = faultsOf(props)
      if (faults.length > 0) return of(422, 'schema', { locs: faults })
      if (auth === 'embed') return of(403, 'embed token naming no buyer')
      const live = m !== null && !m.deleted ? m : null
      if (live === null) return of(404, 'unknown method')
      if (auth === 'embedBuyer' && live.owner?.id !== this.buyers[account].id) return of(404, "another buyer's method (embed)")
      if (spec.op === 'delete') return of(204, 'deleted')
      const view = methodView(live, this.vault)
      if (spec.op === 'get') return of(200, 'method', { body: view })
      const changed = Object.fromEntries(props.map((p) => [p.key, p.value]))
      return of(200, 'updated', { body: { ...view, ...changed } })
    })()
    const path: Segment[] = ['payment-methods', segment]
    const method = spec.op === 'get' ? 'GET' : spec.op === 'update' ? 'PUT' : 'DELETE'
    const tree = spec.op === 'update' ? new Obj(sent.map((p) => [p.key, p.tree] as const)) : undefined
    return this.prepared(
      base(method, path, tree),
      tokenOf,
      expect,
      null,
      (res) => {
        if (m === null) return
        if (spec.op === 'delete' && res.status === 204) m.deleted = true
        if (spec.op === 'update' && res.status === 200) {
          const b = JSON.parse(res.text) as Json
          m.expiry = String(b.expiration_date)
          m.externalId = (b.external_identifier as string | null) ?? null
          m.schemeTxId = (b.scheme_transaction_id as string | null) ?? null
          m.schemeTxScheme = (b.scheme_transaction_id_scheme as string | null) ?? null
          m.linkId = (b.transaction_link_id as string | null) ?? null
        }
      },
      () => {
        end()
        if (m) m.busy = false
      },
    )
  }

  /** A query from its parameters: its text, the faults (by place for `status`), a repeated single parameter a fault too. */
  private query(
    params: readonly ListParam[],
    account: Account,
  ): { parts: QueryPart[]; faults: (string | number)[][]; values: Map<string, string[]> } {
    const slot = (s: Slot): string => {
      const b = this.buyers[account]
      if (s.name === 'buyerId') return b.id
      if (s.name === 'buyerIdUpper') return b.id.toUpperCase()
      if (s.name === 'buyerExternal') return b.external
      const known = this.vault.methods.filter((x) => x.account === account && x.externalId !== null)
      return known[s.n % Math.max(1, known.length)]?.externalId ?? 'ext-none'
    }
    const value = (p: ListParam) => (p.value instanceof Slot ? slot(p.value) : p.value)
    const values = new Map<string, string[]>()
    const faults: (string | number)[][] = []
    const offset = new Map<string, number>()
    for (const p of params) {
      const v = value(p)
      const at = offset.get(p.name) ?? 0
      offset.set(p.name, at + v.split(',').length)
      values.set(p.name, [...(values.get(p.name) ?? []), v])
      if (p.fault) faults.push(p.name === 'status' ? ['query', 'status', at + Number(p.fault[2] ?? 0)] : [...p.fault])
    }
    for (const [name, vs] of values) if (vs.length > 1 && name !== 'status') faults.push(['query', name])
    const parts = params.map((p) => ({ raw: `${encodeComponent(p.name)}=${p.encoded === true ? value(p) : encodeComponent(value(p))}` }))
    return { parts, faults: faults.filter((f, i) => faults.findIndex((g) => JSON.stringify(g) === JSON.stringify(f)) === i), values }
  }

  /** Whom a list's buyer parameters name: the model's buyer, one the account does not have, or none. */
  private named(values: Map<string, string[]>, account: Account): 'model' | 'unknown' | 'none' {
    const b = this.buyers[account]
    const id = values.get('buyer_id')?.[0]
    const ext = values.get('buyer_external_identifier')?.[0]
    if (id !== undefined) return id.toLowerCase() === b.id && (ext === undefined || ext === b.external) ? 'model' : 'unknown'
    if (ext !== undefined) return ext === b.external ? 'model' : 'unknown'
    return 'none'
  }

  private list(
    spec: PmListSpec,
    auth: PmAuth,
    account: Account,
    base: (method: string, path: Segment[], tree: unknown, query?: QueryPart[]) => FuzzRequest,
    tokenOf: (name: TokenName) => string,
  ): Prepared {
    const { parts, faults, values } = this.query(spec.params, account)
    const b = this.buyers[account]
    const statuses = values.get('status')?.flatMap((v) => v.split(','))
    const ext = values.get('external_identifier')?.[0]
    const limit = Number(values.get('limit')?.[0] ?? 20)
    const named = this.named(values, account)
    // An embed token sees only its claim's buyer's methods: another buyer named is none of them.
    const buyer: 'model' | 'unknown' | 'none' =
      auth === 'embedBuyer' ? (named === 'none' || named === 'model' ? 'model' : 'unknown') : named
    const expect = ((): Expectation => {
      const gated = gate(auth, 'read')
      if (gated) return gated
      if (faults.length > 0) return of(422, 'schema', { locs: faults })
      if (auth === 'embed') return of(403, 'embed token naming no buyer')
      if (buyer === 'unknown') return of(200, 'unknown buyer', { body: { items: [] } })
      // Deleted before the request was made, and by no request under way: a listed one is a deleted method shown.
      const gone = new Set(this.vault.methods.filter((m) => m.account === account && m.deleted && !m.busy).map((m) => m.id))
      const item = (it: Json): string | undefined => {
        if (it.merchant_account_id !== account) return `an item of ${String(it.merchant_account_id)} in ${account}'s list`
        if (buyer === 'model' && (it.buyer as Json | null)?.id !== b.id) return `${String(it.id)} is not the buyer's`
        if (statuses !== undefined && !statuses.includes(String(it.status))) return `${String(it.id)} breaks status=${statuses.join(',')}`
        if (ext !== undefined && it.external_identifier !== ext) return `${String(it.id)} breaks external_identifier=${ext}`
        if (gone.has(String(it.id))) return `${String(it.id)} was deleted`
        return undefined
      }
      const mine = this.vault.methods.filter((m) => m.account === account && !m.deleted && m.owner?.id === b.id)
      const exact = buyer === 'model' && !this.vault.changing(account, b.id) && mine.every((m) => m.status !== 'unknown')
      if (!exact) return of(200, 'page', { item, limit })
      const page = mine
        .filter((m) => (statuses === undefined || statuses.includes(m.status)) && (ext === undefined || m.externalId === ext))
        .sort(newestFirst)
        .slice(0, limit)
      return of(200, "the buyer's page", {
        body: { items: page.map((m) => ({ id: m.id, status: m.status, expiration_date: m.expiry })), limit },
      })
    })()
    const gen = this.vault.generation(account, b.id)
    const relax = () => buyer === 'model' && this.vault.generation(account, b.id) !== gen
    return this.prepared(base('GET', ['payment-methods'], undefined, parts), tokenOf, expect, null, undefined, undefined, [], relax)
  }

  private buyerList(
    spec: BuyerListSpec,
    auth: PmAuth,
    account: Account,
    base: (method: string, path: Segment[], tree: unknown, query?: QueryPart[]) => FuzzRequest,
    tokenOf: (name: TokenName) => string,
  ): Prepared {
    const { parts, faults, values } = this.query(spec.params, account)
    const b = this.buyers[account]
    const named = this.named(values, account)
    const both = values.has('buyer_id') && values.has('buyer_external_identifier')
    const rules = both ? [['query', 'buyer_external_identifier']] : named === 'none' ? [['query', 'buyer_id']] : []
    const order = values.get('order_by')?.[0] ?? 'desc'
    const sorted = values.has('sort_by')
    const now = this.h.clock.now()
    const expect = ((): Expectation => {
      const gated = gate(auth, 'read')
      if (gated) return gated
      if (faults.length > 0) return of(422, 'schema', { locs: faults })
      if (rules.length > 0) return of(422, 'one-buyer rule', { locs: rules })
      if (auth === 'embed') return of(403, 'embed token naming no buyer')
      if (named === 'unknown') return of(200, 'unknown buyer', { body: { items: [] } })
      if (this.vault.changing(account, b.id)) return of(200, "the buyer's methods (changing)")
      const usable = (m: KnownMethod) => !m.deleted && m.status === 'succeeded' && !expired(m.expiry, now)
      const mine = this.vault.methods.filter((m) => m.account === account && m.owner?.id === b.id).map((m) => ({ ...m }))
      const item = (it: Json): string | undefined => {
        const known = mine.find((m) => m.id === it.id)
        if (known === undefined) return `${String(it.id)} is none of the buyer's methods`
        if (known.status !== 'unknown' && !usable(known))
          return `${String(it.id)} cannot pay (${known.status}, ${known.expiry}, deleted: ${known.deleted})`
        return undefined
      }
      const exact = !sorted && mine.every((m) => m.status !== 'unknown')
      if (!exact) return of(200, "the buyer's methods", { item })
      // The server reads the buyer's 100 newest `succeeded` methods, then leaves out the expired ones.
      const items = mine
        .filter((m) => !m.deleted && m.status === 'succeeded')
        .sort(newestFirst)
        .slice(0, 100)
        .filter((m) => !expired(m.expiry, now))
      if (order === 'asc') items.reverse()
      return of(200, "the buyer's usable methods", {
        body: { items: items.map((m) => ({ id: m.id, label: m.digits.slice(-4), expiration_date: m.expiry })) },
      })
    })()
    const gen = this.vault.generation(account, b.id)
    const relax = () => named === 'model' && this.vault.generation(account, b.id) !== gen
    return this.prepared(
      base('GET', ['buyers', 'payment-methods'], undefined, parts),
      tokenOf,
      expect,
      null,
      undefined,
      undefined,
      [],
      relax,
    )
  }
}

/** A Luhn-valid Visa number no other family sends, for a store that has none of its own. */
const freshCard = (n: number, months: number): CardSpec => {
  let body = '4'
  let x = (n * 2654435761) >>> 0
  for (let i = 0; i < 14; i++) {
    x = (Math.imul(x ^ (x >>> 13), 0x5bd1e995) + i) >>> 0
    body += String(x % 10)
  }
  let digits = body
  for (let d = 0; d < 10; d++) {
    let sum = 0
    const c = `${body}${d}`
    for (let i = 0; i < c.length; i++) {
      let v = c.charCodeAt(c.length - 1 - i) - 48
      if (i % 2 === 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2
      sum += v
    }
    if (sum % 10 === 0) digits = c
  }
  return { number: new Secret('card', digits), numberOk: true, digits, expiry: { months }, cvv: undefined, cvvOk: true }
}
