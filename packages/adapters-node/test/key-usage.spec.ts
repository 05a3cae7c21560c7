import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { KeyUse, unavailable } from '@orka/domain'
import { ManualClock } from '@orka/domain/testing'
import { KeyUsage } from '../src'

describe('KeyUsage', () => {
  const T0 = new Date('2026-11-28T10:00:00.000Z')
  let clock: ManualClock
  let written: (readonly KeyUse[])[]
  let failing: boolean
  let usage: KeyUsage
  beforeEach(() => {
    clock = new ManualClock(T0)
    written = []
    failing = false
    usage = new KeyUsage(
      { markUsed: (uses) => (failing ? TE.left(unavailable(new Error('down'))) : (written.push(uses), TE.right(undefined))) },
      clock,
    )
  })

  it('writes each key once per flush, at its latest use, and nothing when no key was used', async () => {
    expect(await usage.flush()()).to.deep.equal(E.right(0))
    usage.used('a')
    clock.advance(1000)
    usage.used('b')
    usage.used('a')
    expect(await usage.flush()()).to.deep.equal(E.right(2))
    expect(written).to.deep.equal([
      [
        { id: 'a', at: '2026-11-28T10:00:01.000Z' },
        { id: 'b', at: '2026-11-28T10:00:01.000Z' },
      ],
    ])
    expect(await usage.flush()()).to.deep.equal(E.right(0))
    expect(written).to.have.length(1)
  })

  it('keeps a failed batch for the next flush, a later use of the same key winning', async () => {
    usage.used('a')
    usage.used('b')
    failing = true
    expect(E.isLeft(await usage.flush()())).to.equal(true)
    clock.advance(5000)
    usage.used('b')
    failing = false
    expect(await usage.flush()()).to.deep.equal(E.right(2))
    expect(written).to.deep.equal([
      [
        { id: 'a', at: '2026-11-28T10:00:00.000Z' },
        { id: 'b', at: '2026-11-28T10:00:05.000Z' },
      ],
    ])
  })
})
