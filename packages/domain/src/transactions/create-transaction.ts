import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { pipe } from 'fp-ts/function'
import { AuditActor } from '../audit/audit-entry'
import { auditedWhen, changeOf } from '../audit/record-audited'
import { Buyer, reconciliationId } from '../buyers/buyer'
import { namesABuyer, resolveNamedBuyer } from '../buyers/named-buyer'
import { mayWriteFor } from '../reach/card-reach'
import { canonicalJson } from '../gift-cards/gift-card'
import {
  Answered,
  Attempted,
  makeRunIdempotently,
  recordedOutcomeCodec,
  Reservation,
  IdempotencyRefusal,
} from '../idempotency/run-idempotently'
import { keepCard } from '../payment-methods/keep-card'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { PaymentServiceRecord } from '../payments/payment-service'
import { Conflict, Forbidden, forbidden, InvalidRequest, Unavailable, unavailable } from '../shared/errors'
import { cardFromRequest, CardToCharge } from './card-to-charge'
import { attemptReference, route } from './authorize-transaction'
import { makeSettleTransaction } from './settle-transaction'
import { Transaction, TransactionBuyer } from './transaction.codecs'
import { toTransaction, transactionResource, TransactionRecord } from './transaction'
import { TransactionCreate, UNSUPPORTED_TRANSACTION_FIELDS } from './transaction-requests.codecs'
import { noPaymentService, notOffered, serviceView, stepContext, TransactionDeps } from './transaction-deps'
import { refusedInput } from '../shared/errors'
import { legacySessionTransactionId, sessionTransactionId } from './session-transaction-id'
import { heldBy, sessionTender, SessionTender, sessionTenderFault, takeSessionCard, usedSession } from './session-tender'
import { attemptRequested, next } from './transaction-steps'
import { giftCardsFault, redemptionsFor } from './gift-card-tender'
import { embedReach } from '../reach/card-reach'
import { isStored, storedCardToCharge } from './stored-card'
import { settleStoredMethod } from './stored-method-outcome'
import { failedValidation, NotFound } from '../shared/errors'
import { RedemptionRecord } from './gift-card-redemption'
import { unsupportedFields } from '../shared/codecs'
import { EmbedClaim, withinPins } from '../reach/embed-claim'

export type CreateTransactionError = InvalidRequest | Forbidden | NotFound | Conflict | IdempotencyRefusal | Unavailable

export interface CreateTransactionCommand {
  readonly merchantAccountId: string
  readonly actor: AuditActor
  readonly input: TransactionCreate
  readonly idempotencyKey: string | null
  /** For an `embed` token: the buyer and the values its claim pins; a server's command has neither. */
  readonly embed: EmbedClaim | null
}

/** The created transaction (whatever its status: a decline is a transaction too), and whether it is a replay. */
export type Created = Answered<Transaction>

export const CREATE_TRANSACTION = 'transaction-create'

const PAYMENT_METHOD_EXTRAS = {
  buyer_id: null,
  buyer_external_identifier: null,
  external_identifier: null,
  card_type: null,
  redirect_url: null,
}

/** Every property set to something Orka does not offer: a 400 naming each, before anything else happens. */
const unsupported = (input: TransactionCreate): InvalidRequest | null => {
  const pm = input.payment_method
  const paths = [
    ...unsupportedFields(input, UNSUPPORTED_TRANSACTION_FIELDS),
    ...(pm == null ? [] : unsupportedFields(pm, PAYMENT_METHOD_EXTRAS, ['payment_method'])),
    ...(input.buyer?.shipping_details != null ? [['buyer', 'shipping_details']] : []),
  ]
  return paths.length === 0 ? null : notOffered(paths)
}

/** `store: true` keeps the card that pays for the transaction's buyer: it needs a card (or a session's) and a buyer of the account. */
const storeFault = (input: TransactionCreate): InvalidRequest | null => {
  if (input.store !== true) return null
  if (input.payment_method == null)
    return refusedInput(['store'], '`store: true` keeps the card that pays: send a `payment_method`', 'nothing_to_store')
  if (!namesABuyer(input))
    return refusedInput(['store'], '`store: true` needs a buyer: `buyer_id` or `buyer_external_identifier`', 'buyer_required')
  return null
}

