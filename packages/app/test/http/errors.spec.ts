import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { ROLE_CATALOGUE, RoleRepository } from '@orka/domain'
import { errorBody, Harness, startHarness } from '../support/harness'

describe('routing and unexpected errors', () => {
  let h: Harness
  before(async () => {
    h = await startHarness({
      configure: (c) => {
        const failing: RoleRepository = {
          list: () => () => Promise.reject(new Error('disk on fire')),
          findBySlugs: (slugs) => TE.right(ROLE_CATALOGUE.filter((r) => slugs.includes(r.slug))),
          upsert: () => TE.right(undefined),
        }
        c.register(RoleRepository, { useValue: failing })
      },
    })
  })
  after(() => h.close())

  it('answers the health probes without a token', async () => {
    const alive = await h.request('GET', '/healthz', { auth: null })
    expect([alive.status, alive.body]).to.deep.equal([200, { status: 'ok' }])
    const ready = await h.request('GET', '/readyz', { auth: null })
    expect([ready.status, ready.body]).to.deep.equal([200, { status: 'ready', storage: 'memory' }])
  })

  it('answers 404 for an unknown route', async () => {
    const r = await h.request('GET', '/nothing-here')
    expect(r.status).to.equal(404)
    expect(r.body).to.deep.equal(errorBody(404))
  })

  it('answers 405 with Allow for a known route and another method', async () => {
    const r = await h.request('PATCH', '/roles')
    expect(r.status).to.equal(405)
    expect(r.body).to.deep.equal(errorBody(405))
    expect(r.headers.get('allow')).to.include('GET')
    const d = await h.request('PUT', '/gift-cards/activations')
    expect(d.status).to.equal(405)
    expect(d.headers.get('allow')).to.include('POST')
  })

  it('answers 500 without leaking anything, and logs the stack', async () => {
    const r = await h.request('GET', '/roles')
    expect(r.status).to.equal(500)
    expect(r.body).to.deep.equal(errorBody(500))
    expect(r.text).not.to.include('disk on fire')
    expect(h.logs.join('\n')).to.include('disk on fire')
  })
})
