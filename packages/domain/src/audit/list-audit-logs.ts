import * as TE from 'fp-ts/TaskEither'
import { pipe } from 'fp-ts/function'
import { VersionFolds } from '../transactions/version-folds'
import { Page } from '../pagination/page'
import { paginate, PageQuery } from '../pagination/paginate'
import { Mac } from '../shared/crypto.ports'
import { InvalidRequest, Unavailable } from '../shared/errors'
import { AuditLogEntry, auditSortKey, presentAuditEntry } from './audit-entry'
import { AuditFilter, AuditLog } from './audit.ports'

/**
 * The account's committed entries, newest first; the filters are part of the cursor's scope.
 * This process's queued folds are written first, so a change it answered is listed at once.
 */
export const makeListAuditLogs =
  (deps: { audit: AuditLog; folds: Pick<VersionFolds, 'flush'>; mac: Mac }) =>
  (q: PageQuery & { merchantAccountId: string; filter: AuditFilter }): TE.TaskEither<InvalidRequest | Unavailable, Page<AuditLogEntry>> =>
    pipe(
      deps.folds.flush(),
      TE.flatMap(() =>
        TE.map((page: Page<Parameters<typeof presentAuditEntry>[0]>) => ({ ...page, items: page.items.map(presentAuditEntry) }))(
          paginate(
            deps,
            `audit-logs\u0000${q.merchantAccountId}\u0000${JSON.stringify([q.filter.action ?? null, q.filter.user_id ?? null, q.filter.resource_type ?? null])}`,
            auditSortKey,
            (seek) => deps.audit.list(q.merchantAccountId, q.filter, seek),
          )(q),
        ),
      ),
    )
