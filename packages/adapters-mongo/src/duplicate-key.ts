import { MongoBulkWriteError } from 'mongodb'

const DUPLICATE_KEY_CODES = new Set([11000, 11001, 12582])

/**
 * A unique-index violation. FerretDB 1.24 reports one raised by an update (not an insert) as an
 * InternalError, code 1, carrying PostgreSQL's message, where MongoDB says 11000.
 */
export const isDuplicateKey = (e: unknown): boolean => {
  if (typeof e !== 'object' || e === null) return false
  const { code, message } = e as { code?: unknown; message?: unknown }
  if (typeof code === 'number' && DUPLICATE_KEY_CODES.has(code)) return true
  return code === 1 && typeof message === 'string' && /duplicate key|unique constraint|SQLSTATE 23505/i.test(message)
}

/**
 * An unordered bulk insert that failed only because some documents' keys exist already: every
 * other document was inserted, and no write concern error came with it.
 */
export const onlyDuplicateKeys = (e: unknown): boolean => {
  if (!(e instanceof MongoBulkWriteError)) return false
  const errors = e.result.getWriteErrors()
  return (
    errors.length > 0 &&
    errors.every((w) => isDuplicateKey({ code: w.code, message: w.errmsg })) &&
    e.result.getWriteConcernError() === undefined
  )
}
