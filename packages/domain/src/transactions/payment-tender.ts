import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Buyer } from '../buyers/buyer'
import { SessionGiftCard } from '../checkout-sessions/checkout-session'
import { keepCard } from '../payment-methods/keep-card'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { InvalidRequest, Unavailable } from '../shared/errors'
import { Charge, chargeOf, requestTender } from './payment-charge'
import type { CreateTransactionCommand } from './payment-command'
import { sessionTender, sessionTenderFault, takeSessionCard } from './session-tender'
import { TransactionDeps } from './transaction-deps'

/** What pays a payment: its card part's charge (null when gift cards pay all of it) and the gift cards Secure Fields put on its session. */
export interface PaymentTender {
  readonly charge: Charge | null
  readonly giftCards: readonly SessionGiftCard[]
}

/**
 * What the payment is made with: the request's card or stored method, or what it takes from
 * its checkout session (`takeSessionCard`): the card, the gift cards Secure Fields put there, or
 * both, checked against the request (`sessionTenderFault`) once taken, whatever was read before.
 */
export const tenderOf =
  (
    deps: TransactionDeps,
    cmd: CreateTransactionCommand,
    id: string,
    now: Date,
    cardService: boolean,
  ): TE.TaskEither<InvalidRequest | Unavailable, PaymentTender> =>
  async () => {
    const pm = cmd.input.payment_method
    const paying = (giftCards: readonly SessionGiftCard[]) => (charge: Charge | null) => ({ charge, giftCards })
    if (pm == null) return E.right({ charge: null, giftCards: [] })
    if (pm.method !== 'checkout-session') return E.map(paying([]))(await chargeOf(deps, cmd, requestTender(pm), now)())
    const held = await takeSessionCard(deps, cmd.merchantAccountId, pm.id, id, now)()
    if (E.isLeft(held)) return held
    const fault = sessionTenderFault(cmd.input, held.right, cardService)
    if (fault !== null) return E.left(fault)
    const taken = sessionTender(deps, held.right, pm.id)
    if (E.isLeft(taken)) return taken
    const { tender, giftCards } = taken.right
    return tender === null ? E.right(paying(giftCards)(null)) : E.map(paying(giftCards))(await chargeOf(deps, cmd, tender, now)())
  }

/** With `store: true`, the card that pays kept for the buyer (`processing` until the payment ends) and named by the transaction. */
export const keptFor =
  (
    deps: TransactionDeps,
    cmd: CreateTransactionCommand,
    buyer: Buyer | null,
    charge: Charge | null,
  ): TE.TaskEither<Unavailable, Charge | null> =>
  async () => {
    if (cmd.input.store !== true || charge?.method !== null) return E.right(charge)
    const method = await keepCard(deps, {
      merchantAccountId: cmd.merchantAccountId,
      actor: cmd.actor,
      buyer,
      number: charge.card.number,
      expirationDate: charge.card.expirationDate,
      externalIdentifier: null,
      status: 'processing',
      id: null,
    })()
    return E.map((m: PaymentMethod) => ({ ...charge, view: { ...charge.view, id: m.id } }))(method)
  }
