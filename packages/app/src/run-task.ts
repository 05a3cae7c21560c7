import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'

/** Start-up and CLI code has no caller to return a failure to: a Left becomes an exception. */
export const runTask = async <A>(task: TE.TaskEither<unknown, A>, what: string): Promise<A> => {
  const r = await task()
  if (E.isRight(r)) return r.right
  const e = r.left as { _tag?: string; cause?: unknown }
  throw new Error(`${what} failed: ${e._tag ?? 'error'}${e.cause instanceof Error ? `: ${e.cause.message}` : ''}`, { cause: e.cause ?? e })
}
