import * as t from 'io-ts'
import { DateTime } from '../buyers/buyer'
import { SortKey } from '../pagination/page'
import { bool, closed, literal, nullable, oneOf, str } from '../shared/codecs'

/** What was done to the resource. `revoked` is an API key pair's, done with the CLI. */
export const AUDIT_ACTIONS = ['created', 'updated', 'deleted', 'voided', 'canceled', 'captured', 'revoked'] as const
export const AuditLogAction = oneOf('AuditLogAction', AUDIT_ACTIONS)
export type AuditLogAction = t.TypeOf<typeof AuditLogAction>

/** The resource types entries name: a bounded set, the `resource_type` filter's values. */
export const AUDITED_RESOURCES = [
  'buyer',
  'shipping-details',
  'gift-card',
  'payment-method',
  'webhook-subscription',
  'webhook-delivery',
  'checkout-session',
  'transaction',
  'refund',
  'api-key-pair',
  'payment-service',
  'merchant-account',
] as const
export const AuditedResource = oneOf('AuditedResource', AUDITED_RESOURCES)
export type AuditedResource = t.TypeOf<typeof AuditedResource>

/**
 * Who made a change: the API key pair that signed the request's token (its id, a name derived
 * from its `kid`), or the CLI (no id). Keys are the only users Orka has, hence `is_staff` false
 * and `status` active.
 */
export interface AuditActor {
  readonly id: string | null
  readonly name: string
}

export const AuditLogEntryUser = closed('AuditLogEntryUser', {
  type: literal('user'),
  id: nullable(str),
  name: str,
  email_address: nullable(str),
  is_staff: bool,
  status: literal('active'),
})

export const AuditLogEntryResource = closed('AuditLogEntryResource', { type: AuditedResource, id: str, name: str })
export type AuditLogEntryResource = t.TypeOf<typeof AuditLogEntryResource>

/**
 * An entry as `GET /audit-logs` answers it: never card data, secrets or request bodies. An
 * update that knows what it changed names it in `changes` (`display_name`, `fields.api_key`):
 * the names only, never a value. The original API has no such key; its SDK ignores it.
 */
export const AuditLogEntry = closed(
  'AuditLogEntry',
  {
    type: literal('audit-log'),
    id: str,
    merchant_account_id: nullable(str),
    resource: AuditLogEntryResource,
    action: AuditLogAction,
    user: AuditLogEntryUser,
    timestamp: DateTime,
  },
  { changes: t.readonlyArray(str) },
)
export type AuditLogEntry = t.TypeOf<typeof AuditLogEntry>

/** What the relay looks at to tell whether a pending entry's change happened (see `PROBES` in `settle-audit.ts`). */
export const CHANGE_PROBES = [
  'buyer-present',
  'buyer-absent',
  'buyer-state',
  'shipping-details-present',
  'shipping-details-absent',
  'shipping-details-state',
  'gift-card-present',
  'gift-card-absent',
  'payment-method-present',
  'payment-method-absent',
  'payment-method-state',
  'webhook-subscription-present',
  'webhook-subscription-absent',
  'webhook-subscription-state',
  'webhook-delivery-redelivered',
  'checkout-session-present',
  'checkout-session-absent',
  'checkout-session-state',
  'transaction-present',
  'transaction-version',
  'capture-outcome',
  'void-outcome',
  'refund-present',
  'payment-service-present',
  'payment-service-absent',
  'payment-service-state',
  'api-key-pair-present',
  'api-key-pair-revoked',
  'api-key-pair-state',
  'merchant-account-present',
  'merchant-account-state',
] as const
export const ChangeProbe = oneOf('ChangeProbe', CHANGE_PROBES)
export type ChangeProbe = t.TypeOf<typeof ChangeProbe>

/**
 * How the relay tells, for an entry left pending by a process that stopped, whether its change
 * happened: `probe` reads the resource `id` names and compares it with `witness`. Never data the
 * entry must not hold: ids, timestamps, statuses, or a MAC of a state.
 */
export const ChangeCheck = t.type({ probe: ChangeProbe, id: str, witness: nullable(str) })
export type ChangeCheck = t.TypeOf<typeof ChangeCheck>

/**
 * An entry as stored. Written `pending` before its change, made `committed` once the change is
 * stored (or by the relay, which finds it stored), dropped when the change did not happen:
 * only committed entries are ever listed.
 */
export const AuditRecord = t.type({
  id: str,
  merchant_account_id: nullable(str),
  resource: t.type({ type: str, id: str, name: str }),
  action: str,
  user: t.type({ id: nullable(str), name: str }),
  timestamp: str,
  committed: t.boolean,
  check: nullable(ChangeCheck),
  /** What an update changed, by name: never a value. */
  changes: nullable(t.readonlyArray(str)),
})
export type AuditRecord = t.TypeOf<typeof AuditRecord>

export const auditSortKey = (r: AuditRecord): SortKey => [r.timestamp, r.id]

export const presentAuditEntry = (r: AuditRecord): AuditLogEntry => ({
  type: 'audit-log',
  id: r.id,
  merchant_account_id: r.merchant_account_id,
  resource: r.resource as AuditLogEntryResource,
  action: r.action as AuditLogAction,
  user: { type: 'user', id: r.user.id, name: r.user.name, email_address: null, is_staff: false, status: 'active' },
  timestamp: r.timestamp,
  ...(r.changes === null ? {} : { changes: r.changes }),
})

/** A request's user: the API key pair that signed its token, named by the start of its `kid` (what `orka keys list` shows). */
export const keyActor = (key: { readonly id: string; readonly thumbprint: string }): AuditActor => ({
  id: key.id,
  name: `API key ${key.thumbprint.slice(0, 8)}`,
})

/** Changes made with the `orka` CLI on the storage itself: no key signed them. */
export const CLI_ACTOR: AuditActor = { id: null, name: 'orka CLI' }
