/** Wires the audit log: how writes record their entries, the listing, and the settling and retention jobs. */
import * as TE from 'fp-ts/TaskEither'
import { DependencyContainer, instanceCachingFactory } from 'tsyringe'
import {
  ApiKeyPairRepository,
  AuditLog,
  BuyerRepository,
  CheckoutSessionStore,
  Clock,
  GiftCardVault,
  IdGenerator,
  Mac,
  makeListAuditLogs,
  makeRecordAudited,
  makeSettleAudit,
  MerchantAccountRepository,
  PaymentMethodVault,
  RecordAudited,
  ShippingDetailsRepository,
  token,
  TransactionStore,
  VersionFolds,
  WebhookDeliveryStore,
  WebhookSubscriptionRepository,
} from '@orka/domain'
import { PeriodicJob } from '../periodic-job'
import { get, Wiring } from './context'
import { FreshPaymentServices } from './storage'
import { OUTBOX_GRACE_MS } from './webhooks'

/** Settles audit entries left pending by a process that stopped (the same grace as the outbox's), and deletes the expired. */
export const AuditSettler = token<PeriodicJob>('AuditSettler')
export const AuditSweeper = token<PeriodicJob>('AuditSweeper')
export const AUDIT_SETTLE_EVERY_MS = 5_000
const AUDIT_SWEEP_EVERY_MS = 10 * 60_000

export const wireAudit = (c: DependencyContainer, { config, log }: Wiring): void => {
  c.register(RecordAudited, {
    useFactory: instanceCachingFactory((c) =>
      makeRecordAudited({ audit: get(c, AuditLog), ids: get(c, IdGenerator), clock: get(c, Clock) }),
    ),
  })
  c.register(AuditSettler, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'audit log settling',
          () =>
            TE.map((r: { committed: number; dropped: number }) => r.committed + r.dropped)(
              makeSettleAudit({
                audit: get(c, AuditLog),
                buyers: get(c, BuyerRepository),
                merchantAccounts: get(c, MerchantAccountRepository),
                shippingDetails: get(c, ShippingDetailsRepository),
                giftCardVault: get(c, GiftCardVault),
                paymentMethods: get(c, PaymentMethodVault),
                webhooks: get(c, WebhookSubscriptionRepository),
                deliveries: get(c, WebhookDeliveryStore),
                checkoutSessions: get(c, CheckoutSessionStore),
                transactions: get(c, TransactionStore),
                keys: get(c, ApiKeyPairRepository),
                cardServices: get(c, FreshPaymentServices),
                mac: get(c, Mac),
                clock: get(c, Clock),
                config: { graceMs: OUTBOX_GRACE_MS, batch: 100 },
              })(),
            ),
          AUDIT_SETTLE_EVERY_MS,
          log,
        ),
    ),
  })
  c.register(AuditSweeper, {
    useFactory: instanceCachingFactory(
      (c) =>
        new PeriodicJob(
          'audit log retention',
          () => get(c, AuditLog).sweep(new Date(get(c, Clock).now().getTime() - config.auditRetentionDays * 86_400_000)),
          AUDIT_SWEEP_EVERY_MS,
          log,
        ),
    ),
  })
}

export const auditUseCases = (c: DependencyContainer) => ({
  listAuditLogs: makeListAuditLogs({ audit: get(c, AuditLog), folds: get(c, VersionFolds), mac: get(c, Mac) }),
})
