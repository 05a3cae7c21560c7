import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Claim, IdempotencyRecord, IdempotencyStore, StoredOutcome } from '../../src/idempotency/idempotency'
import { makeRunIdempotently, Settled } from '../../src/idempotency/run-idempotently'
import { inFlight, invalidRequest, problem, unavailable } from '../../src/shared/errors'
import { fixedClock } from '../helpers'

type Call = ['claim', IdempotencyRecord, string] | ['complete', string, string, StoredOutcome, string] | ['release', string, string]

/** An in-test store: one record per (account, key); expired records count as absent, as the port says. */
const fakeStore = () => {
  const records = new Map<string, IdempotencyRecord>()
  const calls: Call[] = []
  const id = (acct: string, key: string) => `${acct}\u0000${key}`
  const store: IdempotencyStore = {
    claim: (record, now) => {
      calls.push(['claim', record, now.toISOString()])
      const existing = records.get(id(record.merchant_account_id, record.key))
      if (existing && new Date(existing.expires_at) > now) return TE.right<never, Claim>({ claimed: false, existing })
      records.set(id(record.merchant_account_id, record.key), record)
      return TE.right<never, Claim>({ claimed: true })
    },
    complete: (acct, key, outcome, expiresAt) => {
      calls.push(['complete', acct, key, outcome, expiresAt.toISOString()])
      const r = records.get(id(acct, key))!
      records.set(id(acct, key), { ...r, state: 'completed', outcome, expires_at: expiresAt.toISOString() })
      return TE.right(undefined)
    },
    release: (acct, key) => {
      calls.push(['release', acct, key])
      records.delete(id(acct, key))
      return TE.right(undefined)
    },
  }
  return { store, calls, records, put: (r: IdempotencyRecord) => records.set(id(r.merchant_account_id, r.key), r) }
}

const T0 = '2025-01-01T00:00:00.000Z'
const config = { replayS: 86400, leaseS: 30, retryAfterS: 2 }
const KEY = 'POST /gift-cards/activations\u0000key-1'
const req = { merchantAccountId: 'acme', operation: 'POST /gift-cards/activations', key: 'key-1', fingerprint: 'fp-1' }
const encode = (o: E.Either<string, { n: number }>): StoredOutcome => (E.isRight(o) ? { ok: true, value: o.right } : { ok: false, error: o.left })

