import { Clock, Random } from '@orka/domain'

export class SystemClock implements Clock {
  now(): Date {
    return new Date()
  }
}

export class MathRandom implements Random {
  fraction(): number {
    return Math.random()
  }
}
