import { expect } from 'chai'
import { ROLE_CATALOGUE } from '@orka/domain'
import { ErrorBody, errorBody, Harness, Page, startHarness, ValidationErrorBody } from '../support/harness'

type RolePage = Page<{ readonly slug: string }>

const bySlug = [...ROLE_CATALOGUE].sort((a, b) => (a.slug < b.slug ? -1 : 1))

describe('GET /roles', () => {
  let h: Harness
  before(async () => {
    h = await startHarness()
  })
  after(() => h.close())

  it('lists the catalogue with the default limit of 20, no cursors on a single page', async () => {
    const r = await h.request('GET', '/roles')
    expect(r.status).to.equal(200)
    expect(r.body).to.deep.equal({ items: bySlug, limit: 20, next_cursor: null, previous_cursor: null })
    expect(bySlug.map((x) => x.slug)).to.include.members(['administrator', 'read-only'])
  })

  it('walks forward page by page, then back, getting the same pages', async () => {
    const forward: RolePage[] = []
    let r = await h.request<RolePage>('GET', '/roles?limit=1')
    expect(r.body.previous_cursor).to.equal(null)
    forward.push(r.body)
    while (r.body.next_cursor) {
      r = await h.request<RolePage>('GET', `/roles?limit=1&cursor=${encodeURIComponent(r.body.next_cursor)}`)
      expect(r.status).to.equal(200)
      forward.push(r.body)
    }
    expect(forward.map((p) => p.items[0]!.slug)).to.deep.equal(bySlug.map((x) => x.slug))
    expect(forward[forward.length - 1]!.next_cursor).to.equal(null)
    let page = forward[forward.length - 1]!
    const backward = [page]
    while (page.previous_cursor) {
      const b = await h.request<RolePage>('GET', `/roles?limit=1&cursor=${encodeURIComponent(page.previous_cursor)}`)
      page = b.body
      backward.unshift(page)
    }
    expect(backward.map((p) => p.items)).to.deep.equal(forward.map((p) => p.items))
    expect(backward[0]!.previous_cursor).to.equal(null)
  })

  it('keeps limit and items consistent for a page of 3', async () => {
    const r = await h.request<RolePage>('GET', '/roles?limit=3')
    expect(r.body.items).to.deep.equal(bySlug.slice(0, 3))
    expect(r.body.limit).to.equal(3)
    const next = await h.request<RolePage>('GET', `/roles?limit=3&cursor=${encodeURIComponent(r.body.next_cursor!)}`)
    expect(next.body.items).to.deep.equal(bySlug.slice(3, 6))
  })

  for (const [limit, type] of [
    ['0', 'greater_than_equal'],
    ['101', 'less_than_equal'],
    ['abc', 'int_type'],
    ['1.5', 'int_type'],
  ])
    it(`rejects limit=${limit} with 422 on the query`, async () => {
      const r = await h.request<ValidationErrorBody>('GET', `/roles?limit=${limit}`)
      expect(r.status).to.equal(422)
      expect(r.body.detail).to.have.length(1)
      expect(r.body.detail[0]).to.include({ type })
      expect(r.body.detail[0]!.loc).to.deep.equal(['query', 'limit'])
    })

  it('rejects a tampered cursor with 400 pointing at the cursor', async () => {
    const first = await h.request<RolePage>('GET', '/roles?limit=1')
    const cursor = first.body.next_cursor!
    const [body, mac] = cursor.split('.')
    const forged = Buffer.from(JSON.stringify(['f', 'zzz', '00000000-0000-4000-8000-000000000000'])).toString('base64url')
    for (const bad of [`${forged}.${mac}`, `${body}.${mac!.slice(0, -2)}AA`, 'not-a-cursor']) {
      const r = await h.request('GET', `/roles?limit=1&cursor=${encodeURIComponent(bad)}`)
      expect(r.status).to.equal(400)
      expect(r.body).to.deep.equal(
        errorBody(400, [
          {
            location: 'query',
            pointer: '/cursor',
            message: 'The cursor is not valid for this list; use a cursor from the previous response',
            type: 'invalid_cursor',
          },
        ]),
      )
    }
  })

  it('refuses a cursor replayed against another merchant account', async () => {
    const first = await h.request<RolePage>('GET', '/roles?limit=1')
    const r = await h.request<ErrorBody>('GET', `/roles?limit=1&cursor=${encodeURIComponent(first.body.next_cursor!)}`, {
      merchantAccount: 'acme',
    })
    expect(r.status).to.equal(400)
    expect(r.body.details[0]!.pointer).to.equal('/cursor')
  })

  it('needs roles.read', async () => {
    const r = await h.request('GET', '/roles', { auth: h.token('admin', { scopes: ['buyers.read'] }) })
    expect(r.status).to.equal(403)
    expect(r.body).to.deep.equal(errorBody(403))
  })
})
