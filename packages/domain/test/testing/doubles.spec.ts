import { expect } from 'chai'
import { uuid } from '../../src/shared/codecs'
import { ManualClock, SequentialIds } from '../../src/testing/doubles'

describe('test clocks', () => {
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

describe('test id generators', () => {
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
