import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { ApiKeyPairRepository } from '../auth/api-key-pair.ports'
import { BuyerRepository } from '../buyers/buyers.ports'
import { CheckoutSessionStore } from '../checkout-sessions/checkout-session.ports'
import { GiftCardVault } from '../gift-cards/gift-card.ports'
import { PaymentMethodVault } from '../payment-methods/payment-method.ports'
import { Clock } from '../shared/clock.ports'
import { Mac } from '../shared/crypto.ports'
import { Unavailable } from '../shared/errors'
import { TransactionRecord } from '../transactions/transaction'
import { TransactionStore } from '../transactions/transaction.ports'
import { WebhookDeliveryStore } from '../webhooks/webhook-delivery.ports'
import { WebhookSubscriptionRepository } from '../webhooks/webhooks.ports'
import { ChangeProbe, AuditRecord } from './audit-entry'
import { AuditLog } from './audit.ports'
import {
  apiKeyPairWitness,
  buyerWitness,
  merchantAccountWitness,
  paymentMethodWitness,
  paymentServiceWitness,
  sessionWitness,
  shippingDetailsWitness,
  subscriptionWitness,
  versionWitness,
} from './change-witness'
import { PaymentServiceRepository } from '../payments/payment-service.ports'
import { ShippingDetailsRepository } from '../shipping-details/shipping-details.ports'
import { MerchantAccountRepository } from '../merchant-accounts/merchant-account.ports'

interface Sources {
  readonly buyers: BuyerRepository
  readonly merchantAccounts: MerchantAccountRepository
  readonly shippingDetails: ShippingDetailsRepository
  readonly giftCardVault: GiftCardVault
  readonly paymentMethods: PaymentMethodVault
  readonly webhooks: WebhookSubscriptionRepository
  readonly deliveries: WebhookDeliveryStore
  readonly checkoutSessions: CheckoutSessionStore
  readonly transactions: TransactionStore
  readonly keys: ApiKeyPairRepository
  readonly cardServices: PaymentServiceRepository
  readonly mac: Mac
  readonly clock: Clock
}

/** Whether the change happened; `not-known` while its outcome is not (a call still without an answer): the entry waits. */
type Probe = (s: Sources, account: string, id: string, witness: string | null) => TE.TaskEither<Unavailable, boolean | 'not-known'>

/** A capture or void by its outcome in the transaction's newest version: succeeded, still pending, or neither (declined, failed, never recorded). */
const outcomeOf = (status: string | undefined): boolean | 'not-known' => (status === 'pending' ? 'not-known' : status === 'succeeded')

const exists = <A>(found: TE.TaskEither<Unavailable, O.Option<A>>, is: (a: A) => boolean = () => true) => TE.map(O.exists(is))(found)
const gone = <A>(found: TE.TaskEither<Unavailable, O.Option<A>>) => TE.map((f: O.Option<A>) => O.isNone(f))(found)

/**
 * How the relay tells, for each kind of change, that it was stored. A create: the resource is
 * there. A delete: it is not (its entry is only written for a resource that was). An update:
 * the stored state is the one it wrote. Updated again since, an update of a resource that keeps
 * no versions is not sure, and its entry is dropped (see docs/architecture.md).
 */
