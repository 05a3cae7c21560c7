import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { GiftCardService } from '../gift-cards/gift-card.codecs'
import {
  ActivationRequest,
  ActivationResult,
  BalanceResult,
  CreditRequest,
  CreditResult,
  GiftCardConnector,
  RedemptionRequest,
  RedemptionResult,
} from '../gift-cards/gift-card.ports'
import { aGiftCardService } from './fixtures'
import { Harness, teardownHarness } from './harness'

/** A card of the provider's sandbox, as a request names it. */
export interface SandboxCard {
  readonly number: string
  readonly pin: string
}

/**
 * What a connector's suite is told about the provider behind it: cards its sandbox answers in
 * known ways, and the timeout the connector was built with.
 */
export interface GiftCardConnectorHarnessFacts {
  /** The service the requests name (the connector's definition id). */
  readonly service?: GiftCardService
  /** A card the provider activates and has a balance for. */
  readonly activates: SandboxCard
  /** A card the provider refuses. */
  readonly declines: SandboxCard
  /** A card the provider never answers for; without one, the timeout cases are left pending. */
  readonly hangs?: SandboxCard
  /** How long the connector was told it has: it must give up on its own within this. */
  readonly timeoutMs: number
  /** Lets time pass as the provider sees it (a sandbox's clock), so that an answer made afresh would differ. */
  readonly elapse?: (ms: number) => void
  /** How many activations took effect at the provider so far, when the harness can tell (a sandbox can). */
  readonly activations?: () => number
}

export type GiftCardConnectorHarness = Harness<GiftCardConnector, GiftCardConnectorHarnessFacts>

/** What giving up late may add to the timeout: timers and the event loop, not the provider. */
const SLACK_MS = 500

/** The connector's answer, however it ends: a rejected or throwing task fails the test here, with the cause. */
const settled = async <L, A>(task: () => TE.TaskEither<L, A>): Promise<E.Either<L, A>> => {
  try {
    return await task()()
  } catch (e) {
    return expect.fail(`the connector threw or rejected instead of answering: ${String(e)}`)
  }
}

/**
 * What every gift card connector must do, whatever provider it speaks to (the sandbox mock now,
 * real providers later): answer in the shapes the use cases decode, decline as a decline, give
 * up within its timeout, and honour the idempotency key it is given, as the use cases rely on
 * when they retry an activation after a crash.
 */