/** An embed token may only create what its claim pins: the amount, currency, buyer and checkout session it names. */
const pinned = (cmd: CreateTransactionCommand): TE.TaskEither<Forbidden, void> => {
  const { input } = cmd
  const session = input.payment_method?.method === 'checkout-session' ? input.payment_method.id : undefined
  return cmd.embed === null || withinPins(cmd.embed, { ...input, checkoutSessionId: session })
    ? TE.right(undefined)
    : TE.left(forbidden('embed_pin'))
}

const outcomeCodec = recordedOutcomeCodec<CreateTransactionError, Transaction>(Transaction, () =>
  unavailable(new Error('a transaction request recorded a failure')),
)

/**
 * Takes a payment by card, gift cards or both (`POST /transactions`). Checks come first and
 * store nothing: unsupported properties, the gift cards' rules, `store: true`'s buyer, the embed
 * claim's pins, the buyer, the stored gift cards the caller may reach, the card (Luhn, expiry; a
 * stored method of the caller's reach and of the buyer; a session's card and gift cards are
 * taken from it), and which card services may take it. With `store: true` the card is then kept
 * for the buyer (`keepCard`, `processing` until the payment ends: `stored-method-outcome.ts`). Then the flow
 * records, then calls, then settles: version 0 holds the card's first attempt and every gift
 * card before any service is asked (`route` goes on with the card, `splitStep` with the gift
 * cards). A request retried with its idempotency key after its process stopped finds the
 * transaction it recorded, settles it (`makeSettleTransaction`) and answers it.
 */
