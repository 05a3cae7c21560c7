import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { InvalidRequest } from '@orka/domain'

/** A refusal of the use cases, as one line: each problem's place and message (never a value it was sent). */
export const refusalOf = (e: InvalidRequest): string => e.problems.map((p) => `${['', ...p.path].join('/')}: ${p.message}`).join('; ')

/** Start-up and CLI code has no caller to return a failure to: a Left becomes an exception. */
export const runTask = async <A>(task: TE.TaskEither<unknown, A>, what: string): Promise<A> => {
  const r = await task()
  if (E.isRight(r)) return r.right
  const e = r.left as { _tag?: string; cause?: unknown }
  if (e._tag === 'InvalidRequest') throw new Error(`${what}: ${refusalOf(e as InvalidRequest)}`)
  throw new Error(`${what} failed: ${e._tag ?? 'error'}${e.cause instanceof Error ? `: ${e.cause.message}` : ''}`, { cause: e.cause ?? e })
}
