import { expect } from 'chai'
import { isServed, OPERATIONS } from '../src'

/** What the type of a descriptor cannot say about the list. */
describe('OPERATIONS', () => {
  const templateNames = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)

  it('declares each method and path once, and each operationId once', () => {
    const routes = OPERATIONS.map((op) => `${op.method} ${op.path}`)
    expect(new Set(routes).size, routes.join(', ')).to.equal(routes.length)
    const ids = OPERATIONS.filter(isServed).map((op) => op.operationId)
    expect(new Set(ids).size, ids.join(', ')).to.equal(ids.length)
  })

  it('declares a codec for exactly the parameters its path template names', () => {
    for (const op of OPERATIONS.filter(isServed)) expect(Object.keys(op.params ?? {}), op.operationId).to.deep.equal(templateNames(op.path))
  })

  it("keys a checkout-session limit by the path's {id}", () => {
    for (const op of OPERATIONS.filter((o) => o.rateLimit === 'checkout-session')) expect(templateNames(op.path), op.path).to.include('id')
  })
})
