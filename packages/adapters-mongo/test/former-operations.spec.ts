import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Attempted, IdempotencyRecord, invalidRequest, makeRunIdempotently, OutcomeCodec, problem } from '@orka/domain'
import { ManualClock, right, SequentialIds } from '@orka/domain/testing'
import { MongoIdempotencyStore } from '../src'
import { FreshStore, freshStore } from './support'

const T0 = new Date('2025-01-01T00:00:00.000Z')
const at = (s: number) => new Date(T0.getTime() + s * 1000)
const FORMER_KEY = 'POST /gift-cards/activations\u0000key-1'
const KEY = 'gift-card-activation\u0000key-1'

/** A record as an earlier version stored it, under the operation's former name (its route). */
const former = (o: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  merchant_account_id: 'default',
  key: FORMER_KEY,
  fingerprint: 'fp-1',
  state: 'completed',
  outcome: { ok: true, value: { n: 1 } },
  created_at: T0.toISOString(),
  expires_at: at(3600).toISOString(),
  ...o,
})
const claimOf = (o: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  ...former({ key: KEY, state: 'in_flight', outcome: null, expires_at: at(130).toISOString(), lease: 'lease-new', attempt: 1 }),
  reserved_id: 'new-1',
  created_at: at(10).toISOString(),
  ...o,
})

/**
 * Records an earlier version stored under an operation's former name (its HTTP route) are
 * honoured until they expire, as records under today's name are: the MongoDB store maps the
 * names where it reads them (`former-operations.ts`); the domain knows only today's.
 */
describe("MongoIdempotencyStore: records an earlier version kept under the operation's former name", function () {
  this.timeout(20_000)
  let f: FreshStore
  let store: MongoIdempotencyStore
  beforeEach(async () => {
    f = await freshStore()
    store = new MongoIdempotencyStore(f.store)
  })
  afterEach(() => f.teardown())
  /** Stores `r` as the earlier version did: a claim when nothing holds its key stores it unchanged. */
  const put = (r: IdempotencyRecord) => right(store.claim(r, new Date(0)))

  it('a live one answers the claim as a record under today’s name would: completed or in flight, whatever the body', async () => {
    await put(former())
    expect(await right(store.claim(claimOf(), at(10)))).to.deep.equal({ claimed: false, existing: former() })
    expect(await right(store.claim(claimOf({ fingerprint: 'fp-2' }), at(10)))).to.deep.equal({ claimed: false, existing: former() })
    expect(await right(store.find('default', KEY)), 'nothing claimed under today’s name').to.deep.equal({ _tag: 'None' })
  })

  it("an unfinished one hands on the ids its attempts reserved to the same request's claim, and nothing to another body's", async () => {
    const unfinished = { state: 'in_flight' as const, outcome: null, expires_at: at(5).toISOString(), reserved_id: 'former-2' }
    await put(former({ ...unfinished, earlier_ids: ['former-1'] }))
    expect(await right(store.claim(claimOf(), at(10)))).to.deep.equal({
      claimed: true,
      record: claimOf({ earlier_ids: ['former-2', 'former-1'] }),
    })
    await put(former({ ...unfinished, key: 'POST /gift-cards/activations\u0000key-2' }))
    const other = claimOf({ key: 'gift-card-activation\u0000key-2', fingerprint: 'fp-2' })
    expect(await right(store.claim(other, at(10)))).to.deep.equal({ claimed: true, record: other })
  })

  it('one whose replay period ended is ignored; an operation never renamed reads no former name', async () => {
    await put(former({ expires_at: at(5).toISOString() }))
    expect(await right(store.claim(claimOf(), at(10)))).to.deep.equal({ claimed: true, record: claimOf() })
    await put(former({ key: 'POST /buyers\u0000key-1' }))
    const buyers = claimOf({ key: 'buyer-create\u0000key-1' })
    expect(await right(store.claim(buyers, at(10)))).to.deep.equal({ claimed: true, record: buyers })
  })

  it('through the domain: a completed one is replayed, another body with its key refused, nothing run again', async () => {
    await put(former())
    const run = makeRunIdempotently({
      store,
      clock: new ManualClock(at(10)),
      ids: new SequentialIds(),
      config: { replayS: 86_400, leaseS: 120, retryAfterS: 2 },
    })
    const codec: OutcomeCodec<string, { n: number }> = {
      encode: (o) => (E.isRight(o) ? { ok: true, value: o.right } : { ok: false, error: o.left }),
      decode: (stored) => (stored.ok ? E.right(stored.value as { n: number }) : E.left('failed')),
    }
    let runs = 0
    const work = (): Promise<Attempted<string, { n: number }>> => {
      runs++
      return Promise.resolve({ outcome: E.right({ n: 2 }), recorded: true })
    }
    const request = { merchantAccountId: 'default', operation: 'gift-card-activation', key: 'key-1', fingerprint: 'fp-1' }
    expect(await run(request, TE.right(undefined), work, codec)()).to.deep.equal(E.right({ value: { n: 1 }, replayed: true }))
    expect(await run({ ...request, fingerprint: 'fp-2' }, TE.right(undefined), work, codec)()).to.deep.equal(
      E.left(
        invalidRequest(
          problem('idempotencyKey', [], 'This idempotency key was already used with a different request body', 'idempotency_key_reused'),
        ),
      ),
    )
    expect(runs).to.equal(0)
  })
})