export const makeCreateTransaction = (deps: TransactionDeps) => {
  const runIdempotently = makeRunIdempotently({ store: deps.idempotency, clock: deps.clock, ids: deps.ids, config: deps.config })
  const settle = makeSettleTransaction(deps)
  const payGiftCards = makeSettleTransaction(deps, 'live')

  const attempt =
    (cmd: CreateTransactionCommand) =>
    async (reservation: Reservation | null): Promise<Attempted<CreateTransactionError, Transaction>> => {
      const checked = (outcome: E.Either<CreateTransactionError, Transaction>) => ({ outcome, recorded: false })
      const recorded = (r: TransactionRecord) => ({ outcome: E.right(toTransaction(r)), recorded: true })
      const { input } = cmd
      const pm = input.payment_method
      if (pm == null && (input.gift_cards ?? []).length === 0)
        return checked(E.left(refusedInput(['payment_method'], 'A card or a checkout session is required')))
      const ownIds = reservation === null ? [] : [reservation.reservedId, ...reservation.earlierIds]
      const id = pm?.method === 'checkout-session' ? sessionTransactionId(deps.mac, pm.id) : (reservation?.reservedId ?? deps.ids.uuid())

      // Recorded already by this request before its process stopped: settle and answer it. Only
      // an earlier attempt of its idempotency key can have (a reserved id is drawn fresh for each
      // attempt), so a first attempt reads nothing here; another payment from the same session
      // is told by the session's card (`cardOf`) and by the id version 0 takes.
      if (reservation !== null && reservation.earlierIds.length > 0) {
        const ids = pm?.method === 'checkout-session' ? [id, legacySessionTransactionId(deps.mac, pm.id)] : reservation.earlierIds
        const earlier = await firstFound(deps, cmd.merchantAccountId, ids)
        if (E.isLeft(earlier)) return checked(earlier)
        if (O.isSome(earlier.right)) {
          const r = earlier.right.value
          if (!r.request_ids.some((x) => ownIds.includes(x))) return checked(E.left(usedSession))
          const done = await settle(r)
          if (E.isLeft(done)) return checked(done)
          await settleStoredMethod(deps, done.right)
          return recorded(done.right)
        }
      }

      const buyer = await buyerOf(deps, cmd)
      if (E.isLeft(buyer)) return checked(buyer)
      const services = pm == null ? E.right([]) : await servicesFor(deps, cmd)
      if (E.isLeft(services)) return checked(services)
      const first = services.right[0]
      if ((pm?.method === 'card' || pm?.method === 'id') && first === undefined) return checked(E.left(noPaymentService))
      // A refusal told from the session before its card data is taken leaves that data there
      // (taken, it is gone); only these rare requests read it first. Taking it checks again.
      if (pm?.method === 'checkout-session' && (first === undefined || (input.gift_cards ?? []).length > 0)) {
        const held = await heldBy(deps, cmd.merchantAccountId, pm.id, deps.clock.now())
        const fault = E.isLeft(held) ? held.left : sessionTenderFault(input, held.right, first !== undefined)
        if (fault !== null) return checked(E.left(fault))
      }
      // Before the session's card is taken: a gift card the caller cannot reach leaves the session as it was.
      const requested = await redemptionsFor(deps, cmd, id)
      if (E.isLeft(requested)) return checked(requested)
      const tender = await tenderOf(deps, cmd, id, deps.clock.now(), first !== undefined)
      if (E.isLeft(tender)) return checked(tender)
      const { giftCards } = tender.right
      const payer = payerOf(buyer.right, tender.right.card)
      if (E.isLeft(payer)) return checked(payer)
      const redemptions = giftCards.length === 0 ? requested : await redemptionsFor(deps, cmd, id, giftCards)
      if (E.isLeft(redemptions)) return checked(redemptions)
      const card = await kept(deps, cmd, buyer.right.buyer, tender.right.card)
      if (E.isLeft(card)) return checked(card)
      const charged = card.right === null || first === undefined ? null : { ...card.right, first }

      const start = created(deps, cmd, {
        id,
        ownIds: ownIds.length === 0 ? [id] : ownIds,
        buyer: payer.right,
        card: charged,
        sessionId: pm?.method === 'checkout-session' ? pm.id : null,
        redemptions: redemptions.right,
      })
      const put = await auditedWhen(
        deps.audited,
        changeOf(cmd, transactionResource(start), 'created', 'transaction-present'),
        deps.transactions.put(start),
        (stored) => stored,
      )()
      if (E.isLeft(put)) return checked(put)
      if (!put.right) return checked(E.left(usedSession))
      const routed =
        charged === null
          ? E.right(start)
          : await route(deps)(start, {
              services: services.right,
              card: charged.card,
              billingPostalCode: input.buyer?.billing_details?.address?.postal_code ?? null,
            })
      if (E.isLeft(routed) || redemptions.right.length === 0)
        return E.isLeft(routed) ? { outcome: routed, recorded: false } : recorded(routed.right)
      const done = await payGiftCards(routed.right)
      return E.isLeft(done) ? { outcome: done, recorded: false } : recorded(done.right)
    }

  /** Within the embed claim's pins; with `store: true`, only for a buyer the embed token may keep cards for (as `POST /payment-methods`). */
  const mayCreate = (cmd: CreateTransactionCommand): TE.TaskEither<Forbidden | Unavailable, void> =>
    pipe(
      pinned(cmd),
      TE.flatMap(() =>
        cmd.input.store === true && cmd.embed !== null
          ? mayWriteFor(deps.buyers, cmd.merchantAccountId, embedReach(cmd.embed), cmd.input)
          : TE.right(undefined),
      ),
    )

  return (cmd: CreateTransactionCommand): TE.TaskEither<CreateTransactionError, Created> => {
    const refused = unsupported(cmd.input) ?? giftCardsFault(cmd.input) ?? storeFault(cmd.input)
    if (refused !== null) return TE.left(refused)
    if (cmd.idempotencyKey === null)
      return async () => {
        const allowed = await mayCreate(cmd)()
        if (E.isLeft(allowed)) return allowed
        return E.map((value: Transaction): Created => ({ value, replayed: false }))((await attempt(cmd)(null)).outcome)
      }
    const request = {
      merchantAccountId: cmd.merchantAccountId,
      operation: CREATE_TRANSACTION,
      key: cmd.idempotencyKey,
      fingerprint: deps.mac.mac('idempotency-fingerprint', canonicalJson(cmd.input)),
    }
    return runIdempotently(request, mayCreate(cmd), attempt(cmd), outcomeCodec)
  }
}

/** The first of these transactions that exists (the ids an idempotent request and its earlier attempts reserved). */
const firstFound = async (
  deps: TransactionDeps,
  merchantAccountId: string,
  ids: readonly string[],
): Promise<E.Either<Unavailable, O.Option<TransactionRecord>>> => {
  for (const id of ids) {
    const found = await deps.transactions.find(merchantAccountId, id)()
    if (E.isLeft(found) || O.isSome(found.right)) return found
  }
  return E.right(O.none)
}

