import { randomUUID } from 'node:crypto'
import { defaultCardServiceId } from '../../src/card-services'
import type { Harness } from '../support/harness'
import type { Problem } from './contract'
import { Obj, Secret } from './model'
import { expired, KnownMethod, KnownVault, laterExpiry } from './payment-method-vault'
import type { RawResponse } from './raw-http'
import { FuzzRequest, Segment, TokenName } from './requests'
import { checkAnswer } from './transaction-check'
import {
  Account,
  amountTree,
  expectCreate,
  expectOperation,
  expectRead,
  Expectation,
  gate,
  mockRule,
  refundable,
  TxState,
} from './transaction-expect'
import { ListCursor, planList } from './transaction-list'
import { Makings } from './transaction-make'
import { CreateSpec, ListSpec, OperationSpec, PaymentMethodSpec, ReadSpec, TargetSpec, TxAuth, TxFuzzRequest } from './transaction-spec'

type Json = Record<string, unknown>

/** A request the model made, what it predicts, and what it learns from the answer. */
export interface Prepared {
  readonly request: FuzzRequest
  readonly tokenOf: (name: TokenName) => string
  /** Card numbers it sent besides the request's (a session's card): never in a response or a log line. */
  readonly secrets: readonly Secret[]
  readonly expect: Expectation
  /** Every way the answer differs from the prediction, and a card's security code anywhere in it or its log lines. */
  check(res: RawResponse, logs: string): Problem[]
  /** Learns from the answer (none: the request got no answer) and frees the transaction it named. */
  done(res: RawResponse | undefined): void
}

interface Keyed {
  readonly account: Account
  readonly request: FuzzRequest
  readonly auth: TxAuth
  readonly key: string
  readonly text: string
  readonly status: number
  readonly create: boolean
}

const accountOf = (auth: TxAuth): Account => (auth === 'adminAcme' || auth === 'acmeAdmin' ? 'acme' : 'default')
const AUTH: Record<TxAuth, { token: TokenName | null; merchant: string[] }> = {
  admin: { token: 'admin', merchant: [] },
  adminAcme: { token: 'admin', merchant: ['acme'] },
  acmeAdmin: { token: 'acmeAdmin', merchant: ['acme'] },
  acmeAdminOnDefault: { token: 'acmeAdmin', merchant: [] },
  readOnly: { token: 'readOnly', merchant: [] },
  giftCardOperator: { token: 'giftCardOperator', merchant: [] },
  narrow: { token: 'narrow', merchant: [] },
  none: { token: null, merchant: [] },
  expired: { token: 'expired', merchant: [] },
  badSignature: { token: 'badSignature', merchant: [] },
  embed: { token: 'embed', merchant: [] },
  embedPinned: { token: 'embed', merchant: [] },
  embedBuyer: { token: 'embedBuyer', merchant: [] },
}
const PIN = 1299

/**
 * The model of the transaction routes: the transactions the run made (per account, with what
 * each allows next), the checkout sessions it paid with, the keys it used. It turns a spec into
 * a request (making a checkout session for it first when it pays with one), predicts the answer
 * (transaction-expect.ts), and learns from it. A transaction is named by one request at a time
 * (`busy`), so that predictions hold while properties run in parallel.
 */
export class TransactionModel {
  private readonly txs: Record<Account, TxState[]> = { default: [], acme: [] }
  private readonly keyed: Keyed[] = []
  private readonly cursors: ListCursor[] = []
  readonly stats = { predicted: new Map<string, number>(), created: new Map<string, number>() }
  private counter = 0

  private readonly make: Makings

  constructor(
    private readonly h: Harness,
    private readonly tokenOf: (name: TokenName) => string,
    private readonly vault: KnownVault,
  ) {
    this.make = new Makings(h, (account) => this.txs[account].find((t) => t.externalId !== null)?.externalId ?? undefined)
  }

  async setup(): Promise<void> {
    await this.make.setup()
  }

