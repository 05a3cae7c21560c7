import { AuditedResource, AuditLogAction, AuditLogEntry, canonicalUuid, pageOf } from '@orka/domain'
import { defineOperation } from './operation'
import { PAGE_QUERY } from './page'

/** Entries are written by the changes themselves: the API only reads them. */
export const listAuditLogs = defineOperation({
  method: 'GET',
  path: '/audit-logs',
  scope: 'audit-logs.read',
  operationId: 'list_audit_logs',
  doc: {
    tag: {
      name: 'Audit logs',
      description: 'Who changed what, and when: one entry per change made through the API or the CLI, never card data or secrets.',
    },
    summary: 'List audit log entries',
    description:
      "Lists the merchant account's audit log entries, newest first: each change made through the API (buyers, gift cards, payment " +
      'methods, webhook subscriptions and deliveries, checkout sessions, transactions and refunds) with the API key pair that made it. ' +
      'Entries are kept `AUDIT_RETENTION_DAYS` and cannot be changed or deleted. A cursor only serves the filters it was issued with.',
  },
  query: {
    ...PAGE_QUERY,
    action: { codec: AuditLogAction, description: 'Only the entries of this action.' },
    user_id: { codec: canonicalUuid, description: 'Only the entries of the API key pair with this ID.' },
    resource_type: { codec: AuditedResource, description: 'Only the entries about resources of this type.' },
  },
  success: { status: 200, codec: pageOf('AuditLogEntries', AuditLogEntry), description: 'A page of audit log entries.' },
  handle: (u) => (req) => {
    const { action, user_id, resource_type, ...page } = req.query
    return u.listAuditLogs({
      merchantAccountId: req.access.merchantAccount.id,
      filter: {
        ...(action === undefined ? {} : { action }),
        ...(user_id === undefined ? {} : { user_id }),
        ...(resource_type === undefined ? {} : { resource_type }),
      },
      ...page,
    })
  },
})

export const AUDIT_LOG_OPERATIONS = [listAuditLogs]