/** The buyer: one of the account's, named by id or external identifier (unknown: a 400 naming the field), or a guest described inline. */
const buyerOf = async (deps: TransactionDeps, cmd: CreateTransactionCommand): Promise<E.Either<InvalidRequest | Unavailable, Payer>> => {
  const { buyer } = cmd.input
  const named = await resolveNamedBuyer(deps.buyers, cmd.merchantAccountId, cmd.input)()
  if (E.isLeft(named)) return E.left(named.left._tag === 'NotFound' ? failedValidation(named.left.problem) : named.left)
  const b = named.right
  return E.right({ buyer: b, view: b === null && buyer == null ? null : buyerView(b ?? buyer ?? {}, b?.id ?? null) })
}

/** The transaction's buyer: the account's it names (`buyer`), or a guest described inline (`buyer` null). */
interface Payer {
  readonly buyer: Buyer | null
  readonly view: TransactionBuyer | null
}

const buyerView = (
  b: Partial<Pick<Buyer, 'display_name' | 'external_identifier' | 'billing_details' | 'account_number'>>,
  id: string | null,
): TransactionBuyer => ({
  type: 'buyer',
  id,
  reconciliation_id: id === null ? null : reconciliationId(id),
  display_name: b.display_name ?? null,
  external_identifier: b.external_identifier ?? null,
  billing_details: b.billing_details ?? null,
  account_number: b.account_number ?? null,
})

/**
 * Who pays with a stored card of a buyer: that buyer only. A request naming none is made for it;
 * one naming another buyer, or describing a guest, is a `400`.
 */
const payerOf = (payer: Payer, card: CardToCharge | null): E.Either<InvalidRequest, TransactionBuyer | null> => {
  const owner = card !== null && isStored(card) ? (card.method.buyer ?? null) : null
  if (owner === null) return E.right(payer.view)
  if (payer.view === null) return E.right(buyerView(owner, owner.id))
  return payer.buyer?.id === owner.id
    ? E.right(payer.view)
    : E.left(
        refusedInput(
          ['payment_method', 'id'],
          'The stored payment method is of another buyer than the transaction',
          'payment_method_buyer_mismatch',
        ),
      )
}

/** With `store: true`, the card that pays kept for the buyer (`processing` until the payment ends) and named by the transaction. */
const kept = async (
  deps: TransactionDeps,
  cmd: CreateTransactionCommand,
  buyer: Buyer | null,
  card: CardToCharge | null,
): Promise<E.Either<Unavailable, CardToCharge | null>> => {
  if (cmd.input.store !== true || card === null || isStored(card)) return E.right(card)
  const method = await keepCard(deps, {
    merchantAccountId: cmd.merchantAccountId,
    actor: cmd.actor,
    buyer,
    number: card.card.number,
    expirationDate: card.card.expirationDate,
    externalIdentifier: null,
    status: 'processing',
    id: null,
  })()
  return E.map((m: PaymentMethod) => ({ ...card, view: { ...card.view, id: m.id } }))(method)
}

const accepts = (s: PaymentServiceRecord, currency: string) =>
  s.accepted_currencies.length === 0 || s.accepted_currencies.includes(currency)

/** The services to try, in order: the one the request names (no routing), else the account's active ones that take the currency. */
const servicesFor = async (
  deps: TransactionDeps,
  cmd: CreateTransactionCommand,
): Promise<E.Either<InvalidRequest | Unavailable, readonly PaymentServiceRecord[]>> => {
  const { payment_service_id: named, currency } = cmd.input
  if (named != null) {
    const found = await deps.services.findById(cmd.merchantAccountId, named)()
    if (E.isLeft(found)) return found
    if (O.isNone(found.right) || !found.right.value.active)
      return E.left(
        refusedInput(
          ['payment_service_id'],
          'No active card service with this id exists in this merchant account',
          'unknown_payment_service',
        ),
      )
    if (!accepts(found.right.value, currency))
      return E.left(refusedInput(['currency'], 'The card service does not take this currency', 'unsupported_currency'))
    return E.right([found.right.value])
  }
  const all = await deps.services.listForAccount(cmd.merchantAccountId)()
  return E.isLeft(all) ? all : E.right(all.right.filter((s) => s.active && accepts(s, currency)))
}

