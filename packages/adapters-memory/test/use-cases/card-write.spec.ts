import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import {
  ACCOUNT_REACH,
  ActivateCommand,
  ActivateDeps,
  Answered,
  Buyer,
  CardReach,
  forbidden,
  GiftCard,
  GiftCardActivationCreate,
  GiftCardCreate,
  IdempotencyStore,
  makeActivateGiftCard,
  makeStoreGiftCard,
} from '@orka/domain'
import { aBuyer, aGiftCardServiceRecord, MERCHANT_A, right } from '@orka/domain/testing'
import * as t from 'io-ts'
import { activationWorld, NUMBER, ACTOR } from './support'

const PIN = '73915286'
const KEY = 'c0d7a3e4-5b6f-4a1e-9c8d-7e6f5a4b3c2d'
const OTHER_KEY = '5e1f0b2a-9d8c-4b7a-8e6f-1a2b3c4d5e6f'

type World = ReturnType<typeof activationWorld>
/** A card write on a body not yet decoded. */
type Write = (
  deps: ActivateDeps,
) => (cmd: Omit<ActivateCommand, 'input'> & { readonly input: Record<string, unknown> }) => Promise<E.Either<unknown, Answered<GiftCard>>>

/** Bodies go through the route's codec, as the HTTP layer would send them. */
const decoded = <A>(codec: t.Decoder<unknown, A>, body: Record<string, unknown>): A => {
  const d = codec.decode(body)
  if (E.isLeft(d)) throw new Error(`test body does not decode: ${JSON.stringify(body)}`)
  return d.right
}

/** The two card writes that honour an idempotency key, each with a body that stores the card. */
const ROUTES: readonly { name: string; body: Record<string, unknown>; write: Write; providerCalls: (w: World) => number }[] = [
  {
    name: 'makeActivateGiftCard with store',
    body: { number: NUMBER, pin: PIN, store: true },
    write: (w) => (cmd) => makeActivateGiftCard(w)({ ...cmd, input: decoded(GiftCardActivationCreate, cmd.input) })(),
    providerCalls: (w) => w.giftCardConnectors.calls.length,
  },
  {
    name: 'makeStoreGiftCard',
    body: { number: NUMBER, pin: PIN },
    write: (w) => (cmd) => makeStoreGiftCard(w)({ ...cmd, input: decoded(GiftCardCreate, cmd.input) })(),
    providerCalls: (w) => w.giftCardConnectors.balanceCalls.length,
  },
]

const tokenOf = (buyer: Buyer, by: 'id' | 'externalIdentifier' = 'id'): CardReach => ({
  kind: 'buyer',
  buyer: by === 'id' ? { id: buyer.id, externalIdentifier: null } : { id: null, externalIdentifier: buyer.external_identifier ?? null },
})

for (const route of ROUTES)
  describe(`${route.name}: authorization before the replay`, () => {
    const setup = async () => {
      const w = activationWorld()
      // Every call to the idempotency store, so a test can tell that a refusal left the record alone.
      const touches: string[] = []
      const idempotency: IdempotencyStore = {
        claim: (record, now) => (touches.push('claim'), w.idempotency.claim(record, now)),
        complete: (holder, outcome, expiresAt) => (touches.push('complete'), w.idempotency.complete(holder, outcome, expiresAt)),
        release: (holder, now) => (touches.push('release'), w.idempotency.release(holder, now)),
        find: (merchantAccountId, key) => (touches.push('find'), w.idempotency.find(merchantAccountId, key)),
      }
      await right(w.giftCardServices.upsert(aGiftCardServiceRecord({ merchant_account_id: MERCHANT_A })))
      const a = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'buyer-a' })
      const b = aBuyer({ merchant_account_id: MERCHANT_A, external_identifier: 'buyer-b', display_name: 'Bob' })
      for (const buyer of [a, b]) await right(w.buyers.create(buyer))
      const write = route.write({ ...w, idempotency })
      /** The request buyer A's token first made: A's card, under KEY unless told. */
      const run = (reach: CardReach, idempotencyKey = KEY) =>
        write({ merchantAccountId: MERCHANT_A, actor: ACTOR, input: { ...route.body, buyer_id: a.id }, idempotencyKey, reach })
      return { ...w, touches, a, b, run, providerCalls: () => route.providerCalls(w) }
    }

    it("answers another buyer's token, or one naming no buyer, with the Forbidden a fresh key gets, touching no record", async () => {
      const s = await setup()
      const first = await s.run(tokenOf(s.a))
      if (E.isLeft(first)) throw new Error(`first write failed: ${JSON.stringify(first.left)}`)
      expect([first.right.value.buyer, first.right.replayed]).to.deep.equal([s.a, false])
      const calls = s.providerCalls()
      for (const reach of [tokenOf(s.b), { kind: 'none' } as const]) {
        s.touches.length = 0
        const fresh = await s.run(reach, OTHER_KEY)
        expect(fresh).to.deep.equal(E.left(forbidden('embed_buyer')))
        expect(await s.run(reach)).to.deep.equal(fresh)
        expect(s.touches, JSON.stringify(reach)).to.deep.equal([])
      }
      expect(s.providerCalls()).to.equal(calls)
      // The record is as A's request left it.
      expect(await s.run(tokenOf(s.a))).to.deep.equal(E.right({ value: first.right.value, replayed: true }))
    })

    it("replays to another token of the same buyer, and to the account's", async () => {
      const s = await setup()
      const first = await s.run(tokenOf(s.a))
      if (E.isLeft(first)) throw new Error(`first write failed: ${JSON.stringify(first.left)}`)
      for (const reach of [tokenOf(s.a, 'externalIdentifier'), ACCOUNT_REACH])
        expect(await s.run(reach)).to.deep.equal(E.right({ value: first.right.value, replayed: true }))
      expect(s.providerCalls()).to.equal(1)
    })
  })
