import { pageOf, Role } from '@orka/domain'
import { defineOperation } from './operation'
import { PAGE_QUERY } from './page'

/** Cursors are bound to the merchant account. */
export const listRoles = defineOperation({
  method: 'GET',
  path: '/roles',
  scope: 'roles.read',
  operationId: 'list_roles',
  doc: {
    tag: { name: 'Roles', description: 'The role catalogue: what an API key may be allowed to do.' },
    summary: 'List all roles',
    description: 'Lists the roles available in the instance, by slug.',
  },
  query: PAGE_QUERY,
  success: { status: 200, codec: pageOf('Roles', Role), description: 'A page of roles.' },
  handle: (u) => (req) => u.listRoles({ merchantAccountId: req.access.merchantAccount.id, ...req.query }),
})

export const ROLE_OPERATIONS = [listRoles]