/**
 * What the payment is made with: a card from the request, or what it takes from its checkout
 * session (`takeSessionCard`): the card, the gift cards Secure Fields put there, or both,
 * checked against the request (`sessionTenderFault`) once taken, whatever was read before.
 */
const tenderOf = async (
  deps: TransactionDeps,
  cmd: CreateTransactionCommand,
  id: string,
  now: Date,
  cardService: boolean,
): Promise<E.Either<InvalidRequest | Unavailable, SessionTender>> => {
  const pm = cmd.input.payment_method
  const pays = (card: CardToCharge) => ({ card, giftCards: [] })
  if (pm?.method === 'card') return E.map(pays)(cardFromRequest(deps, pm, now))
  if (pm?.method === 'id')
    return E.map(pays)(await storedCardToCharge(deps, cmd, { id: pm.id, securityCode: pm.security_code ?? null }, now))
  if (pm?.method !== 'checkout-session') return E.right({ card: null, giftCards: [] })
  const held = await takeSessionCard(deps, cmd.merchantAccountId, pm.id, id, now)
  if (E.isLeft(held)) return held
  const fault = sessionTenderFault(cmd.input, held.right, cardService)
  const tender = fault === null ? sessionTender(deps, held.right, pm.id, now) : E.left(fault)
  if (E.isLeft(tender) || tender.right.stored === undefined) return tender
  const { giftCards } = tender.right
  return E.map((card: CardToCharge) => ({ card, giftCards }))(await storedCardToCharge(deps, cmd, tender.right.stored, now))
}

/** Version 0: the transaction, its card's first attempt and its gift cards, recorded before any service is asked. */
const created = (
  deps: TransactionDeps,
  cmd: CreateTransactionCommand,
  o: {
    id: string
    ownIds: readonly string[]
    buyer: TransactionBuyer | null
    card: (CardToCharge & { readonly first: PaymentServiceRecord }) | null
    sessionId: string | null
    redemptions: readonly RedemptionRecord[]
  },
): TransactionRecord => {
  const ctx = stepContext(deps)
  const { input } = cmd
  const base: TransactionRecord = {
    id: o.id,
    merchant_account_id: cmd.merchantAccountId,
    version: -1,
    created_at: ctx.now,
    updated_at: ctx.now,
    status: 'processing',
    pending: true,
    amount: input.amount,
    currency: input.currency,
    country: input.country ?? null,
    intent: input.intent ?? 'authorize',
    external_identifier: input.external_identifier ?? null,
    metadata: input.metadata ?? null,
    payment_source: input.payment_source ?? 'ecommerce',
    cart_items: input.cart_items ?? null,
    checkout_session_id: o.sessionId,
    buyer: o.buyer,
    payment_method: o.card?.view ?? null,
    request_ids: o.ownIds,
    attempts: [],
    authorization: null,
    captures: [],
    void: null,
    refunds: [],
    error_code: null,
    raw_response_code: null,
    raw_response_description: null,
    events: [],
    ...(o.redemptions.length === 0 ? {} : { gift_card_redemptions: o.redemptions }),
  }
  const request = { name: 'transaction-api-request', context: requestContext(input) }
  if (o.card === null) return next(base, ctx, {}, [request])
  const reference = attemptReference(o.id, 1)
  return next(base, ctx, { attempts: [attemptRequested(serviceView(o.card.first), reference, ctx.now)] }, [
    request,
    { name: 'transaction-event', context: { step: 'authorization-requested', payment_service_id: o.card.first.id, reference } },
  ])
}

/** What the events log keeps of the request: never a card's number, security code or PIN, only what may be shown of it. */
const requestContext = (input: TransactionCreate): Record<string, unknown> => {
  const { payment_method, gift_cards, ...rest } = input
  const giftCards = gift_cards?.map((g) => ('id' in g ? g : { label: g.number.slice(-4), amount: g.amount })) ?? gift_cards
  const pm =
    payment_method?.method === 'card'
      ? { method: 'card', label: payment_method.number.slice(-4), expiration_date: payment_method.expiration_date }
      : payment_method?.method === 'id'
        ? { method: 'id', id: payment_method.id }
        : payment_method
  return {
    ...(t.UnknownRecord.is(rest) ? rest : {}),
    payment_method: pm ?? null,
    ...(giftCards === undefined ? {} : { gift_cards: giftCards }),
  }
}
