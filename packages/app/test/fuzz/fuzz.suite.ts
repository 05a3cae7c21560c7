import { expect } from 'chai'
import * as fc from 'fast-check'
import { performance } from 'node:perf_hooks'
import { inspect } from 'node:util'
import { Harness, IDS, Page, Resource, startHarness } from '../support/harness'
import { OpenApiDoc } from '../support/openapi'
import { mintToken } from '../../src/mint-token'
import { Contract, Problem } from './contract'
import { malformedBytes, malformedRequest, MALFORMED_TARGET } from './malformed'
import { PoolName, Ref, Resolver, Secret } from './model'
import { NoResponse, RawResponse, sendBytes, sendRaw } from './raw-http'
import { FuzzRequest, PASSWORD_RE, POLLUTION_KEYS, Sendable, TokenName, toSendable } from './requests'
import { PaymentMethodModel } from './payment-method-model'
import { isPmRequest } from './payment-method-spec'
import { KnownVault } from './payment-method-vault'
import { TransactionModel, Prepared } from './transaction-model'
import { anyRequest } from './transaction-requests'
import { isTxRequest } from './transaction-spec'

type Json = Record<string, unknown>

/** A value of any type for a report: a string as it is, anything else as node prints it (not `[object Object]`). */
const show = (value: unknown): string => (typeof value === 'string' ? value : inspect(value))

/**
 * Property-based fuzzing of every endpoint (issue 10), run on one storage.
 *
 * fast-check generates requests from realistic shapes of each operation, mutated: bodies with
 * duplicate keys, `__proto__`/`constructor` keys, deep nesting, huge and odd numbers, NUL and
 * lone surrogates (as JSON escapes and as raw bytes), invalid UTF-8, sizes around the body
 * limit; random content types and encodings; query strings with repeated parameters and
 * percent-encoded garbage; path ids that are no UUIDs, upper-case or very long; duplicate and
 * odd headers; tokens of every kind (all scopes, restricted keys, embed, expired, forged, none).
 * They are written byte for byte on their own connection (test/fuzz/raw-http.ts).
 *
 * Invariants, for every response: a status documented for the operation in the served OpenAPI
 * document (an unknown route or another method: a documented error), never a 500, a body valid
 * against the document's schema for that operation and status, only documented headers, and no
 * card number, PIN, password or client secret sent in the run, in the response or in any log
 * line (nor any card's security code sent: too short to look for in any text, it must be no
 * string of the response and no JSON string of the request's log lines, and no response has a
 * `security_code` property). After every request: nothing was added to or changed on a
 * built-in prototype. At the end: the server still answers `/healthz`, and no log line of the
 * run carries a secret.
 *
 * The transaction routes (issue 23; about a quarter of the requests) are also checked against a
 * model (transaction-model.ts): it makes each request from what it means (a payment by card or
 * checkout session, valid or hostile; a capture, void, refund or update of a transaction the run
 * made, or of an unknown, foreign or malformed id; a read; a list with hostile filters), predicts
 * the status and, where the guides say, the body (a 422's locations, a 400's pointers, the
 * transaction's status, amounts and card summary by the mock card service's rules), learns from
 * the answer, and checks that no security code is in any response or log line.
 *
 * The payment method routes (issue 26; about a tenth of the requests, besides the hostile ones
 * of requests.ts) are checked against a model too (payment-method-model.ts), which shares what
 * it knows of the vault with the transaction model: cards stored by `POST /payment-methods` and
 * by payments with `store: true` (the same card for the same buyer is one method), read,
 * changed, deleted and listed, and paid with by id (`{method: "id"}`, also named on a checkout
 * session).
 *
 * Requests run in `FUZZ_CONCURRENCY` (8) fast-check properties at once, each with its own seed
 * derived from the run's seed (`FUZZ_SEED`, random when unset, printed at the start). On a
 * failure fast-check shrinks the request (for at most `FUZZ_SHRINK_S`, 30 s) and the report
 * gives its seed, path and counterexample, and the shrunk request as sent (method, target,
 * headers with tokens shown as `<token:name>`, body). The property then goes on with a new seed
 * until it has run its share of requests, not failing again on what was already reported, so
 * one run reports every distinct failure it meets. To replay one counterexample exactly, set
 * `FUZZ_REPLAY=<seed>:<path>` (both from the report).
 */

export interface FuzzStorage {
  readonly env: Record<string, string>
  readonly drop?: () => Promise<void>
}

export interface FuzzOptions {
  /** Generated requests per run, at least (`FUZZ_REQUESTS` overrides). */
  readonly requests: number
  /** Malformed-HTTP requests per run (`FUZZ_MALFORMED` overrides; default 300). */
  readonly malformed?: number
}

