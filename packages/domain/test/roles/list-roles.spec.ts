import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { Role } from '../../src/roles/role'
import { makeListRoles } from '../../src/roles/list-roles'
import { invalidRequest, problem } from '../../src/shared/errors'
import { catalogueRoles, fakeMac } from '../../src/testing/doubles'

const listRoles = makeListRoles({ roles: catalogueRoles, mac: fakeMac() })

describe('makeListRoles', () => {
  it('lists roles by slug', async () => {
    const r = await listRoles({ merchantAccountId: 'acme' })()
    expect(E.isRight(r) && r.right.items.map((x: Role) => x.slug)).to.deep.equal([
      'administrator',
      'gift-card-operator',
      'read-only',
      'webhook-manager',
    ])
  })

  it('accepts its own cursor for the same merchant account', async () => {
    const first = await listRoles({ merchantAccountId: 'acme', limit: 1 })()
    const cursor = E.isRight(first) ? first.right.next_cursor! : ''
    const second = await listRoles({ merchantAccountId: 'acme', limit: 1, cursor })()
    expect(E.isRight(second) && second.right.items.map((x) => x.slug)).to.deep.equal(['gift-card-operator'])
  })

  it('rejects a cursor issued to another merchant account', async () => {
    const first = await listRoles({ merchantAccountId: 'acme', limit: 1 })()
    const cursor = E.isRight(first) ? first.right.next_cursor! : ''
    expect(await listRoles({ merchantAccountId: 'globex', limit: 1, cursor })()).to.deep.equal(
      E.left(
        invalidRequest(
          problem('cursor', [], 'The cursor is not valid for this list; use a cursor from the previous response', 'invalid_cursor'),
        ),
      ),
    )
  })
})
