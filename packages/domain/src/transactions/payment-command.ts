import { AuditActor } from '../audit/audit-entry'
import { Answered, IdempotencyRefusal } from '../idempotency/run-idempotently'
import { EmbedClaim } from '../reach/embed-claim'
import { Conflict, Forbidden, InvalidRequest, NotFound, Unavailable } from '../shared/errors'
import { Transaction } from './transaction.codecs'
import { TransactionCreate } from './transaction-requests.codecs'

export type CreateTransactionError = InvalidRequest | Forbidden | NotFound | Conflict | IdempotencyRefusal | Unavailable

export interface CreateTransactionCommand {
  readonly merchantAccountId: string
  readonly actor: AuditActor
  readonly input: TransactionCreate
  readonly idempotencyKey: string | null
  /** For an `embed` token: the buyer and the values its claim pins; a server's command has neither. */
  readonly embed: EmbedClaim | null
}

/** The created transaction (whatever its status: a decline is a transaction too), and whether it is a replay. */
export type Created = Answered<Transaction>

export const CREATE_TRANSACTION = 'transaction-create'