const envInt = (name: string): number | undefined => {
  const v = process.env[name]
  if (v === undefined || v === '') return undefined
  const n = Number(v)
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got '${v}'`)
  return n
}

/** One fast-check seed per property and round, from the run's seed. */
const seedOf = (base: number, worker: number, round: number) =>
  (base + Math.imul(worker + 1, 0x9e3779b1) + Math.imul(round, 0x85ebca6b)) | 0

const base64url = (s: string) => Buffer.from(s).toString('base64url')

/** Every built-in prototype's own properties and their values, to tell whether a request changed one. */
const PROTOTYPES: readonly [string, object][] = [
  ['Object', Object.prototype],
  ['Array', Array.prototype],
  ['String', String.prototype],
  ['Function', Function.prototype],
  ['Number', Number.prototype],
  ['Boolean', Boolean.prototype],
]
const prototypeSnapshot = () =>
  PROTOTYPES.map(([name, p]) => ({
    name,
    props: new Map(Object.getOwnPropertyNames(p).map((k) => [k, Object.getOwnPropertyDescriptor(p, k)] as const)),
    proto: Object.getPrototypeOf(p) as unknown,
  }))
type Snapshot = ReturnType<typeof prototypeSnapshot>
const pollution = (before: Snapshot): Problem[] => {
  const problems: Problem[] = []
  const now = prototypeSnapshot()
  now.forEach((n, i) => {
    const b = before[i]!
    if (n.proto !== b.proto)
      problems.push({
        kind: 'pollution',
        detail: `${n.name}.prototype's prototype`,
        message: `${n.name}.prototype's own prototype was replaced`,
      })
    for (const [k, d] of n.props) {
      const was = b.props.get(k)
      if (was === undefined)
        problems.push({
          kind: 'pollution',
          detail: `${n.name}.prototype.${k}`,
          message: `${n.name}.prototype gained the property ${JSON.stringify(k)}`,
        })
      else if (was.value !== d?.value || was.get !== d?.get || was.set !== d?.set)
        problems.push({ kind: 'pollution', detail: `${n.name}.prototype.${k} changed`, message: `${n.name}.prototype.${k} was changed` })
    }
    for (const k of b.props.keys())
      if (!n.props.has(k))
        problems.push({ kind: 'pollution', detail: `${n.name}.prototype.${k} removed`, message: `${n.name}.prototype.${k} was removed` })
  })
  const plain = {} as Record<string, unknown>
  for (const k of POLLUTION_KEYS)
    if (plain[k] !== undefined) problems.push({ kind: 'pollution', detail: `({}).${k}`, message: `({}).${k} is ${show(plain[k])}` })
  return problems
}

/**
 * A card's security code in a response: no property may be named `security_code`, and none of
 * the codes sent may be a string of it (but a card's label or BIN, which may be the same digits).
 */
const codeLeaks = (text: string, codes: readonly string[]): Problem[] => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return []
  }
  // The published contract (GET /openapi.json) describes `security_code` as a property: no card's.
  if (typeof body === 'object' && body !== null && 'openapi' in body && 'paths' in body) return []
  const found: Problem[] = []
  const walk = (v: unknown, key: string) => {
    if (key === 'security_code')
      found.push({
        kind: 'leak',
        detail: 'security_code in a response',
        message: `a response names a security code: ${text.slice(0, 300)}`,
      })
    else if (typeof v === 'string' && codes.includes(v) && key !== 'label' && key !== 'bin')
      found.push({
        kind: 'leak',
        detail: 'security code in a response',
        message: `the response carries the security code sent at ${key}: ${text.slice(0, 300)}`,
      })
    if (Array.isArray(v)) for (const x of v) walk(x, key)
    else if (typeof v === 'object' && v !== null) for (const [k, x] of Object.entries(v)) walk(x, k)
  }
  walk(body, '')
  return found
}

/** Where the server's answers are kept, so that later requests can name them. */
class Pools implements Resolver {
  readonly subscription: string[] = []
  readonly delivery: (readonly [string, string])[] = []
  readonly buyer: string[] = []
  readonly card: Secret[] = []
  readonly cursor: string[] = []
  readonly buyerExternalId: string[] = ['buyer-1']
  readonly giftCard: string[] = []
  readonly session: string[] = []
  readonly paymentMethod: string[] = []
  /** Services the run created, all inactive: the default services, which payments route to, are never in it. */
  readonly paymentService: string[] = []
  readonly shippingDetails: string[] = []
  readonly apiKeyPair: string[] = []
  private readonly seen = new Set<string>()

