import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Role, roleSortKey } from '../../src/roles/role'
import { ROLE_CATALOGUE } from '../../src/roles/role-catalogue'
import { makeListRoles } from '../../src/roles/list-roles'
import { RoleRepository } from '../../src/roles/roles.ports'
import { invalidRequest, problem } from '../../src/shared/errors'
import { fakeMac } from '../helpers'

const cmp = (a: readonly [string, string], b: readonly [string, string]) =>
  a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0
const sorted = [...ROLE_CATALOGUE].sort((a, b) => cmp(roleSortKey(a), roleSortKey(b)))
const roles: RoleRepository = {
  list: (seek) => {
    const from = seek.from
    const found =
      seek.direction === 'forward'
        ? sorted.filter((r) => O.isNone(from) || cmp(roleSortKey(r), from.value) > 0)
        : [...sorted].reverse().filter((r) => O.isNone(from) || cmp(roleSortKey(r), from.value) < 0)
    return TE.right(found.slice(0, seek.limit))
  },
  findBySlugs: () => TE.right([]),
  upsert: () => TE.right(undefined),
}
const listRoles = makeListRoles({ roles, mac: fakeMac() })

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
