import { expect } from 'chai'
import { isServed, OPERATIONS } from '../src'
import { SESSION_PARAM } from '../src/middleware/rate-limit'

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

  it("keys a checkout-session limit by the path's {session_id}", () => {
    const limited = OPERATIONS.filter((o) => o.rateLimit === 'checkout-session')
    expect(limited.map((o) => `${o.method} ${o.path}`)).to.deep.equal([
      'PUT /checkout/sessions/{session_id}/fields',
      'POST /checkout/sessions/{session_id}/fields',
    ])
    for (const op of limited) expect(templateNames(op.path), op.path).to.include(SESSION_PARAM)
  })

  it('serves requests without a token only on the Secure Fields routes', () => {
    const optional = OPERATIONS.filter(isServed).filter((o) => o.tokenOptional === true)
    expect(optional.map((o) => o.operationId)).to.deep.equal(['update_checkout_session_fields', 'submit_checkout_session_fields'])
  })
})
