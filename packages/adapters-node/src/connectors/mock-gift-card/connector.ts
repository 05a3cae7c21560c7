import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import {
  ActivationRequest,
  ActivationResult,
  BalanceRequest,
  BalanceResult,
  CardDeclined,
  ConnectorError,
  cardDeclined,
  Clock,
  CreditRequest,
  CreditResult,
  GiftCardConnector,
  GiftCardLedger,
  LedgerEntry,
  Mac,
  RedemptionRequest,
  RedemptionResult,
  ServiceFailed,
  serviceFailed,
  ServiceTimeout,
  serviceTimeout,
} from '@orka/domain'
import { delay, hang, withTimeout } from '../../with-timeout'

export interface MockGiftCardConnectorOptions {
  /** Source of `now` for the expiration date of activated cards. */
  readonly clock: Clock
  /** Where the provider keeps its balances: Orka's storage, so every instance sees one balance per card. */
  readonly ledger: GiftCardLedger
  /** Keys a card in the ledger by a MAC of its number: the ledger never holds a number. */
  readonly mac: Mac
  /** Any activation not settled within this many ms is a ServiceTimeout. Default 10000. */
  readonly timeoutMs?: number
  /** How long the slow test number (ending 0009) takes to answer. Default 2000. */
  readonly slowMs?: number
}

type Outcome = E.Either<CardDeclined | ServiceFailed | ServiceTimeout, ActivationResult>

const threeYearsAfter = (d: Date) => {
  const out = new Date(d.getTime())
  out.setUTCFullYear(out.getUTCFullYear() + 3)
  return out
}

/** The opening balance of every mock card that has one, in minor units of `MOCK_BALANCE_CURRENCY`. */
export const MOCK_BALANCE = 10_000
export const MOCK_BALANCE_CURRENCY = 'USD'
/** A card's balance before any redemption: 0 for the test number ending 0004. */
export const openingOf = (number: string): number => (number.endsWith('0004') ? 0 : MOCK_BALANCE)

/** How long the mock answers a repeated activation key with its first answer, as providers keep keys for a day. */
export const MOCK_IDEMPOTENCY_KEY_TTL_MS = 86_400_000
/** The most activation keys it remembers at once (the oldest are forgotten first). */
const MAX_REMEMBERED_KEYS = 10_000

/**
 * The sandbox provider. Test numbers by their last four digits: 0002 declined, 0502 provider
 * failure, 0504 no answer (times out), 0009 slow success; any other number activates.
 * Balance checks and redemptions: 0002 `invalid_gift_card`, 0003 `expired_card`, 0004 an
 * opening balance of 0, 0502 provider failure, 0504 no answer, 0009 slow; any other number
 * opens at 10000 USD, expiring in 3 years. A redemption in another currency is refused
 * (`incorrect_currency`), one above the balance too (`insufficient_funds`).
 *
 * The balances are real: redemptions, reversals and refunds move them in the `GiftCardLedger`,
 * each once per reference, as a real provider's idempotent calls would.
 *
 * Like a real provider it deduplicates on the idempotency key it is given: an activation it
 * made is answered again, unchanged and without activating anew, for the same service, key and
 * number within `MOCK_IDEMPOTENCY_KEY_TTL_MS`.
 */
export class MockGiftCardConnector implements GiftCardConnector {
  private readonly timeoutMs: number
  private readonly slowMs: number
  /** Activations made under a key, oldest first: `JSON.stringify([service id, key, number])`. */
  private readonly byKey = new Map<string, { readonly atMs: number; readonly result: ActivationResult }>()
  private made = 0

  constructor(private readonly options: MockGiftCardConnectorOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000
    this.slowMs = options.slowMs ?? 2_000
  }

  /** How many activations took effect (a repeated key's answer is not one). */
  get activations(): number {
    return this.made
  }

  activate(req: ActivationRequest): TE.TaskEither<CardDeclined | ServiceFailed | ServiceTimeout, ActivationResult> {
    const key = req.idempotencyKey === null ? null : JSON.stringify([req.service.id, req.idempotencyKey, req.number])
    const earlier = key === null ? undefined : this.remembered(key)
    if (earlier !== undefined) return TE.right(earlier)
    return TE.map((result: ActivationResult) => {
      this.made++
      if (key !== null) this.remember(key, result)
      return result
    })(
      withTimeout(
        this.timeoutMs,
        () => serviceTimeout('gift-card'),
        (signal) => this.answer(req.number, signal),
      ),
    )
  }

  private remembered(key: string): ActivationResult | undefined {
    const entry = this.byKey.get(key)
    return entry !== undefined && this.options.clock.now().getTime() - entry.atMs < MOCK_IDEMPOTENCY_KEY_TTL_MS ? entry.result : undefined
  }

  private remember(key: string, result: ActivationResult) {
    const nowMs = this.options.clock.now().getTime()
    // Oldest first: forget the expired ones, and the oldest beyond the bound.
    for (const [k, v] of this.byKey) {
      if (nowMs - v.atMs < MOCK_IDEMPOTENCY_KEY_TTL_MS && this.byKey.size < MAX_REMEMBERED_KEYS) break
      this.byKey.delete(k)
    }
    this.byKey.delete(key)
    this.byKey.set(key, { atMs: nowMs, result })
  }

