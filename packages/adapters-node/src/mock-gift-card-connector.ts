import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ActivationRequest,
  ActivationResult,
  BalanceRequest,
  BalanceResult,
  CardDeclined,
  cardDeclined,
  Clock,
  GiftCardConnector,
  GiftCardConnectors,
  ServiceFailed,
  serviceFailed,
  ServiceTimeout,
  serviceTimeout,
} from '@orka/domain'
import { delay, hang, withTimeout } from './with-timeout'

export const MOCK_GIFT_CARD_DEFINITION = 'mock-gift-card'

export interface MockGiftCardConnectorOptions {
  /** Source of `now` for the expiration date of activated cards. */
  readonly clock: Clock
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

/** The balance of every mock card that has one, in minor units of `MOCK_BALANCE_CURRENCY`. */
export const MOCK_BALANCE = 10_000
export const MOCK_BALANCE_CURRENCY = 'USD'

/** How long the mock answers a repeated activation key with its first answer, as providers keep keys for a day. */
export const MOCK_IDEMPOTENCY_KEY_TTL_MS = 86_400_000
/** The most activation keys it remembers at once (the oldest are forgotten first). */
const MAX_REMEMBERED_KEYS = 10_000

/**
 * The sandbox provider. Test numbers by their last four digits: 0002 declined, 0502 provider
 * failure, 0504 no answer (times out), 0009 slow success; any other number activates.
 * Balance checks: 0002 `invalid_gift_card`, 0003 `expired_card`, 0004 a balance of 0, 0502
 * provider failure, 0504 no answer, 0009 slow; any other number 10000 USD, expiring in 3 years.
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
    })(withTimeout(this.timeoutMs, serviceTimeout, (signal) => this.answer(req.number, signal)))
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
    return withTimeout(this.timeoutMs, serviceTimeout, (signal) => this.balanceOf(req.number, signal))
  }

  private async balanceOf(number: string, signal: AbortSignal): Promise<E.Either<ServiceFailed | ServiceTimeout, BalanceResult>> {
    if (number.endsWith('0002')) return E.right({ _tag: 'Refused', errorCode: 'invalid_gift_card' })
    if (number.endsWith('0003')) return E.right({ _tag: 'Refused', errorCode: 'expired_card' })
    if (number.endsWith('0502')) return E.left(serviceFailed('The gift card service could not check the balance'))
    if (number.endsWith('0504')) await hang(signal)
    if (number.endsWith('0009')) await delay(this.slowMs, signal)
    return E.right({
      _tag: 'Balance',
      balance: number.endsWith('0004') ? 0 : MOCK_BALANCE,
      currency: MOCK_BALANCE_CURRENCY,
      expirationDate: threeYearsAfter(this.options.clock.now()).toISOString(),
    })
  }

  private async answer(number: string, signal: AbortSignal): Promise<Outcome> {
    if (number.endsWith('0002')) return E.left(cardDeclined('The gift card was declined'))
    if (number.endsWith('0502')) return E.left(serviceFailed('The gift card service could not process the activation'))
    if (number.endsWith('0504')) await hang(signal)
    if (number.endsWith('0009')) await delay(this.slowMs, signal)
    return E.right({ expirationDate: threeYearsAfter(this.options.clock.now()).toISOString() })
  }
}

export class MockGiftCardConnectors implements GiftCardConnectors {
  readonly mock: MockGiftCardConnector

  constructor(options: MockGiftCardConnectorOptions) {
    this.mock = new MockGiftCardConnector(options)
  }

  forDefinition(definitionId: string): O.Option<GiftCardConnector> {
    return definitionId === MOCK_GIFT_CARD_DEFINITION ? O.some(this.mock) : O.none
  }
}
