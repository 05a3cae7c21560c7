import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  AuditActor,
  FanOut,
  makeFanOut,
  makeRecordAudited,
  makeVersionFolds,
  ActivationRequest,
  BalanceRequest,
  GiftCard,
  GiftCardConnector,
  GiftCardConnectors,
  GiftCardService,
  makeWebhookEvents,
  OutboxEntry,
  Random,
  WebhookDeliveryRecord,
  WebhookDeliveryStore,
  WebhookOutbox,
  WebhookRequest,
  WebhookResponse,
  WebhookSender,
  WebhookScope,
} from '@orka/domain'
import {
  fakeMac,
  ManualClock,
  passThrough,
  MERCHANT_A,
  MERCHANT_B,
  RecordingDispatch,
  right,
  SequentialIds,
  uuidFor,
} from '@orka/domain/testing'
import { AesGcmSecretBox, giftCardConnectorRegistry, HmacMac, mockGiftCard, MockGiftCardConnector } from '@orka/adapters-node'
import {
  MemoryAuditLog,
  MemoryBuyerRepository,
  MemoryGiftCardLedger,
  MemoryGiftCardServiceRepository,
  MemoryGiftCardVault,
  MemoryIdempotencyStore,
  MemoryPaymentMethodVault,
  MemoryWebhookDeliveryStore,
  MemoryWebhookOutbox,
  MemoryWebhookSubscriptionRepository,
  MemoryTransactionStore,
} from '../../src'

export const START = new Date('2025-01-15T10:00:00.000Z')

/** Fixed keys: tests that compare cursors or fingerprints across calls need stable MACs. */
/** The test card number of the gift card use-case tests. */
export const NUMBER = '6036281234567890'

/** The card a first write (activation or store) of NUMBER at START returns (first generated id). */
export const expectedCard = (service: GiftCardService, o: Partial<GiftCard> = {}): GiftCard => ({
  type: 'gift-card',
  id: '00000000-0000-4000-8000-000000000001',
  merchant_account_id: MERCHANT_A,
  gift_card_service: service,
  bin: '603628',
  sub_bin: '123',
  last4: '7890',
  expiration_date: '2028-01-15T10:00:00.000Z',
  buyer: null,
  created_at: START.toISOString(),
  updated_at: START.toISOString(),
  last_used_at: null,
  usage_count: 0,
  cit_last_used_at: null,
  cit_usage_count: 0,
  ...o,
})

export const testMac = () => new HmacMac(Buffer.alloc(32, 0x4d))
export const testBox = () => new AesGcmSecretBox(Buffer.alloc(32, 0x5b))

/** Records every activation and balance check that reaches a connector. */
export class CountingConnectors implements GiftCardConnectors {
  readonly calls: ActivationRequest[] = []
  readonly balanceCalls: BalanceRequest[] = []
  constructor(private readonly inner: GiftCardConnectors) {}
  forDefinition(definitionId: string): O.Option<GiftCardConnector> {
    return O.map((c: GiftCardConnector): GiftCardConnector => ({
      ...passThrough(c),
      activate: (req) => {
        this.calls.push(req)
        return c.activate(req)
      },
      balance: (req) => {
        this.balanceCalls.push(req)
        return c.balance(req)
      },
    }))(this.inner.forDefinition(definitionId))
  }
}

/** The event side of a world: subscriptions, outbox and deliveries in memory, a dispatch that records; the audit log. */
export const eventWorld = (clock: ManualClock, ids: SequentialIds) => {
  const webhooks = new MemoryWebhookSubscriptionRepository()
  const outbox = new MemoryWebhookOutbox()
  const deliveries = new MemoryWebhookDeliveryStore()
  const dispatch = new RecordingDispatch()
  const events = makeWebhookEvents({ webhooks, outbox, dispatch, ids, clock, environment: 'sandbox' })
  const audit = new MemoryAuditLog()
  return { webhooks, outbox, deliveries, dispatch, events, audit, audited: makeRecordAudited({ audit, ids, clock }) }
}

