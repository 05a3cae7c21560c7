import { expect } from 'chai'
import { FixedClock, ManualClock, RandomIds, SequentialIds, SystemClock } from '../src'
import { uuid } from '@orka/domain'

describe('clocks', () => {
  it('SystemClock tells the current time', () => {
    const before = Date.now()
    const now = new SystemClock().now().getTime()
    expect(now).to.be.within(before, Date.now())
  })

  it('FixedClock always tells the same instant, unaffected by mutating what it returned', () => {
    const clock = new FixedClock(new Date('2025-01-15T10:00:00.000Z'))
    clock.now().setUTCFullYear(1999)
    expect(clock.now().toISOString()).to.equal('2025-01-15T10:00:00.000Z')
  })

  it('ManualClock moves only when set or advanced', () => {
    const start = new Date('2025-01-15T10:00:00.000Z')
    const clock = new ManualClock(start)
    start.setUTCFullYear(1999)
    clock.now().setUTCFullYear(1999)
    expect(clock.now().toISOString()).to.equal('2025-01-15T10:00:00.000Z')
    clock.advance(59_999)
    expect(clock.now().toISOString()).to.equal('2025-01-15T10:00:59.999Z')
    clock.set(new Date('2026-02-01T00:00:00.000Z'))
    expect(clock.now().toISOString()).to.equal('2026-02-01T00:00:00.000Z')
    clock.advance(-1)
    expect(clock.now().toISOString()).to.equal('2026-01-31T23:59:59.999Z')
  })
})

describe('id generators', () => {
  it('RandomIds gives distinct v4 UUIDs', () => {
    const ids = Array.from({ length: 100 }, () => new RandomIds().uuid())
    expect(new Set(ids).size).to.equal(100)
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })

  it('SequentialIds counts up in valid UUIDs', () => {
    const ids = new SequentialIds()
    expect([ids.uuid(), ids.uuid(), ids.uuid()]).to.deep.equal([
      '00000000-0000-4000-8000-000000000001',
      '00000000-0000-4000-8000-000000000002',
      '00000000-0000-4000-8000-000000000003',
    ])
    expect(uuid.is(new SequentialIds('7a3f0c52-9d4e-4b1a-8c6d').uuid())).to.equal(true)
  })
})