const setup = () => {
  const s = fakeStore()
  const clock = fixedClock(T0)
  const run = makeRunIdempotently({ store: s.store, clock, config })
  let runs = 0
  const work = (settled: Settled<string, { n: number }>, after?: () => void) => async () => {
    runs++
    after?.()
    return settled
  }
  return { ...s, clock, run, work, runs: () => runs }
}

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
  it('claims the key in flight for the lease, runs the work once and records its outcome for the replay period', async () => {
    const h = setup()
    const result = await h.run(req, h.work({ outcome: E.right({ n: 1 }), record: true }, () => h.clock.set('2025-01-01T00:00:05.000Z')), encode)()
    expect(result).to.deep.equal(E.right({ _tag: 'Fresh', outcome: E.right({ n: 1 }) }))
    expect(h.runs()).to.equal(1)
    expect(h.calls).to.deep.equal([
      [
        'claim',
        {
          merchant_account_id: 'acme',
          key: KEY,
          fingerprint: 'fp-1',
          state: 'in_flight',
          outcome: null,
          created_at: T0,
          expires_at: '2025-01-01T00:00:30.000Z',
        },
        T0,
      ],
      // The replay period runs from when the work finished.
      ['complete', 'acme', KEY, { ok: true, value: { n: 1 } }, '2025-01-02T00:00:05.000Z'],
    ])
  })

  it('records a failure the work marks as recordable, and returns it as a fresh outcome', async () => {
    const h = setup()
    expect(await h.run(req, h.work({ outcome: E.left('declined'), record: true }), encode)()).to.deep.equal(
      E.right({ _tag: 'Fresh', outcome: E.left('declined') }),
    )
    expect(h.calls[1]).to.deep.equal(['complete', 'acme', KEY, { ok: false, error: 'declined' }, '2025-01-02T00:00:00.000Z'])
  })

  it('replays a completed outcome for the same fingerprint without running the work', async () => {
    const h = setup()
    h.put(record({}))
    expect(await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()).to.deep.equal(
      E.right({ _tag: 'Replay', stored: { ok: true, value: { n: 1 } } }),
    )
    expect([h.runs(), h.calls.map((c) => c[0])]).to.deep.equal([0, ['claim']])
  })

  it('replays the first outcome to a second identical request', async () => {
    const h = setup()
    await h.run(req, h.work({ outcome: E.right({ n: 1 }), record: true }), encode)()
    expect(await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()).to.deep.equal(
      E.right({ _tag: 'Replay', stored: { ok: true, value: { n: 1 } } }),
    )
    expect(h.runs()).to.equal(1)
  })

  it('rejects the same key with another fingerprint as InvalidRequest at header /idempotency-key, without running the work', async () => {
    const h = setup()
    h.put(record({ fingerprint: 'fp-other' }))
    expect(await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()).to.deep.equal(
      E.left(
        invalidRequest(
          problem('header', '/idempotency-key', 'This idempotency key was already used with a different request body', 'idempotency_key_reused'),
        ),
      ),
    )
    expect(h.runs()).to.equal(0)
  })

  it('rejects a different fingerprint as reused even while the first request is in flight', async () => {
    const h = setup()
    h.put(record({ fingerprint: 'fp-other', state: 'in_flight', outcome: null }))
    const r = await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()
    expect(E.isLeft(r) && r.left._tag).to.equal('InvalidRequest')
  })

  it('answers a repeat while the first is in flight with InFlight and the configured Retry-After', async () => {
    const h = setup()
    h.put(record({ state: 'in_flight', outcome: null, expires_at: '2025-01-01T00:00:30.000Z' }))
    expect(await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()).to.deep.equal(E.left(inFlight(2)))
    expect(h.runs()).to.equal(0)
  })

  it('answers InFlight for an in-flight record even if it already carries an outcome', async () => {
    const h = setup()
    h.put(record({ state: 'in_flight' }))
    expect(await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()).to.deep.equal(E.left(inFlight(2)))
  })

  it('treats a completed record without an outcome as still in flight', async () => {
    const h = setup()
    h.put(record({ state: 'completed', outcome: null }))
    expect(await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()).to.deep.equal(E.left(inFlight(2)))
  })

  it('releases the key when the work marks its outcome not to be recorded, so a retry runs again', async () => {
    const h = setup()
    expect(await h.run(req, h.work({ outcome: E.left('unknown buyer'), record: false }), encode)()).to.deep.equal(
      E.right({ _tag: 'Fresh', outcome: E.left('unknown buyer') }),
    )
    expect(h.calls.map((c) => c[0])).to.deep.equal(['claim', 'release'])
    expect(h.calls[1]).to.deep.equal(['release', 'acme', KEY])
    await h.run(req, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()
    expect(h.runs()).to.equal(2)
  })

  it('releases the key when the work throws, and lets the exception through', async () => {
    const h = setup()
    const bug = new Error('bug in work')
    let caught: unknown
    try {
      await h.run(req, async () => {
        throw bug
      }, encode)()
    } catch (e) {
      caught = e
    }
    expect(caught).to.equal(bug)
    expect(h.calls.map((c) => c[0])).to.deep.equal(['claim', 'release'])
    expect(h.records.size).to.equal(0)
  })

  it('keeps keys apart per merchant account: the same key on another account runs the work', async () => {
    const h = setup()
    h.put(record({}))
    const r = await h.run({ ...req, merchantAccountId: 'globex' }, h.work({ outcome: E.right({ n: 2 }), record: true }), encode)()
    expect([r, h.runs()]).to.deep.equal([E.right({ _tag: 'Fresh', outcome: E.right({ n: 2 }) }), 1])
  })

  it('passes a failing claim on as Unavailable without running the work', async () => {
    const h = setup()
    const boom = unavailable(new Error('down'))
    const run = makeRunIdempotently({ store: { ...h.store, claim: () => TE.left(boom) }, clock: h.clock, config })
    expect(await run(req, h.work({ outcome: E.right({ n: 1 }), record: true }), encode)()).to.deep.equal(E.left(boom))
    expect(h.runs()).to.equal(0)
  })
})
