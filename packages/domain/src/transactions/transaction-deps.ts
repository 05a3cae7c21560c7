import { RecordAudited } from '../audit/record-audited'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ShippingDetailsRepository } from '../shipping-details/shipping-details.ports'
import { BuyerRepository } from '../buyers/buyers.ports'
import { CheckoutSessionStore } from '../checkout-sessions/checkout-session.ports'
import { IdempotencyStore } from '../idempotency/idempotency.ports'
import { IdempotencyConfig } from '../idempotency/run-idempotently'
import { CardConnector, CardConnectors } from '../payments/card-connector.ports'
import { PaymentServiceRecord, withSecrets } from '../payments/payment-service'
import { PaymentServiceRepository } from '../payments/payment-service.ports'
import { GiftCardConnectors, GiftCardServiceRepository, GiftCardVault } from '../gift-cards/gift-card.ports'
import { PaymentMethodVault } from '../payment-methods/payment-method.ports'
import { Clock, IdGenerator } from '../shared/clock.ports'
import { Mac, SecretBox } from '../shared/crypto.ports'
import { Conflict, failedValidation, problem, Unavailable, refusedInput } from '../shared/errors'
import { WebhookEvents } from '../webhooks/webhook-events.ports'
import { TransactionPaymentService } from './transaction.codecs'
import { TransactionRecord } from './transaction'
import { TransactionStore } from './transaction.ports'
import { VersionFolds } from './version-folds'
import { StepContext } from './transaction-steps'

/** What every transaction use case may need. */
export interface TransactionDeps {
  readonly transactions: TransactionStore
  readonly sessions: CheckoutSessionStore
  readonly cardServices: PaymentServiceRepository
  readonly cardConnectors: CardConnectors
  readonly buyers: BuyerRepository
  readonly shippingDetails: ShippingDetailsRepository
  readonly idempotency: IdempotencyStore
  readonly box: SecretBox
  readonly mac: Mac
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly events: WebhookEvents
  /** Where what a version is written with (audit entries, webhook events) goes once it is stored. */
  readonly folds: VersionFolds
  /** For changes outside the transaction's versions (a card kept with `store: true`). */
  readonly audited: RecordAudited
  readonly config: IdempotencyConfig
  /** Stored cards: what `{method: "id"}` pays with and `store: true` keeps. */
  readonly paymentMethods: PaymentMethodVault
  /** What paying with gift cards needs: the account's gift card services, their connectors, the stored cards. */
  readonly giftCards: {
    readonly services: GiftCardServiceRepository
    readonly connectors: GiftCardConnectors
    readonly vault: GiftCardVault
  }
}

export const stepContext = (deps: Pick<TransactionDeps, 'clock' | 'ids'>): StepContext => ({
  now: deps.clock.now().toISOString(),
  newId: () => deps.ids.uuid(),
})

export const noPaymentService = refusedInput(
  ['currency'],
  'No card service of this merchant account takes this currency',
  'no_payment_service',
)

/** A 400 for each of these properties: set to something Orka does not offer (never silently ignored). */
export const notOffered = (
  paths: readonly (readonly string[])[],
  message = (p: readonly string[]) => `\`${p.join('.')}\` is not supported`,
) => failedValidation(...paths.map((p) => problem('input', [...p], message(p), 'unsupported')))

/** A status as messages name it: `authorization succeeded`. */
export const statusWords = (r: TransactionRecord): string => r.status.replace(/_/g, ' ')

/** A 409: the transaction is not in a state this operation may start from (the message names it). */
export const wrongState = (r: TransactionRecord, message: string): Conflict => ({
  _tag: 'Conflict',
  resourceId: r.id,
  problem: problem(null, [], message, 'invalid_transaction_status'),
})

/** A 409: another operation on the transaction has no outcome yet, or kept going first; retrying later may go through. */
export const inProgress = (r: Pick<TransactionRecord, 'id'>, message: string): Conflict => ({
  _tag: 'Conflict',
  resourceId: r.id,
  problem: problem(null, [], message, 'operation_in_progress'),
})

export const serviceView = (s: PaymentServiceRecord): TransactionPaymentService => ({
  type: 'payment-service',
  id: s.id,
  payment_service_definition_id: s.payment_service_definition_id,
  method: 'card',
  display_name: s.display_name,
})

/** The connector of the service a transaction's authorization went through (its service may be gone since: then none). */
export const connectorFor =
  (
    deps: Pick<TransactionDeps, 'cardServices' | 'cardConnectors' | 'box'>,
    merchantAccountId: string,
    serviceId: string,
  ): TE.TaskEither<Unavailable, O.Option<{ readonly service: PaymentServiceRecord; readonly connector: CardConnector }>> =>
  async () => {
    const found = await deps.cardServices.findById(merchantAccountId, serviceId)()
    if (E.isLeft(found)) return found
    return E.right(
      O.flatMap((service: PaymentServiceRecord) =>
        O.map((connector: CardConnector) => ({ service: withSecrets(deps.box, service), connector }))(
          deps.cardConnectors.forDefinition(service.payment_service_definition_id),
        ),
      )(found.right),
    )
  }
