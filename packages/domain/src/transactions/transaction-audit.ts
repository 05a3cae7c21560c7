import { AuditRecord } from '../audit/audit-entry'
import { ChangeOutcome } from '../audit/record-audited'
import { TransactionRecord } from './transaction'
import { TransactionDeps } from './transaction-deps'

/**
 * Queues the fold of the entries `r` was written with (see `AuditFolds`): called once the write
 * is known to have stored it. `outcomes`: what the writer knows of entries written pending.
 */
export const foldLater = (
  deps: Pick<TransactionDeps, 'auditFolds'>,
  r: TransactionRecord,
  records: readonly AuditRecord[],
  outcomes?: ReadonlyMap<string, ChangeOutcome>,
): void =>
  deps.auditFolds.later({
    version: { merchantAccountId: r.merchant_account_id, transactionId: r.id, version: r.version },
    records,
    ...(outcomes === undefined ? {} : { outcomes }),
  })
