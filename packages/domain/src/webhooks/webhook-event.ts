import * as t from 'io-ts'
import { Buyer, DateTime } from '../buyers/buyer'
import { GiftCard } from '../gift-cards/gift-card.codecs'
import { PaymentMethod } from '../payment-methods/payment-method.codecs'
import { Refund, Transaction } from '../transactions/transaction.codecs'
import { closed, literal, oneOf, str, uuid } from '../shared/codecs'

export const ENVIRONMENTS = ['sandbox', 'production'] as const
export const Environment = oneOf('Environment', ENVIRONMENTS)
export type Environment = t.TypeOf<typeof Environment>

const eventOf = <N extends string, C extends t.Mixed>(title: string, name: N, target: C) =>
  closed(title, {
    type: literal('event'),
    id: uuid,
    name: literal(name),
    created_at: DateTime,
    merchant_account_id: str,
    environment: Environment,
    target,
  })

/**
 * Every event Orka sends, by name, with the resource it carries exactly as the API returns it
 * (so never a card number, PIN or secret). The source of the payloads, their documentation
 * and the outbox's check that an event's write happened (`makeRelayOutbox`).
 */
export const WEBHOOK_EVENTS = {
  'buyer.created': eventOf('BuyerCreatedEvent', 'buyer.created', Buyer),
  'buyer.updated': eventOf('BuyerUpdatedEvent', 'buyer.updated', Buyer),
  /** The buyer as it was when it was deleted. */
  'buyer.deleted': eventOf('BuyerDeletedEvent', 'buyer.deleted', Buyer),
  'gift-card.created': eventOf('GiftCardCreatedEvent', 'gift-card.created', GiftCard),
  /** The card as it was stored; its number and PIN are gone by the time the event is sent. */
  'gift-card.deleted': eventOf('GiftCardDeletedEvent', 'gift-card.deleted', GiftCard),
  'payment-method.created': eventOf('PaymentMethodCreatedEvent', 'payment-method.created', PaymentMethod),
  /** The method as it was stored; its sealed number is gone by the time the event is sent. */
  'payment-method.deleted': eventOf('PaymentMethodDeletedEvent', 'payment-method.deleted', PaymentMethod),
  'transaction.authorized': eventOf('TransactionAuthorizedEvent', 'transaction.authorized', Transaction),
  'transaction.captured': eventOf('TransactionCapturedEvent', 'transaction.captured', Transaction),
  'transaction.declined': eventOf('TransactionDeclinedEvent', 'transaction.declined', Transaction),
  'transaction.failed': eventOf('TransactionFailedEvent', 'transaction.failed', Transaction),
  'transaction.voided': eventOf('TransactionVoidedEvent', 'transaction.voided', Transaction),
  'refund.succeeded': eventOf('RefundSucceededEvent', 'refund.succeeded', Refund),
  'refund.declined': eventOf('RefundDeclinedEvent', 'refund.declined', Refund),
  'refund.failed': eventOf('RefundFailedEvent', 'refund.failed', Refund),
}
export type WebhookEventName = keyof typeof WEBHOOK_EVENTS
export const WebhookEventName = oneOf('WebhookEventName', Object.keys(WEBHOOK_EVENTS) as WebhookEventName[])
export type WebhookEventTarget<N extends WebhookEventName> = t.TypeOf<(typeof WEBHOOK_EVENTS)[N]>['target']

/**
 * An event as a write stores it, before the write (see `makeRecordWithEvent`): the payload
 * serialised once, so every attempt signs and sends the same bytes, and the deliveries it fans
 * out to, with their ids, so that handing it over twice creates nothing twice.
 */
export const OutboxEntry = t.type({
  event_id: uuid,
  event_name: WebhookEventName,
  merchant_account_id: str,
  /** The id of the resource the event is about: how the relay tells whether the write happened. */
  target_id: str,
  created_at: str,
  body: str,
  deliveries: t.array(t.type({ id: uuid, subscription_id: uuid })),
})
export type OutboxEntry = t.TypeOf<typeof OutboxEntry>

export interface RaisedEvent<N extends WebhookEventName> {
  readonly name: N
  readonly merchantAccountId: string
  readonly target: WebhookEventTarget<N> & { readonly id: string }
  readonly environment: Environment
  readonly eventId: string
  readonly at: Date
  /** One delivery id per subscription the event goes to. */
  readonly deliveries: readonly { readonly id: string; readonly subscription_id: string }[]
}

/** The outbox entry of an event: its payload as the subscribers will receive it. */
export const outboxEntryOf = <N extends WebhookEventName>(e: RaisedEvent<N>): OutboxEntry => {
  const created_at = e.at.toISOString()
  const codec = WEBHOOK_EVENTS[e.name] as t.Mixed
  const payload = {
    type: 'event',
    id: e.eventId,
    name: e.name,
    created_at,
    merchant_account_id: e.merchantAccountId,
    environment: e.environment,
    target: e.target,
  }
  return {
    event_id: e.eventId,
    event_name: e.name,
    merchant_account_id: e.merchantAccountId,
    target_id: e.target.id,
    created_at,
    body: JSON.stringify(codec.encode(payload)),
    deliveries: e.deliveries.map((d) => ({ id: d.id, subscription_id: d.subscription_id })),
  }
}
