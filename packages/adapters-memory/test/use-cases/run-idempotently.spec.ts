import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import {
  Attempted,
  IdempotencyRecord,
  IdempotencyStore,
  inFlight,
  invalidRequest,
  LeaseHolder,
  makeRunIdempotently,
  OutcomeCodec,
  problem,
  Reservation,
  StoredOutcome,
  takeOver,
  unavailable,
} from '@orka/domain'
import { ManualClock, right, SequentialIds, uuidFor as uuid } from '@orka/domain/testing'
import { MemoryIdempotencyStore } from '../../src'

type Call =
  | ['claim', IdempotencyRecord, string]
  | ['complete', LeaseHolder, StoredOutcome, string]
  | ['release', LeaseHolder, string]
  | ['find', string]

/**
 * A MemoryIdempotencyStore that records the calls made to it. Tests that start from a given
 * state (a record left by an earlier request, or one another holder wrote meanwhile) replace
 * the store with a fresh one holding just that record: each test uses one key.
 */
const recordingStore = () => {
  let memory = new MemoryIdempotencyStore()
  const calls: Call[] = []
  const store: IdempotencyStore = {
    claim: (record, now) => {
      calls.push(['claim', record, now.toISOString()])
      return memory.claim(record, now)
    },
    complete: (holder, outcome, expiresAt) => {
      calls.push(['complete', holder, outcome, expiresAt.toISOString()])
      return memory.complete(holder, outcome, expiresAt)
    },
    release: (holder, now) => {
      calls.push(['release', holder, now.toISOString()])
      return memory.release(holder, now)
    },
    find: (merchantAccountId, key) => {
      calls.push(['find', key])
      return memory.find(merchantAccountId, key)
    },
  }
  /** Makes `r` the one record the store holds, as it stands (a claim on an empty store stores it unchanged). */
  const put = async (r: IdempotencyRecord) => {
    memory = new MemoryIdempotencyStore()
    await right(memory.claim(r, new Date(0)))
  }
  /** The record under the test key: a claim at the epoch finds every record live and changes nothing. */
  const get = async (): Promise<IdempotencyRecord | undefined> => {
    if (memory.size === 0) return undefined
    const c = await right(memory.claim({ ...firstClaim, fingerprint: 'probe' }, new Date(0)))
    if (c.claimed) throw new Error('get: the store held no record under the test key')
    return c.existing
  }
  const clear = () => {
    memory = new MemoryIdempotencyStore()
  }
  return { store, calls, put, get, clear, size: () => memory.size }
}

const T0 = '2025-01-01T00:00:00.000Z'
const config = { replayS: 86400, leaseS: 30, retryAfterS: 2 }
const KEY = 'POST /gift-cards/activations\u0000key-1'
const req = { merchantAccountId: 'acme', operation: 'POST /gift-cards/activations', key: 'key-1', fingerprint: 'fp-1' }
/** An authorization step that lets every request through. */
const ALLOWED: TE.TaskEither<never, void> = TE.right(undefined)
/** Stores outcomes as they are; a replayed failure comes back marked, as an owner would mark it. */
const codec: OutcomeCodec<string, { n: number }> = {
  encode: (o) => (E.isRight(o) ? { ok: true, value: o.right } : { ok: false, error: o.left }),
  decode: (s) => (s.ok ? E.right(s.value as { n: number }) : E.left(`replayed ${String(s.error)}`)),
}

const setup = () => {
  const s = recordingStore()
  const clock = new ManualClock(new Date(T0))
  const ids = new SequentialIds()
  const run = makeRunIdempotently({ store: s.store, clock, ids, config })
  const reservations: Reservation[] = []
  const work = (settled: Attempted<string, { n: number }>, after?: () => void | Promise<void>) => async (r: Reservation) => {
    reservations.push(r)
    await after?.()
    return settled
  }
  return { ...s, clock, run, work, reservations, runs: () => reservations.length }
}

