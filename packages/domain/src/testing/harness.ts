import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { expect } from 'chai'

/**
 * What a contract suite gets for each test: a fresh port instance (a fresh database for a
 * persistent adapter) and a way to dispose of it.
 */
export type Harness<P, Extra = object> = { readonly port: P; teardown(): Promise<void> } & Extra

/**
 * Disposes of the harness a suite's `beforeEach` made. It takes `undefined` because the suite's
 * `let h: Harness<P>` is still unassigned, whatever its declared type says, when setup failed.
 */
export const teardownHarness = async (h: Harness<unknown> | undefined): Promise<void> => {
  await h?.teardown()
}

const show = (u: unknown) => {
  try {
    return JSON.stringify(u)
  } catch {
    return String(u)
  }
}

/** Runs the task and returns its success value; a failure fails the test with the error shown. */
export const right = async <A>(te: TE.TaskEither<unknown, A>): Promise<A> => {
  const r = await te()
  if (E.isLeft(r)) return expect.fail(`expected Right, got Left ${show(r.left)}`)
  return r.right
}

/** Runs the task and returns its failure; a success fails the test. */
export const left = async <L>(te: TE.TaskEither<L, unknown>): Promise<L> => {
  const r = await te()
  if (E.isRight(r)) return expect.fail(`expected Left, got Right ${show(r.right)}`)
  return r.left
}

/** Ascending by the given string, for comparing sets whose order the port leaves open. */
export const sortedBy =
  <A>(key: (a: A) => string) =>
  (as: readonly A[]): A[] =>
    [...as].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))

/** The value, failing the test when it is null or undefined: for what the test has just stored or claimed. */
export const present = <A>(a: A | null | undefined, what = 'a value'): A => {
  if (a === null || a === undefined) return expect.fail(`expected ${what}, got ${String(a)}`)
  return a
}

/** `as[i]`, failing the test when there is no such element. */
export const at = <A>(as: readonly A[], i: number): A => {
  const a = as[i]
  if (a === undefined) return expect.fail(`no element at ${i} of ${as.length}`)
  return a
}
