/** What a periodic job reports to. */
export interface JobLog {
  warn(o: object, msg: string): void
}

/**
 * A job run at start and then every `everyMs`, one run at a time (a run still going when the
 * next is due makes that one wait its turn, not overlap). Each run is idempotent work over
 * what storage holds, so a process killed mid-run loses nothing: the next start runs it again.
 */
export class PeriodicJob {
  private timer: NodeJS.Timeout | null = null
  private running: Promise<void> | null = null

  constructor(
    private readonly name: string,
    private readonly everyMs: number,
    private readonly run: () => Promise<void>,
    private readonly log: JobLog,
  ) {}

  start(): void {
    if (this.timer !== null) return
    this.timer = setInterval(() => void this.tick(), this.everyMs)
    this.timer.unref()
    void this.tick()
  }

  private async tick(): Promise<void> {
    if (this.running !== null) return
    this.running = this.run().catch((e: unknown) => {
      this.log.warn({ job: this.name, err: e instanceof Error ? e.message : String(e) }, `${this.name} failed; it runs again later`)
    })
    await this.running
    this.running = null
  }

  /** Starts no more runs and waits for the one in flight. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer)
    this.timer = null
    await this.running
  }
}