/** The claim the first run at T0 makes: reserved id first, then the lease token. */
const firstClaim: IdempotencyRecord = {
  merchant_account_id: 'acme',
  key: KEY,
  fingerprint: 'fp-1',
  state: 'in_flight',
  outcome: null,
  created_at: T0,
  expires_at: '2025-01-01T00:00:30.000Z',
  lease: uuid(2),
  attempt: 1,
  reserved_id: uuid(1),
  retain_until: '2025-01-02T00:00:00.000Z',
}
const firstHolder: LeaseHolder = { merchantAccountId: 'acme', key: KEY, lease: uuid(2), attempt: 1 }

const record = (over: Partial<IdempotencyRecord>): IdempotencyRecord => ({
  merchant_account_id: 'acme',
  key: KEY,
  fingerprint: 'fp-1',
  state: 'completed',
  outcome: { ok: true, value: { n: 1 } },
  created_at: T0,
  expires_at: '2025-01-02T00:00:00.000Z',
  ...over,
})

describe('makeRunIdempotently', () => {
  it('claims the key in flight for the lease, with a lease token and a reserved id, runs the work once and records its outcome', async () => {
    const h = setup()
    const result = await h.run(
      req,
      ALLOWED,
      h.work({ outcome: E.right({ n: 1 }), recorded: true }, () => {
        h.clock.set(new Date('2025-01-01T00:00:05.000Z'))
      }),
      codec,
    )()
    expect(result).to.deep.equal(E.right({ value: { n: 1 }, replayed: false }))
    expect(h.reservations).to.deep.equal([{ reservedId: uuid(1), earlierIds: [] }])
    expect(h.calls).to.deep.equal([
      ['claim', firstClaim, T0],
      // The replay period runs from when the work finished; only the lease holder completes.
      ['complete', firstHolder, { ok: true, value: { n: 1 } }, '2025-01-02T00:00:05.000Z'],
    ])
  })

  it('records a failure the work marks as recordable, and returns it as a fresh outcome', async () => {
    const h = setup()
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.left('declined'), recorded: true }), codec)()).to.deep.equal(E.left('declined'))
    expect(h.calls[1]).to.deep.equal(['complete', firstHolder, { ok: false, error: 'declined' }, '2025-01-02T00:00:00.000Z'])
    // A retry gets it back through the owner's codec.
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()).to.deep.equal(
      E.left('replayed declined'),
    )
  })

  it('replays a completed outcome for the same fingerprint without running the work', async () => {
    const h = setup()
    await h.put(record({}))
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()).to.deep.equal(
      E.right({ value: { n: 1 }, replayed: true }),
    )
    expect([h.runs(), h.calls.map((c) => c[0])]).to.deep.equal([0, ['claim']])
  })

  it('replays the first outcome to a second identical request', async () => {
    const h = setup()
    await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 1 }), recorded: true }), codec)()
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()).to.deep.equal(
      E.right({ value: { n: 1 }, replayed: true }),
    )
    expect(h.runs()).to.equal(1)
  })

  it('rejects the same key with another fingerprint as InvalidRequest at header /idempotency-key, without running the work', async () => {
    const h = setup()
    await h.put(record({ fingerprint: 'fp-other' }))
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()).to.deep.equal(
      E.left(
        invalidRequest(
          problem('idempotencyKey', [], 'This idempotency key was already used with a different request body', 'idempotency_key_reused'),
        ),
      ),
    )
    expect(h.runs()).to.equal(0)
  })

  it('rejects a different fingerprint as reused even while the first request is in flight', async () => {
    const h = setup()
    await h.put(record({ fingerprint: 'fp-other', state: 'in_flight', outcome: null }))
    const r = await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()
    expect(E.isLeft(r) && typeof r.left === 'object' && r.left._tag).to.equal('InvalidRequest')
  })

  it('answers a repeat while the first is in flight with InFlight and the configured Retry-After', async () => {
    const h = setup()
    await h.put(record({ state: 'in_flight', outcome: null, expires_at: '2025-01-01T00:00:30.000Z' }))
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()).to.deep.equal(E.left(inFlight(2)))
    expect(h.runs()).to.equal(0)
  })

  it('answers InFlight for an in-flight record even if it already carries an outcome', async () => {
    const h = setup()
    await h.put(record({ state: 'in_flight' }))
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()).to.deep.equal(E.left(inFlight(2)))
  })

  it('treats a completed record without an outcome as still in flight', async () => {
    const h = setup()
    await h.put(record({ state: 'completed', outcome: null }))
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()).to.deep.equal(E.left(inFlight(2)))
  })

  it('releases the key when the work marks its outcome not to be recorded, so a retry runs again with the same reserved id', async () => {
    const h = setup()
    expect(await h.run(req, ALLOWED, h.work({ outcome: E.left('unknown buyer'), recorded: false }), codec)()).to.deep.equal(
      E.left('unknown buyer'),
    )
    expect(h.calls.map((c) => c[0])).to.deep.equal(['claim', 'release'])
    expect(h.calls[1]).to.deep.equal(['release', firstHolder, T0])
    await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()
    expect(h.reservations).to.deep.equal([
      { reservedId: uuid(1), earlierIds: [] },
      { reservedId: uuid(3), earlierIds: [uuid(1)] },
    ])
  })

  it('releases the key when the work throws, and lets the exception through', async () => {
    const h = setup()
    const bug = new Error('bug in work')
    let caught: unknown
    try {
      await h.run(req, ALLOWED, () => Promise.reject(bug), codec)()
    } catch (e) {
      caught = e
    }
    expect(caught).to.equal(bug)
    expect(h.calls.map((c) => c[0])).to.deep.equal(['claim', 'release'])
    // Free for another request; a retry of this one would learn its reserved id.
    expect(await h.get()).to.deep.equal({ ...firstClaim, expires_at: T0 })
  })

  it('keeps keys apart per merchant account: the same key on another account runs the work', async () => {
    const h = setup()
    await h.put(record({}))
    const r = await h.run({ ...req, merchantAccountId: 'globex' }, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()
    expect([r, h.runs()]).to.deep.equal([E.right({ value: { n: 2 }, replayed: false }), 1])
  })

  it('authorizes before the record is looked up: a refusal is answered as is, whatever the key holds, and touches nothing', async () => {
    const h = setup()
    for (const held of [undefined, record({}), record({ state: 'in_flight', outcome: null }), record({ fingerprint: 'fp-other' })]) {
      if (held === undefined) h.clear()
      else await h.put(held)
      const refused = await h.run(req, TE.left('forbidden'), h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()
      expect([refused, h.calls, h.runs(), await h.get()]).to.deep.equal([E.left('forbidden'), [], 0, held])
    }
  })

  it('passes a failing claim on as Unavailable without running the work', async () => {
    const h = setup()
    const boom = unavailable(new Error('down'))
    const run = makeRunIdempotently({
      store: { ...h.store, claim: () => TE.left(boom) },
      clock: h.clock,
      ids: { uuid: () => uuid(9) },
      config,
    })
    expect(await run(req, ALLOWED, h.work({ outcome: E.right({ n: 1 }), recorded: true }), codec)()).to.deep.equal(E.left(boom))
    expect(h.runs()).to.equal(0)
  })

  describe('after a crash', () => {
    it("a retry past the lease takes the key over and runs with the dead attempt's reserved id among its earlier ids", async () => {
      const h = setup()
      await h.put({ ...firstClaim, lease: 'lease-dead', reserved_id: 'reserved-dead' }) // its process died before completing
      h.clock.set(new Date('2025-01-01T00:00:30.000Z'))
      expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 7 }), recorded: true }), codec)()).to.deep.equal(
        E.right({ value: { n: 7 }, replayed: false }),
      )
      expect(h.reservations).to.deep.equal([{ reservedId: uuid(1), earlierIds: ['reserved-dead'] }])
      expect(await h.get()).to.deep.include({
        state: 'completed',
        outcome: { ok: true, value: { n: 7 } },
        attempt: 2,
        lease: uuid(2),
        reserved_id: uuid(1),
      })
      expect((await h.get())!.earlier_ids).to.deep.equal(['reserved-dead'])
    })

    it('a retry before the lease ends gets InFlight', async () => {
      const h = setup()
      await h.put(firstClaim)
      h.clock.set(new Date('2025-01-01T00:00:29.999Z'))
      expect(await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 7 }), recorded: true }), codec)()).to.deep.equal(E.left(inFlight(2)))
    })
  })

  describe('a holder whose lease was taken over', () => {
    /** The first run's work is overtaken: during it, the clock passes the lease and `during` runs. */
    const overtaken = async (
      during: (h: ReturnType<typeof setup>) => void | Promise<void>,
      settled: Attempted<string, { n: number }> = { outcome: E.right({ n: 1 }), recorded: true },
    ) => {
      const h = setup()
      const result = await h.run(
        req,
        ALLOWED,
        h.work(settled, async () => {
          h.clock.set(new Date('2025-01-01T00:00:31.000Z'))
          await during(h)
        }),
        codec,
      )()
      return { h, result }
    }

    it('answers with the outcome the new holder recorded, as a replay, and changes nothing', async () => {
      const { h, result } = await overtaken(async (h) => {
        await h.run(req, ALLOWED, h.work({ outcome: E.right({ n: 2 }), recorded: true }), codec)()
      })
      expect(result).to.deep.equal(E.right({ value: { n: 2 }, replayed: true }))
      expect(await h.get()).to.deep.include({ state: 'completed', outcome: { ok: true, value: { n: 2 } }, attempt: 2 })
      // The new holder ran with the first attempt's reserved id among its earlier ids.
      expect(h.reservations[1]).to.deep.equal({ reservedId: uuid(3), earlierIds: [uuid(1)] })
    })

    it('answers InFlight while the new holder still runs, leaving its claim as it is', async () => {
      const { h, result } = await overtaken(async (h) => {
        await h.put(
          takeOver(firstClaim, { ...firstClaim, lease: 'lease-new', reserved_id: 'reserved-new', expires_at: '2025-01-01T00:01:01.000Z' }),
        )
      })
      expect(result).to.deep.equal(E.left(inFlight(2)))
      expect(await h.get()).to.deep.include({ state: 'in_flight', lease: 'lease-new', attempt: 2, outcome: null })
    })

    it('keeps its own outcome when the key now holds another request body, which it leaves alone', async () => {
      const other = record({ fingerprint: 'fp-other', outcome: { ok: true, value: { n: 9 } }, lease: 'lease-other', attempt: 2 })
      const { h, result } = await overtaken(async (h) => {
        await h.put(other)
      })
      expect(result).to.deep.equal(E.right({ value: { n: 1 }, replayed: false }))
      expect(await h.get()).to.deep.equal(other)
    })

    it('keeps its own outcome when the record is gone', async () => {
      const { h, result } = await overtaken((h) => {
        h.clear()
      })
      expect(result).to.deep.equal(E.right({ value: { n: 1 }, replayed: false }))
      expect(h.size()).to.equal(0)
    })

    it("cannot release the new holder's claim", async () => {
      const { h, result } = await overtaken(
        async (h) => {
          await h.put(takeOver(firstClaim, { ...firstClaim, lease: 'lease-new', expires_at: '2025-01-01T00:01:01.000Z' }))
        },
        { outcome: E.left('provider down'), recorded: false },
      )
      expect(result).to.deep.equal(E.left('provider down'))
      expect(await h.get()).to.deep.include({ state: 'in_flight', lease: 'lease-new', expires_at: '2025-01-01T00:01:01.000Z' })
    })
  })
})
