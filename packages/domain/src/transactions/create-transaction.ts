import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { auditRecordOf, changeOf } from '../audit/record-audited'
import { canonicalJson } from '../gift-cards/gift-card'
import { Attempted, makeRunIdempotently, recordedOutcomeCodec, Reservation } from '../idempotency/run-idempotently'
import { refusedInput, Unavailable, unavailable } from '../shared/errors'
import { redemptionsFor } from './gift-card-tender'
import { mayCreate, refusal } from './payment-admission'
import { chargedBuyer, payerOf } from './payment-payer'
import { namedShipping, shippingOf } from './payment-shipping'
import { versionZero } from './payment-record'
import { noServiceFault, route, servicesFor } from './payment-routing'
import { keptFor, tenderOf } from './payment-tender'
import { heldBy, sessionTenderFault, usedSession } from './session-tender'
import { legacySessionTransactionId, sessionTransactionId } from './session-transaction-id'
import { makeSettleTransaction } from './settle-transaction'
import { settleStoredMethod } from './stored-method-outcome'
import { Transaction } from './transaction.codecs'
import { toTransaction, transactionResource, TransactionRecord } from './transaction'
import { TransactionDeps } from './transaction-deps'
import { foldLater } from './transaction-versions'
import { CreateTransactionError, CreateTransactionCommand, Created, CREATE_TRANSACTION } from './payment-command'

const outcomeCodec = recordedOutcomeCodec<CreateTransactionError, Transaction>(Transaction, () =>
  unavailable(new Error('a transaction request recorded a failure')),
)

/** The first of these transactions that exists (the ids an idempotent request and its earlier attempts reserved). */
const firstFound =
  (deps: TransactionDeps, merchantAccountId: string, ids: readonly string[]): TE.TaskEither<Unavailable, O.Option<TransactionRecord>> =>
  async () => {
    for (const id of ids) {
      const found = await deps.transactions.find(merchantAccountId, id)()
      if (E.isLeft(found) || O.isSome(found.right)) return found
    }
    return E.right(O.none)
  }

