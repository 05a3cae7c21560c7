import { expect } from 'chai'
import { ADAPTERS_MONGO_AVAILABLE } from '../src'

describe('adapters-mongo', () => {
  it('declares itself not yet available, so the app refuses MONGODB_URI instead of silently using memory', () => {
    expect(ADAPTERS_MONGO_AVAILABLE).to.equal(false)
  })
})
