import { Clock, IdGenerator } from '../shared/clock'

/** A clock tests move by hand. Hands out fresh Dates, so a caller cannot move it by mutation. */
export class ManualClock implements Clock {
  private at: number
  constructor(start: Date) {
    this.at = start.getTime()
  }
  now(): Date {
    return new Date(this.at)
  }
  set(date: Date): void {
    this.at = date.getTime()
  }
  advance(ms: number): void {
    this.at += ms
  }
}

/** Predictable v4-shaped UUIDs (`…-000000000001`, `…-000000000002`, …) for tests. */
export class SequentialIds implements IdGenerator {
  private n = 0
  constructor(private readonly prefix = '00000000-0000-4000-8000') {}
  uuid(): string {
    return `${this.prefix}-${(++this.n).toString(16).padStart(12, '0')}`
  }
}