export const giftCardConnectorContract = (name: string, setup: () => Promise<GiftCardConnectorHarness>) =>
  describe(`GiftCardConnector: ${name}`, () => {
    let h: GiftCardConnectorHarness
    let service: GiftCardService
    beforeEach(async () => {
      h = await setup()
      service = h.service ?? aGiftCardService()
    })
    afterEach(() => teardownHarness(h))

    const activation = (card: SandboxCard, idempotencyKey: string | null = null): ActivationRequest => ({
      service,
      number: card.number,
      pin: card.pin,
      amount: 5000,
      currency: 'USD',
      externalIdentifier: 'order-1042',
      idempotencyKey,
    })
    const balance = (card: SandboxCard) => ({ service, number: card.number, pin: card.pin })

    it('activates a card its provider knows, answering an ActivationResult', async () => {
      const r = await settled(() => h.port.activate(activation(h.activates)))
      if (E.isLeft(r)) return expect.fail(`expected an activation, got ${JSON.stringify(r.left)}`)
      expect(E.isRight(ActivationResult.decode(r.right)), JSON.stringify(r.right)).to.equal(true)
    })

    it('answers a balance check in the BalanceResult shape', async () => {
      const r = await settled(() => h.port.balance(balance(h.activates)))
      if (E.isLeft(r)) return expect.fail(`expected a balance, got ${JSON.stringify(r.left)}`)
      expect(E.isRight(BalanceResult.decode(r.right)), JSON.stringify(r.right)).to.equal(true)
    })

    it('declines a card its provider refuses as CardDeclined with a reason, not as a failure or an exception', async () => {
      const r = await settled(() => h.port.activate(activation(h.declines)))
      if (E.isRight(r) || r.left._tag !== 'CardDeclined') return expect.fail(`expected CardDeclined, got ${JSON.stringify(r)}`)
      expect(r.left.reason.trim()).not.to.equal('')
    })

    it("answers a balance check of a refused card as the card's refusal (or a decline), not as a failure", async () => {
      const r = await settled(() => h.port.balance(balance(h.declines)))
      const refused = E.isRight(r) ? r.right._tag === 'Refused' : r.left._tag === 'CardDeclined'
      expect(refused, JSON.stringify(r)).to.equal(true)
    })

    it('answers an activation repeated with the same idempotency key as the first, without activating again', async () => {
      const key = `contract-${name}-${Date.now()}`
      const before = h.activations?.()
      const first = await settled(() => h.port.activate(activation(h.activates, key)))
      expect(E.isRight(first), JSON.stringify(first)).to.equal(true)
      h.elapse?.(60_000)
      expect(await settled(() => h.port.activate(activation(h.activates, key)))).to.deep.equal(first)
      if (before !== undefined && h.activations !== undefined) expect(h.activations() - before).to.equal(1)
    })

    const redemption = (card: SandboxCard, amount: number, reference: string): RedemptionRequest => ({
      service,
      number: card.number,
      pin: card.pin,
      amount,
      currency: 'USD',
      reference,
    })
    const credit = (card: SandboxCard, amount: number, reference: string, redeemed: string): CreditRequest => ({
      ...redemption(card, amount, reference),
      redemption: redeemed,
    })
    const answer = async <A>(task: () => TE.TaskEither<unknown, A>): Promise<A> => {
      const r = await settled(task)
      return E.isRight(r) ? r.right : expect.fail(`expected an answer, got ${JSON.stringify(r.left)}`)
    }
    const balanceOf = async (card: SandboxCard): Promise<number> => {
      const r = await answer(() => h.port.balance(balance(card)))
      return r._tag === 'Balance' ? r.balance : expect.fail(`expected a balance, got ${JSON.stringify(r)}`)
    }

    it('redeems within the balance once per reference, and the balance shows it', async () => {
      const before = await balanceOf(h.activates)
      const first = await answer(() => h.port.redeem(redemption(h.activates, 1200, 'redeem-1')))
      expect(first).to.deep.equal({ _tag: 'Redeemed', balance: before - 1200 })
      expect(E.isRight(RedemptionResult.decode(first))).to.equal(true)
      expect(await answer(() => h.port.redeem(redemption(h.activates, 1200, 'redeem-1')))).to.deep.equal(first)
      expect(await balanceOf(h.activates)).to.equal(before - 1200)
    })

    it('refuses a redemption above the balance with insufficient_funds, taking nothing', async () => {
      const before = await balanceOf(h.activates)
      expect(await answer(() => h.port.redeem(redemption(h.activates, before + 1, 'redeem-too-much')))).to.deep.equal({
        _tag: 'Refused',
        errorCode: 'insufficient_funds',
      })
      expect(await balanceOf(h.activates)).to.equal(before)
    })

    it('gives a redemption back by reversal or refund, each once per reference', async () => {
      const before = await balanceOf(h.activates)
      await answer(() => h.port.redeem(redemption(h.activates, 3000, 'redeem-2')))
      const reversed = await answer(() => h.port.reverse(credit(h.activates, 1000, 'reverse-2', 'redeem-2')))
      expect(reversed).to.deep.equal({ balance: before - 2000 })
      expect(E.isRight(CreditResult.decode(reversed))).to.equal(true)
      expect(await answer(() => h.port.reverse(credit(h.activates, 1000, 'reverse-2', 'redeem-2')))).to.deep.equal(reversed)
      expect(await answer(() => h.port.refund(credit(h.activates, 2000, 'refund-2', 'redeem-2')))).to.deep.equal({ balance: before })
      expect(await answer(() => h.port.refund(credit(h.activates, 2000, 'refund-2', 'redeem-2')))).to.deep.equal({ balance: before })
      expect(await balanceOf(h.activates)).to.equal(before)
    })

    it("answers a refused card's redemption as the card's refusal (or a decline), not as a failure", async () => {
      const r = await settled(() => h.port.redeem(redemption(h.declines, 100, 'redeem-declined')))
      const refused = E.isRight(r) ? r.right._tag === 'Refused' : r.left._tag === 'CardDeclined'
      expect(refused, JSON.stringify(r)).to.equal(true)
    })

    describe('a provider that does not answer', () => {
      const calls: [string, (c: SandboxCard) => TE.TaskEither<unknown, unknown>][] = [
        ['an activation', (c) => h.port.activate(activation(c))],
        ['a balance check', (c) => h.port.balance(balance(c))],
        ['a redemption', (c) => h.port.redeem(redemption(c, 100, 'redeem-hangs'))],
        // Not reversals and refunds: the card that hangs on the way in may still be given back to
        // (the sandbox's is, so that no test payment stays pending on a reversal forever).
      ]
      for (const [what, call] of calls)
        it(`ends ${what} with ServiceTimeout within the connector's timeout`, async function () {
          const hangs = h.hangs
          if (hangs === undefined) return this.skip()
          this.timeout(h.timeoutMs + 5 * SLACK_MS)
          const started = Date.now()
          expect(await settled(() => call(hangs))).to.deep.equal(E.left({ _tag: 'ServiceTimeout', service: 'gift-card' }))
          expect(Date.now() - started).to.be.below(h.timeoutMs + SLACK_MS)
        })
    })
  })
