import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Unavailable } from '@orka/domain'

export interface JobLog {
  info(o: object, msg?: string): void
  error(o: object, msg?: string): void
}

/**
 * Housekeeping every instance runs at start and then every `everyMs`, one run at a time. A run
 * must be idempotent: one cut short (a crash, a `kill -9`) is finished by the next, here after
 * a restart or in another instance meanwhile. A failed run is logged, never thrown.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined

  constructor(
    private readonly name: string,
    private readonly job: () => TE.TaskEither<Unavailable, number>,
    private readonly everyMs: number,
    private readonly log: JobLog,
  ) {}

  start(): void {
    if (this.timer !== undefined) return
    this.timer = setInterval(() => void this.tick(), this.everyMs)
    this.timer.unref()
    void this.tick()
  }

  /** Starts no more runs and waits for the one under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer)
    this.timer = undefined
    await this.running
  }

  /** One run now, or the one under way; resolves when it is done. */
  tick(): Promise<void> {
    this.running ??= this.runOnce().finally(() => {
      this.running = undefined
    })
    return this.running
  }

  private async runOnce(): Promise<void> {
    const r = await this.job()()
    if (E.isLeft(r)) {
      const cause = r.left.cause instanceof Error ? r.left.cause.message : String(r.left.cause)
      this.log.error({ job: this.name, err: cause }, `${this.name} failed; the next run finishes it`)
    } else if (r.right > 0) this.log.info({ job: this.name, count: r.right }, this.name)
  }
}