  summary(): string {
    const all = [...this.txs.default, ...this.txs.acme]
    const by = (m: Map<string, number>) =>
      [...m.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k}: ${n}`)
        .join(', ')
    return `${all.length} transactions (${by(this.stats.created)}), ${this.make.sessions} checkout sessions made; predicted: ${by(this.stats.predicted)}`
  }

  async prepare(q: TxFuzzRequest): Promise<Prepared> {
    const t = q.tx.transport
    let spec = q.tx.spec
    const account = accountOf(t.auth)
    const n = this.counter++
    const key = t.key === 'fresh' ? randomUUID() : t.key === 'bad' ? (n % 2 ? '' : 'k'.repeat(256)) : null
    const earlier =
      t.key === 'replay' || t.key === 'reuse' ? this.keyed.filter((k) => k.account === account && k.create === (spec.op === 'create')) : []
    const replay = t.key === 'replay' ? earlier[n % Math.max(1, earlier.length)] : undefined
    const reuse = t.key === 'reuse' && spec.op === 'create' ? earlier[n % Math.max(1, earlier.length)] : undefined
    const tokenOf = this.tokens(t.auth)
    const base = (method: string, path: Segment[], tree: unknown, headers: [string, string][] = []): FuzzRequest => ({
      family: q.family,
      method,
      path,
      trailingSlash: t.trailingSlash,
      query: [],
      auth: AUTH[t.auth].token === null ? { kind: 'none' } : { kind: 'bearer', token: AUTH[t.auth].token!, scheme: 'Bearer' },
      merchant: AUTH[t.auth].merchant,
      contentType: tree === undefined ? [] : ['application/json'],
      headers: [
        ...(key !== null
          ? [['idempotency-key', key] as [string, string]]
          : reuse
            ? [['idempotency-key', reuse.key] as [string, string]]
            : []),
        ...headers,
      ],
      headerCase: t.headerCase,
      body: tree === undefined ? null : { tree, escape: t.escape, spaced: t.spaced, wrap: { k: 'none' }, bytes: [], chunked: t.chunked },
    })
    if (replay !== undefined)
      return this.prepared(
        replay.request,
        this.tokens(replay.auth),
        [],
        { status: replay.status, why: 'replay', text: replay.text },
        () => undefined,
        null,
      )

    switch (spec.op) {
      case 'create': {
        const now = this.h.clock.now()
        // The stored methods this payment names are held until its answer: nothing else changes or deletes them meanwhile.
        const held: KnownMethod[] = []
        const hold = (m: KnownMethod | undefined) => {
          if (m) held.push(m)
          return m ?? null
        }
        const usable = (m: KnownMethod) => !m.deleted && m.status === 'succeeded' && !expired(m.expiry, now)
        const pm = spec.pm
        let stored: { method: KnownMethod | null; id: string } | null = null
        if (pm.kind === 'stored') stored = this.stored(pm, account, n, hold)
        const named = pm.kind === 'session' && pm.session === 'stored' ? hold(this.vault.take(account, n, usable)) : null
        const made = await this.make.madeSession(spec, account, named)
        if (made?.state === 'stored') stored = { method: named, id: named!.id }
        // `store: true`: the card that pays is kept for the model's buyer; what the vault holds for it decides the method's id.
        // A card whose method another request names, or that another store is under way for, is paid without `store`.
        const store = spec.props.some((p) => p.key === 'store' && p.value === true)
        const buyer = this.make.buyers[account]
        const paying = stored === null && (pm.kind === 'card' || (pm.kind === 'session' && made?.state === 'fresh')) ? pm.card.digits : null
        if (store && paying !== null && this.vault.undecided(account, buyer.id, paying)) spec = withStore(spec, false)
        const keptDigits = store && spec.props.some((p) => p.key === 'store' && p.value === true) ? paying : null
        const existing = keptDigits === null ? undefined : hold(this.vault.find(account, buyer.id, keptDigits))
        if (existing) existing.busy = true
        const sent = spec
        const request = base('POST', ['transactions'], this.make.createBody(spec, account, made?.id ?? null, stored?.id ?? ''))
        const expect = expectCreate(spec, {
          account,
          auth: t.auth,
          now: this.h.clock.now(),
          badKey: t.key === 'bad',
          reused: reuse !== undefined,
          buyer: this.make.buyers[account],
          serviceId: defaultCardServiceId(account),
          session: made,
          pin: PIN,
          stored: stored === null ? null : { method: stored.method },
          keep: keptDigits === null ? null : { existing: existing ?? undefined },
          fingerprints: this.vault.fingerprints,
        })
        const end = keptDigits !== null && expect.status === 201 ? this.vault.begin(account, buyer.id, keptDigits) : () => undefined
        const cvv =
          spec.pm.kind === 'card' || spec.pm.kind === 'session' ? spec.pm.card.cvv : spec.pm.kind === 'stored' ? spec.pm.cvv : undefined
        return this.prepared(
          request,
          tokenOf,
          made?.secret ? [made.secret] : [],
          expect,
          (res) => {
            if (res.status !== 201) return
            const body = JSON.parse(res.text) as Json
            this.stats.created.set(String(body.status), (this.stats.created.get(String(body.status)) ?? 0) + 1)
            this.txs[account].push({
              id: String(body.id),
              account,
              amount: Number(body.amount),
              currency: String(body.currency),
              cvv: typeof cvv === 'string' ? cvv : null,
              sessionId: made?.id ?? null,
              status: String(body.status),
              authorized: Number(body.authorized_amount),
              captured: Number(body.captured_amount),
              captures: body.status === 'capture_succeeded' ? ['?'] : [],
              refunds: [],
              externalId: (body.external_identifier as string | null) ?? null,
              metadata: body.metadata ?? null,
              busy: false,
            })
            if (made) this.make.paidSessions[account].push(made.id)
            if (key !== null && !AUTH[t.auth].token?.startsWith('embed'))
              this.keyed.push({ account, request, auth: t.auth, key, text: res.text, status: 201, create: true })
            const shown = body.payment_method as Json | null
            const digits = stored?.method?.digits ?? (pm.kind === 'card' || pm.kind === 'session' ? pm.card.digits : null)
            if (digits != null && typeof shown?.fingerprint === 'string') this.vault.fingerprints.set(digits, shown.fingerprint)
            if (keptDigits !== null && typeof shown?.id === 'string')
              this.kept(account, keptDigits, body, shown, existing ?? undefined, sent)
          },
          typeof cvv === 'string' ? cvv : null,
          () => {
            end()
            for (const m of held) m.busy = false
          },
        )
      }
      case 'capture':
      case 'void':
      case 'refund':
      case 'refundAll':
      case 'update':
      case 'cancel':
        return this.operation(spec, t.auth, account, base, key, tokenOf)
      case 'read':
        return this.read(spec, t.auth, account, base, tokenOf)
      case 'list':
        return this.list(spec, t.auth, account, base, tokenOf)
    }
  }

  /** The stored method a payment names by id: one that can pay, any the run stored, an unknown or malformed id, another account's. */
  private stored(
    pm: Extract<PaymentMethodSpec, { kind: 'stored' }>,
    account: Account,
    n: number,
    hold: (m: KnownMethod | undefined) => KnownMethod | null,
  ): { method: KnownMethod | null; id: string } {
    const now = this.h.clock.now()
    const none = (id: string) => ({ method: null, id })
    switch (pm.pick) {
      case 'usable':
      case 'any': {
        const m = hold(
          this.vault.take(account, pm.n, (x) =>
            pm.pick === 'usable'
              ? !x.deleted && x.status === 'succeeded' && !expired(x.expiry, now)
              : x.status !== 'unknown' && x.status !== 'processing',
          ),
        )
        return m === null ? none(randomUUID()) : { method: m, id: n % 5 === 0 ? m.id.toUpperCase() : m.id }
      }
      case 'unknown':
        return none(n % 2 ? randomUUID() : `pm-${n}`)
      case 'malformed':
        return none(n % 2 ? '' : 'x'.repeat(201))
      case 'otherAccount': {
        const other = this.vault.methods.filter((x) => x.account !== account)
        return none(other[pm.n % Math.max(1, other.length)]?.id ?? randomUUID())
      }
    }
  }

  /**
   * What a payment with `store: true` tells of the card it kept for the model's buyer: its id,
   * and its status by the payment's end (docs/payments.md, "Cards on file": `succeeded` when authorized;
   * when not, `failed`, unless it was `succeeded` before; a payment whose end the model cannot
   * tell leaves it undecided).
   */
  private kept(account: Account, digits: string, tx: Json, shown: Json, existing: KnownMethod | undefined, spec: CreateSpec) {
    const paid = tx.status === 'authorization_succeeded' || tx.status === 'capture_succeeded'
    const amount = spec.props.find((p) => p.key === 'amount')?.value
    const timeout = typeof amount === 'number' && mockRule(amount).k === 'timeout'
    const status = timeout ? 'unknown' : paid ? 'succeeded' : existing?.status === 'succeeded' ? 'succeeded' : 'failed'
    const sent = String(shown.expiration_date)
    this.vault.learn(
      {
        id: String(shown.id),
        account,
        owner: this.make.buyers[account],
        digits,
        createdAt: existing?.createdAt ?? String(tx.created_at),
        expiry: existing === undefined ? sent : laterExpiry(sent, existing.expiry),
        status,
        externalId: existing?.externalId ?? null,
        schemeTxId: existing?.schemeTxId ?? null,
        schemeTxScheme: existing?.schemeTxScheme ?? null,
        linkId: existing?.linkId ?? null,
      },
      shown.fingerprint,
    )
  }

  /** The fresh embed token a request sends (each its own rate-limit identity), or the suite's token. */
  private tokens(auth: TxAuth): (name: TokenName) => string {
    if (auth === 'embed' || auth === 'embedPinned')
      return (name) =>
        name === 'embed'
          ? this.h.token('admin', { scopes: ['embed'], ...(auth === 'embedPinned' ? { embedClaim: { amount: PIN } } : {}) })
          : this.tokenOf(name)
    if (auth === 'embedBuyer')
      return (name) =>
        name === 'embedBuyer'
          ? this.h.token('admin', { scopes: ['embed'], embedClaim: { buyer_external_identifier: this.make.buyers.default.external } })
          : this.tokenOf(name)
    return this.tokenOf
  }

  private prepared(
    request: FuzzRequest,
    tokenOf: (name: TokenName) => string,
    secrets: readonly Secret[],
    expect: Expectation,
    learn: (res: RawResponse) => void,
    cvv: string | null,
    free: () => void = () => undefined,
  ): Prepared {
    this.stats.predicted.set(`${expect.status}`, (this.stats.predicted.get(`${expect.status}`) ?? 0) + 1)
    return {
      request,
      tokenOf,
      secrets,
      expect,
      check: (res, logs) => checkAnswer(expect, res, logs, cvv),
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

  /** A transaction of the account for a request to name (held until its answer), or none. */
  private take(target: TargetSpec, account: Account): { tx: TxState | null; segment: string; malformed: boolean } {
    if (target.k === 'malformed') return { tx: null, segment: target.segment, malformed: true }
    if (target.k === 'unknown') return { tx: null, segment: target.id, malformed: false }
    const pool = target.k === 'otherAccount' ? this.txs[account === 'default' ? 'acme' : 'default'] : this.txs[account]
    const free = pool.filter((t) => !t.busy)
    const t = free.length === 0 ? undefined : free[target.pick % free.length]!
    if (t === undefined) return { tx: null, segment: randomUUID(), malformed: false }
    if (target.k === 'otherAccount') return { tx: null, segment: t.id, malformed: false }
    t.busy = true
    return { tx: t, segment: target.upper ? t.id.toUpperCase() : t.id, malformed: false }
  }

  private operation(
    spec: OperationSpec,
    auth: TxAuth,
    account: Account,
    base: (method: string, path: Segment[], tree: unknown, headers?: [string, string][]) => FuzzRequest,
    key: string | null,
    tokenOf: (name: TokenName) => string,
  ): Prepared {
    const { tx, segment, malformed } = this.take(spec.target, account)
    const free = () => {
      if (tx) tx.busy = false
    }
    const amountBase = tx === null ? 1000 : spec.op === 'capture' ? tx.authorized : refundable(tx)
    const amount = amountTree(spec.amount, amountBase)
    const props = spec.props.map((p) => [p.key, this.make.fill(p.tree, account)] as const)
    const tree =
      spec.op === 'void' || spec.bodyless ? undefined : new Obj([...(amount === undefined ? [] : [['amount', amount] as const]), ...props])
    const path: Record<OperationSpec['op'], Segment[]> = {
      capture: ['transactions', segment, 'capture'],
      void: ['transactions', segment, 'void'],
      refund: ['transactions', segment, 'refunds'],
      refundAll: ['transactions', segment, 'refunds', 'all'],
      update: ['transactions', segment],
      cancel: ['transactions', segment, 'cancel'],
    }
    const prefer: [string, string][] = spec.prefer
      ? [['prefer', spec.op === 'void' ? 'resource=transaction-void' : 'resource=transaction-capture']]
      : []
    const request = base(spec.op === 'update' ? 'PUT' : 'POST', path[spec.op], tree, prefer)
    const expect = expectOperation(spec, { auth, badKey: key !== null && key.length !== 36, tx, malformed })
    return this.prepared(
      request,
      tokenOf,
      [],
      expect,
      (res) => {
        if (tx === null) return
        // A call left open (a service that did not answer) holds the transaction: no prediction after it.
        if (res.status === 504) this.txs[tx.account].splice(this.txs[tx.account].indexOf(tx), 1)
        if (res.status >= 300) return
        const b = JSON.parse(res.text) as Json
        const transaction = (b.type === 'transaction' ? b : b.transaction) as Json | undefined
        if (transaction !== undefined) {
          tx.status = String(transaction.status)
          tx.captured = Number(transaction.captured_amount)
          tx.externalId = (transaction.external_identifier as string | null) ?? null
          tx.metadata = transaction.metadata ?? null
          if (spec.op === 'capture') tx.captures.push(typeof b.capture_id === 'string' ? b.capture_id : '?')
        }
        for (const r of b.type === 'refund' ? [b] : ((b.items as Json[] | undefined) ?? []))
          tx.refunds.push({ id: String(r.id), amount: Number(r.amount), status: String(r.status) })
        if (key !== null && key.length === 36 && spec.op !== 'update' && spec.op !== 'cancel')
          this.keyed.push({ account, request, auth, key, text: res.text, status: res.status, create: false })
      },
      tx?.cvv ?? null,
      free,
    )
  }

  private read(
    spec: ReadSpec,
    auth: TxAuth,
    account: Account,
    base: (method: string, path: Segment[], tree: unknown) => FuzzRequest,
    tokenOf: (name: TokenName) => string,
  ): Prepared {
    const { tx, segment, malformed } = this.take(spec.target, account)
    const captureId = tx?.captures.find((c) => c !== '?')
    const refundId = tx?.refunds[0]?.id
    const subId =
      spec.known && (spec.read === 'capture' ? captureId : refundId) !== undefined
        ? spec.read === 'capture'
          ? captureId!
          : refundId!
        : randomUUID()
    const path: Record<ReadSpec['read'], Segment[]> = {
      get: ['transactions', segment],
      events: ['transactions', segment, 'events'],
      captures: ['transactions', segment, 'captures'],
      refunds: ['transactions', segment, 'refunds'],
      refund: ['transactions', segment, 'refunds', subId],
      refundById: ['refunds', subId],
      capture: ['transactions', segment, 'captures', subId],
      actions: ['transactions', segment, 'actions'],
      settlement: ['transactions', segment, 'settlements', randomUUID()],
    }
    const expect = expectRead(spec, { auth, tx, malformed, sub: { id: subId, found: subId === captureId || subId === refundId } })
    const withCaptures =
      expect.body && spec.read === 'captures' && tx
        ? { ...expect, body: { items: tx.captures.map((id) => (id === '?' ? {} : { id })) } }
        : expect
    return this.prepared(
      base('GET', path[spec.read], undefined),
      tokenOf,
      [],
      withCaptures,
      () => undefined,
      tx?.cvv ?? null,
      () => {
        if (tx) tx.busy = false
      },
    )
  }

  private list(
    spec: ListSpec,
    auth: TxAuth,
    account: Account,
    base: (method: string, path: Segment[], tree: unknown) => FuzzRequest,
    tokenOf: (name: TokenName) => string,
  ): Prepared {
    const plan = planList(spec, account, { slot: (s) => this.make.slot(s, account), cursors: this.cursors, pick: this.counter })
    const request = { ...base('GET', ['transactions'], undefined), query: plan.query }
    return this.prepared(request, tokenOf, [], gate(auth, 'read') ?? plan.expect, plan.learn, null)
  }
}

/** The spec with `store: true` sent as `store: value` instead. */
const withStore = (spec: CreateSpec, value: boolean): CreateSpec => ({
  ...spec,
  props: spec.props.map((p) => (p.key === 'store' && p.value === true ? { ...p, tree: value, value } : p)),
})
