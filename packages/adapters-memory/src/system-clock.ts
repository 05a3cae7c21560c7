import { Clock, Random } from '@orka/domain'

export class SystemClock implements Clock {
  now(): Date {
    return new Date()
  }
}

/** Always the same instant. */
export class FixedClock implements Clock {
  private readonly at: number
  constructor(at: Date) {
    this.at = at.getTime()
  }
  now(): Date {
    return new Date(this.at)
  }
}

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

export class MathRandom implements Random {
  fraction(): number {
    return Math.random()
  }
}