const PROBES: Readonly<Record<ChangeProbe, Probe>> = {
  'buyer-present': (s, a, id) => exists(s.buyers.findById(a, id)),
  'buyer-absent': (s, a, id) => gone(s.buyers.findById(a, id)),
  'buyer-state': (s, a, id, w) => exists(s.buyers.findById(a, id), (b) => buyerWitness(s.mac, b) === w),
  'merchant-account-present': (s, _, id) => exists(s.merchantAccounts.find(id)),
  'merchant-account-state': (s, _, id, w) => exists(s.merchantAccounts.find(id), (m) => merchantAccountWitness(s.mac, m) === w),
  'shipping-details-present': (s, a, id) => exists(s.shippingDetails.findById(a, id)),
  'shipping-details-absent': (s, a, id) => gone(s.shippingDetails.findById(a, id)),
  'shipping-details-state': (s, a, id, w) => exists(s.shippingDetails.findById(a, id), (r) => shippingDetailsWitness(s.mac, r) === w),
  'gift-card-present': (s, a, id) => exists(s.giftCardVault.findById(a, id)),
  'gift-card-absent': (s, a, id) => gone(s.giftCardVault.findById(a, id)),
  'payment-method-present': (s, a, id) => exists(s.paymentMethods.findById(a, id)),
  'payment-method-absent': (s, a, id) => gone(s.paymentMethods.findById(a, id)),
  'payment-method-state': (s, a, id, w) => exists(s.paymentMethods.findById(a, id), (m) => paymentMethodWitness(s.mac, m.method) === w),
  'webhook-subscription-present': (s, _, id) => exists(s.webhooks.findForDelivery(id)),
  'webhook-subscription-absent': (s, _, id) => gone(s.webhooks.findForDelivery(id)),
  'webhook-subscription-state': (s, _, id, w) => exists(s.webhooks.findForDelivery(id), (r) => subscriptionWitness(s.mac, r) === w),
  // A delivered or failed delivery changes again only once a redelivery made it pending: an
  // `updated_at` from the redelivery's time on means it happened. The witness: subscription, time.
  'webhook-delivery-redelivered': (s, _, id, w) => {
    const [subscriptionId = '', at = ''] = (w ?? '').split(' ')
    return exists(s.deliveries.findById(subscriptionId, id), (d) => d.updated_at >= at)
  },
  'checkout-session-present': (s, a, id) => exists(s.checkoutSessions.find(a, id, s.clock.now())),
  'checkout-session-absent': (s, a, id) => gone(s.checkoutSessions.find(a, id, s.clock.now())),
  'checkout-session-state': (s, a, id, w) => exists(s.checkoutSessions.find(a, id, s.clock.now()), (r) => sessionWitness(s.mac, r) === w),
  'transaction-present': (s, a, id) => TE.map((v: readonly unknown[]) => v.length > 0)(s.transactions.history(a, id)),
  'transaction-version': (s, a, id, w) =>
    TE.map((v: readonly Parameters<typeof versionWitness>[0][]) => v.some((x) => versionWitness(x) === w))(s.transactions.history(a, id)),
  // The check names the transaction, the witness the capture (its id) or the void (its reference).
  'capture-outcome': (s, a, id, w) =>
    TE.map(
      O.match(
        () => false,
        (r: TransactionRecord) => outcomeOf(r.captures.find((c) => c.id === w)?.status),
      ),
    )(s.transactions.find(a, id)),
  'void-outcome': (s, a, id, w) =>
    TE.map(
      O.match(
        () => false,
        (r: TransactionRecord) => outcomeOf(r.void?.reference === w ? r.void.status : undefined),
      ),
    )(s.transactions.find(a, id)),
  // The check names the transaction, the witness the refund.
  'refund-present': (s, a, id, w) =>
    TE.map((v: readonly { refunds: readonly { id: string }[] }[]) => v.some((x) => x.refunds.some((r) => r.id === w)))(
      s.transactions.history(a, id),
    ),
  'payment-service-present': (s, a, id) => exists(s.cardServices.findById(a, id)),
  'payment-service-absent': (s, a, id) => exists(s.cardServices.findById(a, id), (r) => r.deleted_at !== undefined),
  'payment-service-state': (s, a, id, w) => exists(s.cardServices.findById(a, id), (r) => paymentServiceWitness(s.mac, r) === w),
  'api-key-pair-present': (s, _, id) => exists(s.keys.findById(id)),
  'api-key-pair-revoked': (s, _, id) => exists(s.keys.findById(id), (k) => k.revoked),
  'api-key-pair-state': (s, _, id, w) => exists(s.keys.findById(id), (k) => apiKeyPairWitness(s.mac, k) === w),
}

export interface SettleAuditConfig {
  /** Longer than any change takes (storage calls time out well within it): an older pending entry's change is over. */
  readonly graceMs: number
  readonly batch: number
}

const happened = (s: Sources, r: AuditRecord): TE.TaskEither<Unavailable, boolean | 'not-known'> =>
  r.check === null ? TE.right(false) : PROBES[r.check.probe](s, r.merchant_account_id ?? '', r.check.id, r.check.witness)

/**
 * Settles audit entries left pending by processes that stopped between a change and its
 * commit (or whose write ended `Unavailable`): committed when the change is found, dropped when
 * it is not, left for a later pass while a call it waits on has no outcome (a capture or void
 * whose service has not answered: recovery gets the answer). Returns how many were committed
 * and dropped.
 */
export const makeSettleAudit =
  (deps: Sources & { audit: AuditLog; config: SettleAuditConfig }) =>
  (): TE.TaskEither<Unavailable, { readonly committed: number; readonly dropped: number }> =>
    pipe(
      deps.audit.pendingBefore(new Date(deps.clock.now().getTime() - deps.config.graceMs), deps.config.batch),
      TE.flatMap(
        TE.traverseSeqArray((r) =>
          pipe(
            happened(deps, r),
            TE.flatMap((yes) =>
              yes === 'not-known'
                ? TE.right('waiting' as const)
                : yes
                  ? TE.map(() => 'committed' as const)(deps.audit.commit(r.id))
                  : TE.map(() => 'dropped' as const)(deps.audit.drop(r.id)),
            ),
          ),
        ),
      ),
      TE.map((done) => ({
        committed: done.filter((d) => d === 'committed').length,
        dropped: done.filter((d) => d === 'dropped').length,
      })),
    )
