import { randomUUID } from 'node:crypto'
import { IdGenerator } from '@orka/domain'

export class RandomIds implements IdGenerator {
  uuid(): string {
    return randomUUID()
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
