import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { invalidRequest, makeListRoles, Page, problem, Role, ROLE_CATALOGUE } from '@orka/domain'
import { aRole, left, MERCHANT_A, MERCHANT_B, right } from '@orka/domain/testing'
import { MemoryRoleRepository } from '../../src'
import { testMac } from './support'

const badCursor = invalidRequest(
  problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor'),
)

describe('makeListRoles', () => {
  const extra = ['auditor', 'billing-viewer', 'checkout-designer', 'developer', 'payouts-manager', 'refund-operator', 'support-agent'].map(
    (slug) => aRole({ slug, name: slug }),
  )
  const all = [...ROLE_CATALOGUE, ...extra].sort((a, b) => (a.slug < b.slug ? -1 : 1))

  const setup = async () => {
    const roles = new MemoryRoleRepository()
    for (const r of [...extra, ...ROLE_CATALOGUE]) await right(roles.upsert(r))
    return makeListRoles({ roles, mac: testMac() })
  }

  it('lists the whole catalogue by slug on one default page', async () => {
    const list = await setup()
    expect(await right(list({ merchantAccountId: MERCHANT_A }))).to.deep.equal({
      items: all,
      limit: 20,
      next_cursor: null,
      previous_cursor: null,
    })
  })

  it('walks forward then back through identical pages', async () => {
    const list = await setup()
    const forward: Page<Role>[] = [await right(list({ merchantAccountId: MERCHANT_A, limit: 3 }))]
    while (forward[forward.length - 1]!.next_cursor !== null)
      forward.push(await right(list({ merchantAccountId: MERCHANT_A, limit: 3, cursor: forward[forward.length - 1]!.next_cursor! })))

    expect(forward.map((p) => p.items.map((r) => r.slug))).to.deep.equal([0, 3, 6, 9].map((i) => all.slice(i, i + 3).map((r) => r.slug)))
    expect(forward[0]!.previous_cursor).to.equal(null)
    expect(forward[3]!.next_cursor).to.equal(null)

    const back: Page<Role>[] = [forward[3]!]
    while (back[back.length - 1]!.previous_cursor !== null)
      back.push(await right(list({ merchantAccountId: MERCHANT_A, limit: 3, cursor: back[back.length - 1]!.previous_cursor! })))
    // Walking back from page 4 returns pages 3, 2 and 1, cursors included.
    expect(back.slice(1)).to.deep.equal(forward.slice(0, 3).reverse())
  })

  it('rejects a tampered cursor', async () => {
    const list = await setup()
    const cursor = (await right(list({ merchantAccountId: MERCHANT_A, limit: 2 }))).next_cursor!
    const [body, mac] = cursor.split('.') as [string, string]
    const forged = Buffer.from(JSON.stringify(['f', 'a', '0'])).toString('base64url')
    for (const bad of [`${forged}.${mac}`, `${body}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, body, 'not-a-cursor', `.${mac}`])
      expect(await left(list({ merchantAccountId: MERCHANT_A, limit: 2, cursor: bad })), bad).to.deep.equal(badCursor)
  })

  it("rejects another merchant account's cursor", async () => {
    const list = await setup()
    const theirs = (await right(list({ merchantAccountId: MERCHANT_B, limit: 2 }))).next_cursor!
    expect(await list({ merchantAccountId: MERCHANT_A, limit: 2, cursor: theirs })()).to.deep.equal(E.left(badCursor))
  })

  it('pages of one item reach every role exactly once', async () => {
    const list = await setup()
    const seen: string[] = []
    let cursor: string | undefined
    do {
      const page = await right(list({ merchantAccountId: MERCHANT_A, limit: 1, ...(cursor ? { cursor } : {}) }))
      seen.push(...page.items.map((r) => r.slug))
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined)
    expect(seen).to.deep.equal(all.map((r) => r.slug))
  })
})