/** A world's transactions with the folds their use cases queue to: into its audit log and its deliveries. */
export const transactionFolds = (w: Pick<ReturnType<typeof eventWorld>, 'audit' | 'webhooks' | 'deliveries' | 'dispatch'>) => {
  const transactions = new MemoryTransactionStore()
  /** The events fanned out, in order: every event a stored version raised, once folded. */
  const fannedOut: OutboxEntry[] = []
  const fanOutTo = makeFanOut({ webhooks: w.webhooks, deliveries: w.deliveries, dispatch: w.dispatch, mac: testMac() })
  const fanOut: FanOut = (events) =>
    TE.map(() => {
      fannedOut.push(...events)
    })(fanOutTo(events))
  return { transactions, folds: makeVersionFolds({ audit: w.audit, transactions, fanOut }), fanOut, fannedOut }
}

/** The user the use-case specs act as: an API key pair. */
export const ACTOR: AuditActor = { id: '0f9b9a4e-6d1c-4c53-9a57-3c1d2e4f5a60', name: 'API key 4d2c19aa' }

/** What the sandbox connectors are made with here: a fresh ledger, a fixed MAC. */
const context = (clock: ManualClock) => ({
  timeoutMs: 1000,
  endpoints: {},
  clock,
  mac: fakeMac('ledger'),
  giftCardLedger: new MemoryGiftCardLedger(),
})

/** Everything activation needs, in memory, on a manual clock. */
export const activationWorld = (o: { timeoutMs?: number; slowMs?: number } = {}) => {
  const clock = new ManualClock(START)
  const ids = new SequentialIds()
  const connectors = new CountingConnectors(
    giftCardConnectorRegistry(context(clock), [
      {
        ...mockGiftCard,
        create: (c) =>
          new MockGiftCardConnector({
            clock: c.clock,
            ledger: c.giftCardLedger,
            mac: c.mac,
            timeoutMs: o.timeoutMs ?? 1000,
            slowMs: o.slowMs ?? 50,
          }),
      },
    ]),
  )
  return {
    clock,
    giftCardConnectors: connectors,
    giftCardServices: new MemoryGiftCardServiceRepository(),
    giftCardVault: new MemoryGiftCardVault(),
    paymentMethods: new MemoryPaymentMethodVault(),
    buyers: new MemoryBuyerRepository(),
    idempotency: new MemoryIdempotencyStore(),
    transactions: new MemoryTransactionStore(),
    box: testBox(),
    mac: testMac(),
    ids,
    ...eventWorld(clock, ids),
    config: { replayS: 86_400, leaseS: 30, retryAfterS: 2 },
  }
}

/** Every entry the outbox holds, oldest first. */
export const outboxEntries = (outbox: WebhookOutbox): Promise<readonly OutboxEntry[]> =>
  right(outbox.olderThan(new Date('9999-12-31T23:59:59.999Z'), 1000))

/** All of one subscription's deliveries, newest first. */
export const deliveriesTo = (deliveries: WebhookDeliveryStore, subscriptionId: string): Promise<readonly WebhookDeliveryRecord[]> =>
  right(deliveries.list(subscriptionId, {}, { direction: 'forward', from: O.none, limit: 1000 }))

/** Randomness that always draws the same fraction. */
export const fixedRandom = (fraction: number): Random => ({ fraction: () => fraction })

/**
 * A sender that records every request and answers from a script, in order. With a clock, each
 * answer takes its `durationMs` on that clock, as a real attempt would.
 */
export class ScriptedSender implements WebhookSender {
  readonly requests: WebhookRequest[] = []
  private readonly script: WebhookResponse[]
  constructor(
    script: readonly WebhookResponse[],
    private readonly clock?: ManualClock,
  ) {
    this.script = [...script]
  }
  send(req: WebhookRequest) {
    return (): Promise<WebhookResponse> => {
      this.requests.push(req)
      const answer = this.script.shift()
      if (answer === undefined) return Promise.reject(new Error(`ScriptedSender: no answer left for request ${this.requests.length}`))
      this.clock?.advance(answer.durationMs)
      return Promise.resolve(answer)
    }
  }
}

/** What a key of account A sees, with and without the instance-wide subscriptions; and account B. */
export const ours: WebhookScope = { merchantAccountId: MERCHANT_A, includeInstanceWide: false }
export const oursAndInstance: WebhookScope = { merchantAccountId: MERCHANT_A, includeInstanceWide: true }
export const theirs: WebhookScope = { merchantAccountId: MERCHANT_B, includeInstanceWide: false }

/** The signing secret a subscription gets from SequentialIds: the two ids drawn after id `n`. */
export const secretFrom = (n: number) => `${uuidFor(n + 1)}${uuidFor(n + 2)}`.replace(/-/g, '')
