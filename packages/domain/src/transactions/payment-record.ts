import * as t from 'io-ts'
import { PaymentServiceRecord } from '../payments/payment-service'
import { attemptReference } from './payment-routing'
import { Charge } from './payment-charge'
import type { CreateTransactionCommand } from './payment-command'
import { RedemptionRecord } from './gift-card-redemption'
import { ShippingDetails } from '../shipping-details/shipping-details'
import { TransactionBuyer } from './transaction.codecs'
import { TransactionRecord } from './transaction'
import { TransactionCreate } from './transaction-requests.codecs'
import { serviceView, stepContext, TransactionDeps } from './transaction-deps'
import { attemptRequested, next } from './transaction-steps'

/** What version 0 records: the payment as admitted, before any service is asked. */
export interface Admitted {
  readonly id: string
  /** The ids the idempotent request reserved: how a retry knows the transaction as its own. */
  readonly ownIds: readonly string[]
  readonly buyer: TransactionBuyer | null
  readonly shippingDetails: ShippingDetails | null
  /** The card part's charge and the first service it is routed to; null when gift cards pay all of it. */
  readonly card: { readonly charge: Charge; readonly first: PaymentServiceRecord } | null
  readonly sessionId: string | null
  readonly redemptions: readonly RedemptionRecord[]
}

/** Version 0: the transaction, its card's first attempt and its gift cards, recorded before any service is asked. */
export const versionZero = (
  deps: Pick<TransactionDeps, 'clock' | 'ids'>,
  cmd: CreateTransactionCommand,
  o: Admitted,
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
    payment_method: o.card?.charge.view ?? null,
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
    ...(o.shippingDetails === null ? {} : { shipping_details: o.shippingDetails }),
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
