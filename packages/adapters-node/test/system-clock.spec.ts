import { expect } from 'chai'
import { RandomIds, SystemClock } from '../src'

describe('clocks', () => {
  it('SystemClock tells the current time', () => {
    const before = Date.now()
    const now = new SystemClock().now().getTime()
    expect(now).to.be.within(before, Date.now())
  })
})

describe('id generators', () => {
  it('RandomIds gives distinct v4 UUIDs', () => {
    const ids = Array.from({ length: 100 }, () => new RandomIds().uuid())
    expect(new Set(ids).size).to.equal(100)
    for (const id of ids) expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  })
})
