import * as t from 'io-ts'
import { bool, closed, literal, oneOf, str, uuid } from '../shared/codecs'
import { SortKey } from '../pagination/page'

export const RoleAssigneeType = oneOf('RoleAssigneeType', ['user', 'api-key-pair'] as const)

export const PermissionSet = closed('PermissionSet', { allow: t.array(str) })

/** A role of the instance's catalogue: the wire shape of `GET /roles` items. */
export const Role = closed('Role', {
  type: literal('role'),
  id: uuid,
  name: str,
  slug: str,
  description: str,
  permissions: PermissionSet,
  assignable_to: t.array(RoleAssigneeType),
  applies_to: t.array(str),
  is_standalone_assignable: bool,
})
export type Role = t.TypeOf<typeof Role>

/** Roles are listed by slug (unique), id breaking any tie. */
export const roleSortKey = (r: Role): SortKey => [r.slug, r.id]