/**
 * Takes a payment by card, gift cards or both (`POST /transactions`), in stages, each a file:
 *
 * 1. admission (`payment-admission.ts`): what Orka does not offer, the gift cards' rules,
 *    `store: true`'s needs, the embed claim's pins; nothing is read or stored yet;
 * 2. payer (`payment-payer.ts`): the buyer named or described;
 * 3. route (`payment-routing.ts`): which card services may take it;
 * 4. tender (`payment-tender.ts`, `payment-charge.ts`): what pays (a card, a stored method, a
 *    session's card and gift cards; the stored gift cards the caller may reach) resolved into
 *    what is charged, kept for the buyer with `store: true`;
 * 5. record (`payment-record.ts`): version 0, holding the card's first attempt and every gift
 *    card before any service is asked;
 * 6. route the card part, then settle the gift cards (`makeSettleTransaction`, `live` mode).
 *
 * Checks before 5 store nothing (but the session's card, once taken, and a card kept with
 * `store: true`, `processing` until the payment ends). A request retried with its idempotency
 * key after its process stopped finds the transaction it recorded, settles it and answers it.
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
      // is told by the session's card and by the id version 0 takes.
      if (reservation !== null && reservation.earlierIds.length > 0) {
        const ids = pm?.method === 'checkout-session' ? [id, legacySessionTransactionId(deps.mac, pm.id)] : reservation.earlierIds
        const earlier = await firstFound(deps, cmd.merchantAccountId, ids)()
        if (E.isLeft(earlier)) return checked(earlier)
        if (O.isSome(earlier.right)) {
          const r = earlier.right.value
          if (!r.request_ids.some((x) => ownIds.includes(x))) return checked(E.left(usedSession))
          const done = await settle(r)()
          if (E.isLeft(done)) return checked(done)
          await settleStoredMethod(deps, done.right)()
          return recorded(done.right)
        }
      }

      const payer = await payerOf(deps, cmd.merchantAccountId, input)()
      if (E.isLeft(payer)) return checked(payer)
      const shipping = await namedShipping(deps, cmd.merchantAccountId, input)()
      if (E.isLeft(shipping)) return checked(shipping)
      // Against a buyer the request names, before a session's card is taken; a stored card's buyer is known after.
      const early = payer.right.buyer === null ? E.right(null) : shippingOf(shipping.right, payer.right.view)
      if (E.isLeft(early)) return checked(early)
      const services = pm == null ? E.right([]) : await servicesFor(deps, cmd.merchantAccountId, input)()
      if (E.isLeft(services)) return checked(services)
      const first = services.right[0]
      if ((pm?.method === 'card' || pm?.method === 'id') && first === undefined)
        return checked(E.left(E.getOrElseW((u: Unavailable) => u)(await noServiceFault(deps, cmd.merchantAccountId, input)())))
      // A refusal told from the session before its card data is taken leaves that data there
      // (taken, it is gone); only these rare requests read it first. Taking it checks again.
      if (pm?.method === 'checkout-session' && (first === undefined || (input.gift_cards ?? []).length > 0)) {
        const held = await heldBy(deps, cmd.merchantAccountId, pm.id, deps.clock.now())()
        const fault = E.isLeft(held) ? held.left : sessionTenderFault(input, held.right, first !== undefined)
        if (fault !== null) return checked(E.left(fault))
      }
      // Before the session's card is taken: a gift card the caller cannot reach leaves the session as it was.
      const requested = await redemptionsFor(deps, cmd, id)()
      if (E.isLeft(requested)) return checked(requested)
      const tender = await tenderOf(deps, cmd, id, deps.clock.now(), first !== undefined)()
      if (E.isLeft(tender)) return checked(tender)
      const { giftCards } = tender.right
      const buyer = chargedBuyer(payer.right, tender.right.charge)
      if (E.isLeft(buyer)) return checked(buyer)
      const shippingDetails = shippingOf(shipping.right, buyer.right)
      if (E.isLeft(shippingDetails)) return checked(shippingDetails)
      const redemptions = giftCards.length === 0 ? requested : await redemptionsFor(deps, cmd, id, giftCards)()
      if (E.isLeft(redemptions)) return checked(redemptions)
      const charge = await keptFor(deps, cmd, payer.right.buyer, tender.right.charge)()
      if (E.isLeft(charge)) return checked(charge)

      const start = versionZero(deps, cmd, {
        id,
        ownIds: ownIds.length === 0 ? [id] : ownIds,
        buyer: buyer.right,
        shippingDetails: shippingDetails.right,
        card: charge.right === null || first === undefined ? null : { charge: charge.right, first },
        sessionId: pm?.method === 'checkout-session' ? pm.id : null,
        redemptions: redemptions.right,
      })
      // Its entry is committed in version 0 itself: that version stored is the transaction created.
      const entry = auditRecordOf(deps, changeOf(cmd, transactionResource(start), 'created', 'transaction-present'), true)
      const put = await deps.transactions.put(start, { audit: [entry] })()
      if (E.isLeft(put)) return checked(put)
      if (!put.right) return checked(E.left(usedSession))
      foldLater(deps, start, { audit: [entry], events: [] })
      const routed =
        charge.right === null || first === undefined
          ? E.right(start)
          : await route(deps)(start, {
              services: services.right,
              card: charge.right.card,
              billingPostalCode: input.buyer?.billing_details?.address?.postal_code ?? null,
            })()
      if (E.isLeft(routed) || redemptions.right.length === 0)
        return E.isLeft(routed) ? { outcome: routed, recorded: false } : recorded(routed.right)
      const done = await payGiftCards(routed.right)()
      return E.isLeft(done) ? { outcome: done, recorded: false } : recorded(done.right)
    }

  return (cmd: CreateTransactionCommand): TE.TaskEither<CreateTransactionError, Created> => {
    const refused = refusal(cmd.input)
    if (refused !== null) return TE.left(refused)
    if (cmd.idempotencyKey === null)
      return async () => {
        const allowed = await mayCreate(deps)(cmd)()
        if (E.isLeft(allowed)) return allowed
        return E.map((value: Transaction): Created => ({ value, replayed: false }))((await attempt(cmd)(null)).outcome)
      }
    const request = {
      merchantAccountId: cmd.merchantAccountId,
      operation: CREATE_TRANSACTION,
      key: cmd.idempotencyKey,
      fingerprint: deps.mac.mac('idempotency-fingerprint', canonicalJson(cmd.input)),
    }
    return runIdempotently(request, mayCreate(deps)(cmd), attempt(cmd), outcomeCodec)
  }
}
