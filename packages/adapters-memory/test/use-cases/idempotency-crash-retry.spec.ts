import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  ACCOUNT_REACH,
  ActivateDeps,
  duplicate,
  GiftCard,
  GiftCardActivationCreate,
  GiftCardConnector,
  GiftCardConnectors,
  LeaseHolder,
  makeActivateGiftCard,
  makeRelayOutbox,
  makeWebhookEvents,
} from '@orka/domain'
import { aGiftCardServiceRecord, passThrough, aWebhookRecord, MERCHANT_A, right } from '@orka/domain/testing'
import { MemoryGiftCardVault, MemoryIdempotencyStore, MemoryWebhookOutbox } from '../../src'
import { activationWorld, outboxEntries, ACTOR } from './support'

const NUMBER = '6036281234567890'
const PIN = '73915286'
const KEY = 'c0d7a3e4-5b6f-4a1e-9c8d-7e6f5a4b3c2d'
const LEASE_MS = 30_000

/** A process killed at this point: what it started finishes, then nothing more ever happens. */
const dies = <A>(): Promise<A> => new Promise<A>(() => undefined)
const diesAfter =
  <L, A>(te: TE.TaskEither<L, A>): TE.TaskEither<L, A> =>
  async () => {
    await te()
    return dies()
  }

const input = (body: Record<string, unknown>): GiftCardActivationCreate => {
  const decoded = GiftCardActivationCreate.decode(body)
  if (E.isLeft(decoded)) throw new Error(`test body does not decode: ${JSON.stringify(body)}`)
  return decoded.right
}

type CrashPoint =
  | 'after the claim'
  | 'after the provider activated the card'
  | 'after the event went to the outbox'
  | 'after the vault insert'
  | 'after the outcome was recorded'

/**
 * A world whose first activation dies at `point`: the ports it goes through are wrapped so the
 * step completes and the process never goes on. The retry runs on the same stores, unwrapped.
 */
const world = async (point: CrashPoint) => {
  const w = activationWorld()
  await right(w.giftCardServices.upsert(aGiftCardServiceRecord({ merchant_account_id: MERCHANT_A })))
  await right(w.webhooks.create(aWebhookRecord({ merchant_account_id: MERCHANT_A })))
  const activate = makeActivateGiftCard(w)
  const run = (body: Record<string, unknown>, idempotencyKey: string | null) =>
    activate({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: input(body), idempotencyKey, reach: ACCOUNT_REACH })()

  const dying: { -readonly [K in keyof ActivateDeps]?: ActivateDeps[K] } = {}
  if (point === 'after the claim') dying.giftCardServices = { findPrimary: () => dies, upsert: (r) => w.giftCardServices.upsert(r) }
  if (point === 'after the provider activated the card')
    dying.giftCardConnectors = {
      forDefinition: (id) =>
        O.map((c: GiftCardConnector): GiftCardConnector => ({ ...passThrough(c), activate: (req) => diesAfter(c.activate(req)) }))(
          w.giftCardConnectors.forDefinition(id),
        ),
    } satisfies GiftCardConnectors
  if (point === 'after the event went to the outbox') {
    const outbox = new MemoryWebhookOutbox()
    outbox.add = (entry) => diesAfter(w.outbox.add(entry))
    dying.events = makeWebhookEvents({ ...w, outbox, environment: 'sandbox' })
  }
  if (point === 'after the vault insert') {
    const vault = new MemoryGiftCardVault()
    vault.insert = (card) => diesAfter(w.giftCardVault.insert(card))
    vault.findByFingerprint = (a, f) => w.giftCardVault.findByFingerprint(a, f)
    dying.giftCardVault = vault
  }
  if (point === 'after the outcome was recorded') {
    const store = new MemoryIdempotencyStore()
    store.claim = (r, now) => w.idempotency.claim(r, now)
    store.complete = (h: LeaseHolder, o, at) => diesAfter(w.idempotency.complete(h, o, at))
    dying.idempotency = store
  }
  const firstAttempt = makeActivateGiftCard({ ...w, ...dying })
  const startDying = (body: Record<string, unknown>) => {
    void firstAttempt({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: input(body), idempotencyKey: KEY, reach: ACCOUNT_REACH })()
  }
  const vaulted = async () =>
    O.map((v: { card: GiftCard }) => v.card)(
      await right(w.giftCardVault.findByFingerprint(MERCHANT_A, w.mac.mac('card-fingerprint', NUMBER))),
    )
  /** Runs the relay once the outbox's grace period is over: what it hands over reaches subscribers. */
  const relay = () => right(makeRelayOutbox({ ...w, config: { graceMs: 60_000, batch: 100 } })())
  return { ...w, run, startDying, vaulted, relay }
}

/** Lets every settled promise chain run. */
const settle = () => new Promise((r) => setTimeout(r, 20))

describe('an activation retried after its process died (kill -9)', () => {
  const body = { number: NUMBER, pin: PIN, store: true }
  const points: readonly [CrashPoint, { providerCalls: number; firstCard: boolean; replayed: boolean }][] = [
    ['after the claim', { providerCalls: 1, firstCard: false, replayed: false }],
    ['after the provider activated the card', { providerCalls: 2, firstCard: false, replayed: false }],
    ['after the event went to the outbox', { providerCalls: 2, firstCard: false, replayed: false }],
    ['after the vault insert', { providerCalls: 1, firstCard: true, replayed: false }],
    ['after the outcome was recorded', { providerCalls: 1, firstCard: true, replayed: true }],
  ]
  for (const [point, expected] of points)
    describe(point, () => {
      it('the retry with the same key and body answers 201 with the one card vaulted for the number, and one event announces it', async () => {
        const w = await world(point)
        w.startDying(body)
        await settle()
        // Before the lease ends, the key is still held by the dead attempt (unless it completed).
        const early = await w.run(body, KEY)
        if (!expected.replayed) expect(E.isLeft(early) && early.left._tag).to.equal('InFlight')
        w.clock.advance(LEASE_MS)
        const retried = await w.run(body, KEY)
        const card = await w.vaulted()
        if (O.isNone(card)) throw new Error('no card vaulted')
        expect(retried).to.deep.equal(E.right({ value: card.value, replayed: expected.replayed }))
        // The first attempt's card when it got as far as the vault (its reserved id is the first id drawn).
        expect(card.value.id === '00000000-0000-4000-8000-000000000001').to.equal(expected.firstCard)
        expect(w.giftCardConnectors.calls).to.have.length(expected.providerCalls)

        // From now on the key replays that answer...
        expect(await w.run(body, KEY)).to.deep.equal(E.right({ value: card.value, replayed: true }))
        // ...while any other request for the number is a duplicate, as before.
        expect(await w.run(body, 'another-key')).to.deep.equal(E.left(duplicate('GiftCard', card.value.id)))
        expect(await w.run(body, null)).to.deep.equal(E.left(duplicate('GiftCard', card.value.id)))

        // One gift-card.created for the card: an event the dead attempt left for a card it never
        // vaulted names another id, and the relay drops it.
        const entries = await outboxEntries(w.outbox)
        expect(entries.filter((e) => e.target_id === card.value.id)).to.have.length(1)
        w.clock.advance(120_000)
        expect(await w.relay()).to.deep.equal({ handedOver: 1, dropped: entries.length - 1 })
      })
    })
})