  add(pool: Exclude<PoolName, 'card' | 'delivery' | 'deliverySubscription'>, v: string, cap = 400) {
    const k = `${pool}\u0000${v}`
    if (this.seen.has(k) || this[pool].length >= cap) return
    this.seen.add(k)
    this[pool].push(v)
  }
  addDelivery(sub: string, id: string) {
    const k = `delivery\u0000${id}`
    if (this.seen.has(k) || this.delivery.length >= 400) return
    this.seen.add(k)
    this.delivery.push([sub, id])
  }
  addCard(c: Secret) {
    const k = `card\u0000${c.value}`
    if (this.seen.has(k) || this.card.length >= 1000) return
    this.seen.add(k)
    this.card.push(c)
  }

  resolve(r: Ref): string | Secret {
    const pick = <T>(xs: readonly T[], fallback: T): T => (xs.length === 0 ? fallback : xs[r.index % xs.length]!)
    if (r.pool === 'card') return pick(this.card, new Secret('card', '4929173025910471'))
    const v =
      r.pool === 'delivery'
        ? pick(this.delivery, ['', '7d1c2b5e-0f3a-4b6c-8d9e-1a2b3c4d5e6f'] as const)[1]
        : r.pool === 'deliverySubscription'
          ? pick(this.delivery, [IDS.defaultWebhook, ''] as const)[0]
          : pick(this[r.pool], '7d1c2b5e-0f3a-4b6c-8d9e-1a2b3c4d5e6f')
    switch (r.transform) {
      case 'none':
        return v
      case 'upper':
        return v.toUpperCase()
      case 'suffix':
        return `${v}x`
      case 'truncate':
        return v.slice(0, Math.floor(v.length / 2))
      case 'tamper': {
        if (v.length === 0) return 'x'
        const at = r.index % v.length
        return v.slice(0, at) + (v[at] === 'A' ? 'B' : 'A') + v.slice(at + 1)
      }
    }
  }
}

/** Every secret of the run: exact values per request, and digit runs and markers for whole-text scans. */
class Secrets {
  /** Card numbers (13+ digits) and PINs (10+ digits) sent in sensitive properties. */
  readonly responseDigits = new Set<string>()
  /** The same, plus card numbers sent anywhere else (a URL path): never in a log line. */
  readonly logDigits = new Set<string>()
  readonly passwords = new Set<string>()
  readonly kindOf = new Map<string, Secret['kind']>()

  track(s: Secret) {
    for (const v of s.tracked()) {
      this.kindOf.set(v, s.kind)
      if (s.kind === 'password') this.passwords.add(v)
      else if (/^\d+$/.test(v) && v.length >= (s.kind === 'card' ? 13 : 10)) {
        this.logDigits.add(v)
        if (s.where === 'response') this.responseDigits.add(v)
      }
    }
  }

  /** Secrets found in `text` by scanning: digit runs of 10+ against the digit sets, and password markers. */
  scan(text: string, digits: ReadonlySet<string>): string[] {
    const found: string[] = []
    for (const m of text.matchAll(/\d{10,}/g)) {
      const run = m[0]
      for (let len = 10; len <= Math.min(19, run.length); len++)
        for (let i = 0; i + len <= run.length; i++) if (digits.has(run.slice(i, i + len))) found.push(run.slice(i, i + len))
    }
    for (const m of text.matchAll(PASSWORD_RE)) if (this.passwords.has(m[0])) found.push(m[0])
    return found
  }
}

/** What one request came to. */
interface Outcome {
  readonly send: Sendable
  readonly operation: string
  readonly res?: RawResponse
  readonly problems: Problem[]
}

/** fast-check's report, and the error of the shrunk counterexample (fast-check 4 keeps it as `cause`). */
const failureText = (e: unknown): string => {
  const err = e as Error & { cause?: unknown }
  const cause = err.cause instanceof Error ? err.cause.message : err.cause === undefined ? '' : show(err.cause)
  return cause === '' || err.message.includes(cause) ? err.message : `${err.message}\nThe shrunk counterexample, as sent:\n${cause}`
}

/** Long runs of one character (padding, long ids) cut short in reports. */
const compact = (text: string) =>
  text
    .replace(/(.)\1{79,}/gs, (run: string, c: string) => `${c.repeat(16)}…(${run.length} × ${JSON.stringify(c)})…`)
    .replace(/[^\n]{4000,}/g, (line) => `${line.slice(0, 3000)}…(${line.length} characters)`)

const describeResponse = (res: RawResponse | undefined) =>
  res === undefined
    ? '(no response)'
    : `${res.status} ${JSON.stringify(res.headers)}\n  ${JSON.stringify(res.text.length > 800 ? `${res.text.slice(0, 800)}…` : res.text)}`