  balance(req: BalanceRequest): TE.TaskEither<ServiceFailed | ServiceTimeout, BalanceResult> {
    return withTimeout<ServiceFailed | ServiceTimeout, BalanceResult>(
      this.timeoutMs,
      () => serviceTimeout('gift-card'),
      async (signal) => {
        const refused = await this.refusal(req.number, signal, 'check the balance')
        if (refused !== undefined) return refused
        const balance = await this.options.ledger.balance(this.cardKey(req), openingOf(req.number))()
        return E.isLeft(balance)
          ? E.left(serviceFailed('The gift card service could not read the balance', 'gift-card'))
          : E.right({
              _tag: 'Balance',
              balance: balance.right,
              currency: MOCK_BALANCE_CURRENCY,
              expirationDate: threeYearsAfter(this.options.clock.now()).toISOString(),
            })
      },
    )
  }

  redeem(req: RedemptionRequest): TE.TaskEither<ConnectorError, RedemptionResult> {
    return withTimeout<ConnectorError, RedemptionResult>(
      this.timeoutMs,
      () => serviceTimeout('gift-card'),
      async (signal) => {
        const refused = await this.refusal(req.number, signal, 'redeem')
        if (refused !== undefined) return refused
        if (req.currency !== MOCK_BALANCE_CURRENCY) return E.right({ _tag: 'Refused', errorCode: 'incorrect_currency' })
        const debit = await this.options.ledger.debit(this.movement(req))()
        if (E.isLeft(debit)) return E.left(serviceFailed('The gift card service could not redeem', 'gift-card'))
        if (debit.right._tag === 'Insufficient') return E.right({ _tag: 'Refused', errorCode: 'insufficient_funds' })
        // The reference's entry is not a debit: the redemption was reversed before it arrived, so it takes nothing.
        return E.right(
          debit.right.entry.amount < 0
            ? { _tag: 'Redeemed', balance: debit.right.entry.balance }
            : { _tag: 'Refused', errorCode: 'operation_canceled' },
        )
      },
    )
  }

  /**
   * Gives back what the redemption took, whether or not it arrived: the ledger first marks the
   * redemption's reference (a credit of 0, which answers the debit if there was one), so a
   * redemption that arrives after its reversal takes nothing, and one that never came is given
   * nothing back.
   */
  reverse(req: CreditRequest): TE.TaskEither<ConnectorError, CreditResult> {
    return this.credit(req, async () => {
      const mark = await this.options.ledger.credit({ ...this.movement(req), amount: 0, reference: req.redemption })()
      return E.map((e: LedgerEntry) => Math.min(req.amount, Math.max(0, -e.amount)))(mark)
    })
  }

  /** Gives back `amount` of a redemption; the caller keeps refunds within what it took. */
  refund(req: CreditRequest): TE.TaskEither<ConnectorError, CreditResult> {
    return this.credit(req, () => Promise.resolve(E.right(req.amount)))
  }

  private credit(req: CreditRequest, amountOf: () => Promise<E.Either<unknown, number>>): TE.TaskEither<ConnectorError, CreditResult> {
    const failed = () => serviceFailed('The gift card service could not give the amount back', 'gift-card')
    // The test numbers' failures are the way in (checks, redemptions): giving back always answers, so a test payment never stays pending.
    return withTimeout<ConnectorError, CreditResult>(
      this.timeoutMs,
      () => serviceTimeout('gift-card'),
      async () => {
        const amount = await amountOf()
        if (E.isLeft(amount)) return E.left(failed())
        const credit =
          amount.right === 0
            ? await this.options.ledger.balance(this.cardKey(req), openingOf(req.number))()
            : E.map((e: LedgerEntry) => e.balance)(await this.options.ledger.credit({ ...this.movement(req), amount: amount.right })())
        return E.isLeft(credit) ? E.left(failed()) : E.right({ balance: credit.right })
      },
    )
  }

  private cardKey(req: { readonly service: { readonly id: string }; readonly number: string }): string {
    return this.options.mac.mac('gift-card-ledger', `${req.service.id}\u0000${req.number}`)
  }

  private movement(req: RedemptionRequest) {
    return { card: this.cardKey(req), opening: openingOf(req.number), amount: req.amount, reference: req.reference }
  }

  /** How the test numbers answer before any balance is looked at: refused, failing, hanging or slow. */
  private async refusal(
    number: string,
    signal: AbortSignal,
    what: string,
  ): Promise<E.Either<ServiceFailed, { readonly _tag: 'Refused'; readonly errorCode: 'invalid_gift_card' | 'expired_card' }> | undefined> {
    if (number.endsWith('0002')) return E.right({ _tag: 'Refused', errorCode: 'invalid_gift_card' })
    if (number.endsWith('0003')) return E.right({ _tag: 'Refused', errorCode: 'expired_card' })
    if (number.endsWith('0502')) return E.left(serviceFailed(`The gift card service could not ${what}`, 'gift-card'))
    await this.delayFor(number, signal)
    return undefined
  }

  private async delayFor(number: string, signal: AbortSignal): Promise<void> {
    if (number.endsWith('0504')) await hang(signal)
    if (number.endsWith('0009')) await delay(this.slowMs, signal)
  }

  private async answer(number: string, signal: AbortSignal): Promise<Outcome> {
    if (number.endsWith('0002')) return E.left(cardDeclined('The gift card was declined'))
    if (number.endsWith('0502')) return E.left(serviceFailed('The gift card service could not process the activation', 'gift-card'))
    if (number.endsWith('0504')) await hang(signal)
    if (number.endsWith('0009')) await delay(this.slowMs, signal)
    return E.right({ expirationDate: threeYearsAfter(this.options.clock.now()).toISOString() })
  }
}
