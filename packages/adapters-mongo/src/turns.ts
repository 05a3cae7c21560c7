/**
 * Per key, the end of this process's queue of calls: calls for one key take turns here, so they
 * race only other instances. Correctness never rests on it; it turns N racing calls in one
 * process into N rounds, and keeps FerretDB's non-atomic updates from losing each other's writes
 * within a process.
 */
export class Turns {
  readonly #ends = new Map<string, Promise<unknown>>()

  /** Runs `f` after this process's earlier calls for `key` have ended, however they ended. */
  run<A>(key: string, f: () => Promise<A>): Promise<A> {
    // A turn never rejects (below), so `f` runs once the one before has ended.
    const run = (this.#ends.get(key) ?? Promise.resolve()).then(f)
    const turn = run.then(
      () => undefined,
      () => undefined,
    )
    this.#ends.set(key, turn)
    void turn.then(() => {
      if (this.#ends.get(key) === turn) this.#ends.delete(key)
    })
    return run
  }
}