export const fuzzSuite = (storage: string, open: () => FuzzStorage, o: FuzzOptions) =>
  describe(`property-based fuzzing of every endpoint (${storage})`, function () {
    this.timeout(900000)
    let s: FuzzStorage
    let h: Harness
    let contract: Contract
    let tokens: Record<Exclude<TokenName, 'fresh'>, string>
    let model: TransactionModel
    let methods: PaymentMethodModel
    const tokenOf = (name: TokenName) => (name === 'fresh' ? h.token('admin') : tokens[name])
    const pools = new Pools()
    const secrets = new Secrets()
    let prototypes: Snapshot
    const base = envInt('FUZZ_SEED') ?? (Date.now() ^ Math.floor(Math.random() * 0x7fffffff)) | 0
    const target = envInt('FUZZ_REQUESTS') ?? o.requests
    const concurrency = envInt('FUZZ_CONCURRENCY') ?? 8
    const shrinkMs = (envInt('FUZZ_SHRINK_S') ?? 30) * 1000
    const replay = process.env.FUZZ_REPLAY

    before(async function () {
      this.timeout(60000)
      prototypes = prototypeSnapshot()
      s = open()
      h = await startHarness({ env: s.env })
      contract = new Contract((await (await fetch(`${h.url}/openapi.json`)).json()) as OpenApiDoc)

      const admin = h.token('admin')
      const [head, payload, signature] = admin.split('.') as [string, string, string]
      const kid = (JSON.parse(Buffer.from(head, 'base64url').toString()) as { kid: string }).kid
      const flipped = signature.slice(0, 20) + (signature[20] === 'A' ? 'B' : 'A') + signature.slice(21)
      tokens = {
        admin,
        acmeAdmin: h.token('acmeAdmin'),
        readOnly: h.token('readOnly'),
        giftCardOperator: h.token('giftCardOperator'),
        embed: h.token('admin', { scopes: ['embed'] }),
        embed2: h.token('acmeAdmin', { scopes: ['embed'] }),
        embedBuyer: h.token('admin', { scopes: ['embed'], embedClaim: { buyer_external_identifier: 'buyer-1' } }),
        narrow: h.token('admin', { scopes: ['roles.read'] }),
        expired: mintToken(h.pems.admin, {
          scopes: ['*.read', '*.write'],
          now: new Date(h.clock.now().getTime() - 7200_000),
          expiresInS: 60,
        }),
        badSignature: `${head}.${payload}.${flipped}`,
        truncated: admin.slice(0, -12),
        algNone: `${base64url(JSON.stringify({ alg: 'none', typ: 'JWT', kid }))}.${payload}.`,
        huge: `${head}.${'A'.repeat(9000)}.${signature}`,
      }

      // The payment method model and the transaction model share what they know of the vault.
      const vault = new KnownVault()
      model = new TransactionModel(h, tokenOf, vault)
      await model.setup()
      methods = new PaymentMethodModel(h, tokenOf, vault)
      await methods.setup()

      // Something to point at: subscriptions (mostly inactive: deliveries to `.example` never
      // resolve, harmlessly), a buyer whose event queues deliveries, and a cursor per list.
      for (const sub of [IDS.defaultWebhook, IDS.acmeWebhook, IDS.instanceWebhook]) pools.add('subscription', sub)
      pools.add('buyer', IDS.defaultBuyer)
      pools.add('buyer', IDS.acmeBuyer)
      for (const [account, active] of [
        ['default', true],
        ['default', false],
        ['acme', false],
      ] as const) {
        const r = await h.request<Resource>('POST', '/webhook-subscriptions', {
          merchantAccount: account,
          body: { url: `https://setup-${account}.hooks.example/h`, active },
        })
        expect(r.status, r.text).to.equal(201)
        pools.add('subscription', r.body.id)
      }
      const b = await h.request<Resource>('POST', '/buyers', { body: { display_name: 'Fuzz Setup', external_identifier: 'fuzz-setup' } })
      expect(b.status, b.text).to.equal(201)
      pools.add('buyer', b.body.id)
      pools.add('buyerExternalId', 'fuzz-setup')
      for (const account of ['default', 'default', 'acme']) {
        const r = await h.request<Resource>('POST', '/checkout/sessions', {
          merchantAccount: account,
          body: { amount: 100, currency: 'USD' },
        })
        expect(r.status, r.text).to.equal(201)
        pools.add('session', r.body.id)
      }
      for (const path of [
        '/roles?limit=1',
        '/buyers?limit=1',
        '/webhook-subscriptions?limit=1',
        `/webhook-subscriptions/${IDS.defaultWebhook}/deliveries?limit=1`,
      ]) {
        const r = await h.request<Page<Resource & { readonly subscription_id: string }>>('GET', path)
        expect(r.status, r.text).to.equal(200)
        if (typeof r.body.next_cursor === 'string') pools.add('cursor', r.body.next_cursor)
        for (const d of path.includes('deliveries') ? r.body.items : []) pools.addDelivery(d.subscription_id, d.id)
      }
    })

    after(async () => {
      // before() may have failed before setting each of these.
      const set: Partial<{ h: Harness; s: FuzzStorage }> = { h, s }
      await set.h?.close()
      await set.s?.drop?.()
    })

    /** Learns ids and cursors from a response, for later requests to name. */
    const harvest = (q: FuzzRequest, sent: Sendable, res: RawResponse) => {
      // The payment method model's cards stay its own: another family storing one would change what the model's vault holds.
      if (!isPmRequest(q))
        for (const x of sent.secrets) if (x.kind === 'card' && x.where === 'response' && /^\d{13,19}$/.test(x.value)) pools.addCard(x)
      let parsed: unknown
      try {
        parsed = res.text === '' ? undefined : JSON.parse(res.text)
      } catch {
        return
      }
      if (parsed === undefined || typeof parsed !== 'object' || parsed === null) return
      const body = parsed as Json
      if (res.status === 201 && q.family === 'create_webhook_subscription' && typeof body.id === 'string')
        pools.add('subscription', body.id)
      if (res.status === 201 && (q.family === 'create_gift_card' || q.family === 'activate_gift_card') && typeof body.id === 'string')
        pools.add('giftCard', body.id)
      if (res.status === 201 && q.family === 'create_checkout_session' && typeof body.id === 'string') pools.add('session', body.id)
      if (res.status === 201 && q.family === 'create_payment_method' && typeof body.id === 'string') pools.add('paymentMethod', body.id)
      if (res.status === 201 && q.family === 'create_payment_service' && typeof body.id === 'string') pools.add('paymentService', body.id)
      if (res.status === 201 && q.family === 'add_buyer_shipping_details' && typeof body.id === 'string')
        pools.add('shippingDetails', body.id)
      if (res.status === 201 && q.family === 'create_api_key_pair' && typeof body.id === 'string') pools.add('apiKeyPair', body.id)
      if (res.status === 201 && q.family === 'add_buyer' && typeof body.id === 'string') {
        pools.add('buyer', body.id)
        if (typeof body.external_identifier === 'string' && body.external_identifier.length < 100)
          pools.add('buyerExternalId', body.external_identifier)
      }
      if (res.status === 200 && Array.isArray(body.items)) {
        for (const c of [body.next_cursor, body.previous_cursor]) if (typeof c === 'string') pools.add('cursor', c)
        if (q.family === 'list_webhook_deliveries')
          for (const d of body.items as Json[])
            if (typeof d.subscription_id === 'string' && typeof d.id === 'string') pools.addDelivery(d.subscription_id, d.id)
      }
    }

    const health = async (): Promise<Problem[]> => {
      try {
        const r = await sendRaw(h.url, { method: 'GET', target: '/healthz', headers: [] }, 10000)
        return r.status === 200 ? [] : [{ kind: 'health', detail: `healthz ${r.status}`, message: `/healthz answered ${r.status}` }]
      } catch (e) {
        return [{ kind: 'health', detail: 'healthz no response', message: `/healthz did not answer: ${(e as Error).message}` }]
      }
    }

    /** The first line of each stack logged for this request id, digits masked: tells 500s apart. */
    const loggedErrors = (from: number, requestId: string | undefined): string => {
      if (requestId === undefined) return ''
      const found: string[] = []
      for (let i = from; i < h.logs.length; i++) {
        const line = h.logs[i]!
        if (!line.includes(requestId) || !line.includes('"err"')) continue
        try {
          const err = (JSON.parse(line) as Json).err as Json | undefined
          if (err) found.push(`${show(err.type ?? '')}: ${show(err.message ?? '')}`.replace(/[0-9a-f]{8,}|\d+/g, '#').slice(0, 100))
        } catch {
          // not JSON: ignore
        }
      }
      return found.join(' | ')
    }

    /** Sends one generated request and checks every invariant on what came back. */
    const exercise = async (q: FuzzRequest): Promise<Outcome> => {
      // A transaction or payment method request is made by its model, which predicts its answer (transaction-model.ts, payment-method-model.ts).
      const prepared: Prepared | undefined = isTxRequest(q) ? await model.prepare(q) : isPmRequest(q) ? await methods.prepare(q) : undefined
      try {
        return await exerciseAs(prepared?.request ?? q, prepared)
      } catch (e) {
        prepared?.done(undefined)
        throw e
      }
    }
    const exerciseAs = async (q: FuzzRequest, prepared: Prepared | undefined): Promise<Outcome> => {
      const send = toSendable(q, pools, prepared?.tokenOf ?? tokenOf)
      send.secrets.push(...(prepared?.secrets ?? []))
      for (const x of send.secrets) secrets.track(x)
      let operation = contract.operationOf(send.raw.method, send.raw.target)
      const mark = h.logs.length
      const problems: Problem[] = []
      let res: RawResponse | undefined
      const t0 = performance.now()
      try {
        res = await sendRaw(h.url, send.raw)
      } catch (e) {
        if (!(e instanceof NoResponse)) throw e
        problems.push({ kind: 'no-response', detail: 'no response', message: e.message })
        problems.push(...(await health()))
        prepared?.done(undefined)
      }
      if (res !== undefined) {
        // Koa sets X-Request-Id on everything it answers: without it, node's HTTP layer answered.
        if (res.headers['x-request-id'] === undefined) operation = '(node HTTP layer)'
        for (const p of contract.check(send.raw.method, send.raw.target, res)) {
          if (p.kind !== 'server-error') problems.push(p)
          else {
            const cause = loggedErrors(mark, res.headers['x-request-id'])
            problems.push({ ...p, detail: `${p.detail} ${cause}`, message: `${p.message}\n  logged: ${cause || '(nothing)'}` })
          }
        }
        const everything = `${JSON.stringify(res.headers)}\n${res.text}`
        const own = send.secrets.filter((x) => x.where === 'response').flatMap((x) => x.tracked().map((v) => [x.kind, v] as const))
        const leaked = new Set([
          ...own.filter(([, v]) => v.length >= 8 && everything.includes(v)).map(([k, v]) => `${k} ${v}`),
          ...secrets.scan(everything, secrets.responseDigits).map((v) => `${secrets.kindOf.get(v) ?? 'secret'} ${v}`),
        ])
        for (const l of leaked)
          problems.push({
            kind: 'leak',
            detail: `${l.split(' ')[0]} in a ${res.status} response`,
            message: `the response carries the ${l} sent in this run: ${JSON.stringify(res.text.slice(0, 400))}`,
          })
        problems.push(
          ...codeLeaks(
            res.text,
            send.secrets.filter((x) => x.kind === 'cvv').map((x) => x.value),
          ),
        )
        if (prepared !== undefined) {
          problems.push(...prepared.check(res, h.logs.slice(mark).join('')))
          prepared.done(res)
        }
        harvest(q, send, res)
        stats.status.set(res.status, (stats.status.get(res.status) ?? 0) + 1)
        if (res.status === 500 && res.headers['x-request-id'] !== undefined) served500.add(res.headers['x-request-id'])
      }
      const lines = h.logs.slice(mark).join('')
      for (const x of send.secrets)
        for (const v of x.tracked())
          if ((v.length >= 8 && lines.includes(v)) || (x.kind === 'cvv' && lines.includes(`"${v}"`)))
            problems.push({
              kind: 'leak',
              detail: `${x.kind} in a log line`,
              message: `a log line carries the ${x.kind} ${JSON.stringify(v)}`,
            })
      problems.push(...pollution(prototypes))
      stats.requests++
      stats.family.set(q.family, (stats.family.get(q.family) ?? 0) + 1)
      stats.ms.set(q.family, (stats.ms.get(q.family) ?? 0) + performance.now() - t0)
      return { send, operation, ...(res === undefined ? {} : { res }), problems }
    }

    /** Request ids of the 500s clients received (their log lines are reported with them). */
    const served500 = new Set<string>()
    const stats = {
      requests: 0,
      generated: 0,
      shrinking: 0,
      status: new Map<number, number>(),
      family: new Map<string, number>(),
      ms: new Map<string, number>(),
    }
    /** Distinct failures: signature, how often, the first example. */
    const catalogue = new Map<string, { count: number; example: string }>()
    /** Signatures reported by a finished property, and those a running property is shrinking. */
    const reported = new Set<string>()
    const claimed = new Map<string, number>()
    const signature = (operation: string, p: Problem) => `${operation} | ${p.kind} | ${p.detail}`
    const format = (out: Outcome, problems: readonly Problem[]) =>
      [
        ...problems.map((p) => `[${signature(out.operation, p)}]\n  ${p.message}`),
        `request:\n${out.send.display}`,
        `response: ${describeResponse(out.res)}`,
      ].join('\n')

    /** The property: one generated request, every invariant; it fails only on what no one has reported yet. */
    const property = (worker: number, state: { failedAt?: number; generated: number }) =>
      fc.asyncProperty(anyRequest, async (q) => {
        const shrinking = state.failedAt !== undefined
        // Shrinking has had its time: the remaining candidates pass unsent, which ends it.
        if (shrinking && Date.now() - state.failedAt! > shrinkMs) return
        if (shrinking) stats.shrinking++
        else {
          stats.generated++
          state.generated++
        }
        const out = await exercise(q)
        for (const p of out.problems) {
          const sig = signature(out.operation, p)
          const c = catalogue.get(sig)
          if (c) c.count++
          else catalogue.set(sig, { count: 1, example: format(out, [p]) })
        }
        const fresh = out.problems.filter((p) => {
          const sig = signature(out.operation, p)
          if (reported.has(sig)) return false
          const owner = claimed.get(sig)
          if (owner !== undefined && owner !== worker) return false
          claimed.set(sig, worker)
          return true
        })
        if (fresh.length > 0) {
          state.failedAt ??= Date.now()
          throw new Error(format(out, fresh))
        }
      })

    it(`keeps every invariant over at least ${target} generated requests`, async () => {
      console.log(
        `fuzz (${storage}): FUZZ_SEED=${base} (set it to replay this run), at least ${target} requests, ${concurrency} properties in parallel`,
      )
      const failures: string[] = []
      const started = performance.now()
      const release = (worker: number) => {
        for (const [sig, owner] of claimed)
          if (owner === worker) {
            claimed.delete(sig)
            reported.add(sig)
          }
      }
      if (replay !== undefined) {
        const [seed, path] = replay.split(':')
        console.log(`fuzz (${storage}): replaying seed ${seed} path ${path}`)
        try {
          await fc.assert(property(0, { generated: 0 }), { seed: Number(seed), path: path!, numRuns: 1 })
        } catch (e) {
          failures.push(`replay of seed ${seed} path ${path}:\n${failureText(e)}`)
        }
      } else {
        const share = Math.ceil(target / concurrency)
        await Promise.all(
          Array.from({ length: concurrency }, async (_, worker) => {
            let generated = 0
            for (let round = 0; generated < share && round < 40; round++) {
              const seed = seedOf(base, worker, round)
              const state: { failedAt?: number; generated: number } = { generated: 0 }
              try {
                await fc.assert(property(worker, state), { seed, numRuns: share - generated })
              } catch (e) {
                failures.push(
                  `property ${worker}, round ${round} (fast-check seed ${seed}, FUZZ_REPLAY=${seed}:<path>; this run: FUZZ_SEED=${base}):\n${failureText(e)}`,
                )
              } finally {
                generated += state.generated
                release(worker)
              }
            }
          }),
        )
      }
      const seconds = (performance.now() - started) / 1000

      // After the run: the process still serves, no log line carries a secret, no prototype changed.
      const after: string[] = []
      for (const p of await health()) after.push(p.message)
      for (const p of pollution(prototypes)) after.push(p.message)
      for (const line of h.logs) {
        if (!line.includes('"unhandled exception"')) continue
        const id = /"requestId":"([^"]*)"/.exec(line)?.[1]
        if (id === undefined || !served500.has(id))
          after.push(`the server logged an unhandled exception no response showed as a 500: ${line.slice(0, 400)}`)
      }
      for (const line of h.logs) if (line.includes('security_code')) after.push(`a log line names a security code: ${line.slice(0, 300)}`)
      for (const line of h.logs) {
        const found = secrets.scan(line.replace(/"time":\d+/, ''), secrets.logDigits)
        if (found.length > 0) after.push(`a log line carries ${found.join(', ')}: ${line.slice(0, 300)}`)
      }

      const byCount = <K>(m: Map<K, number>) => [...m.entries()].sort((a, b) => b[1] - a[1])
      console.log(
        [
          `fuzz (${storage}): ${stats.requests} requests in ${seconds.toFixed(1)} s (${stats.generated} generated, ${stats.shrinking} while shrinking), ${(stats.requests / seconds).toFixed(0)}/s`,
          `  statuses: ${[...stats.status.entries()]
            .sort((a, b) => a[0] - b[0])
            .map(([k, n]) => `${k}: ${n}`)
            .join(', ')}`,
          `  families (requests, mean ms): ${byCount(stats.family)
            .map(([k, n]) => `${k}: ${n} (${((stats.ms.get(k) ?? 0) / n).toFixed(1)})`)
            .join(', ')}`,
          `  pools: ${pools.subscription.length} subscriptions, ${pools.buyer.length} buyers, ${pools.delivery.length} deliveries, ${pools.card.length} cards, ${pools.cursor.length} cursors, ${pools.session.length} checkout sessions, ${pools.paymentMethod.length} payment methods, ${pools.paymentService.length} payment services`,
          `  transactions (model): ${model.summary()}`,
          `  payment methods (model): ${methods.summary()}`,
          `  distinct failures: ${catalogue.size}`,
          ...[...catalogue.entries()]
            .sort((a, b) => b[1].count - a[1].count)
            .map(([sig, c]) => `    ${String(c.count).padStart(5)}  ${sig}`),
        ].join('\n'),
      )
      const report = [
        ...failures,
        ...after.map((a) => `after the run: ${a}`),
        ...(failures.length === 0
          ? []
          : [
              `every distinct failure met (count, signature, first example):\n${[...catalogue.entries()].map(([sig, c]) => `--- ${c.count} × ${sig}\n${c.example}`).join('\n')}`,
            ]),
      ]
      if (report.length > 0) throw new Error(compact(`fuzzing ${storage} (FUZZ_SEED=${base}) found:\n\n${report.join('\n\n')}\n`))
      if (replay === undefined) expect(stats.generated, 'generated requests').to.be.at.least(target)
    })

    it(`answers malformed HTTP with a documented status and error body, and survives it`, async () => {
      const found = new Map<string, { count: number; example: string }>()
      const runs = envInt('FUZZ_MALFORMED') ?? o.malformed ?? 300
      const { hostname, port } = new URL(h.url)
      const failures: string[] = []
      const known = new Set<string>()
      /** What each request id was sent with, and the unhandled-exception lines already reported with their request. */
      const sentAs = new Map<string, string>()
      const attributed = new Set<string>()
      let done = 0
      const property = fc.asyncProperty(malformedRequest, async (m) => {
        done++
        // A fresh token each time: its verification is not cached, so the request waits on it
        // while the client's side of the connection goes on (or ends).
        const token = h.token('admin')
        const requestId = `fuzz-malformed-${done}`
        const bytes = malformedBytes(m, `${hostname}:${port}`, token, requestId)
        const shown = `request (${m.what}): ${JSON.stringify(bytes.toString('latin1').split(token).join('<token:admin>').slice(0, 600))}`
        sentAs.set(requestId, shown)
        let problems: Problem[]
        let res: RawResponse | undefined
        try {
          res = await sendBytes(h.url, bytes, m.method, 20000, m.halfClose ?? false)
          problems = contract.checkError(res)
        } catch (e) {
          if (!(e instanceof NoResponse)) throw e
          problems = [{ kind: 'no-response', detail: 'no response', message: e.message }, ...(await health())]
        }
        // A 500 the client never saw (it closed first, or node answered instead) is still a 500.
        // When the client closed its side, the application may still be at work: wait for its
        // access-log line (a little while at most).
        const ours = (line: string) => line.includes(`"requestId":"${requestId}"`)
        for (let waited = 0; m.halfClose && waited < 300 && !h.logs.some((l) => ours(l) && l.includes('"msg":"request"')); waited += 10)
          await new Promise((resolve) => setTimeout(resolve, 10))
        for (const line of h.logs)
          if (ours(line) && line.includes('"unhandled exception"')) {
            problems.push({
              kind: 'server-error',
              detail: 'unhandled exception logged',
              message: `the server logged an unhandled exception: ${line.slice(0, 400)}`,
            })
            attributed.add(line)
          }
        problems.push(...pollution(prototypes))
        const text = [
          ...problems.map((p) => `[malformed HTTP | ${p.kind} | ${p.detail}]\n  ${p.message}`),
          shown,
          `response: ${describeResponse(res)}`,
        ].join('\n')
        const fresh: Problem[] = []
        for (const p of problems) {
          const sig = `${p.kind} | ${p.detail}`
          const c = found.get(sig)
          if (c) c.count++
          else found.set(sig, { count: 1, example: text })
          if (!known.has(sig)) fresh.push(p)
        }
        if (fresh.length > 0) throw new Error(text)
      })
      // As for the main property: a failure is reported once, then the run goes on with a new seed.
      for (let round = 0; done < runs && round < 30; round++) {
        const seed = seedOf(base, 1000, round)
        try {
          await fc.assert(property, { seed, numRuns: runs - done })
        } catch (e) {
          failures.push(`round ${round} (fast-check seed ${seed}; this run: FUZZ_SEED=${base}):\n${failureText(e)}`)
        } finally {
          for (const sig of found.keys()) known.add(sig)
        }
      }
      const after = [...(await health()), ...pollution(prototypes)]
      // Unhandled exceptions logged after their request was checked: reported with the request.
      for (const line of h.logs) {
        if (!line.includes('"unhandled exception"') || attributed.has(line)) continue
        const id = /"requestId":"(fuzz-malformed-\d+)"/.exec(line)?.[1]
        if (id !== undefined)
          failures.push(`an unhandled exception was logged (after its check) for ${sentAs.get(id) ?? id}:\n  ${line.slice(0, 400)}`)
      }
      if (found.size > 0)
        console.log(
          `fuzz (${storage}), malformed HTTP, ${done} requests: ${[...found.entries()].map(([k, c]) => `${c.count} × ${k}`).join('; ')}`,
        )
      expect(
        after.map((p) => p.message),
        'after malformed requests',
      ).to.deep.equal([])
      if (failures.length > 0)
        throw new Error(compact(`malformed HTTP (FUZZ_SEED=${base}; target ${MALFORMED_TARGET}) found:\n\n${failures.join('\n\n')}\n`))
    })
  })
