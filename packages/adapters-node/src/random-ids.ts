import { randomUUID } from 'node:crypto'
import { IdGenerator } from '@orka/domain'

export class RandomIds implements IdGenerator {
  uuid(): string {
    return randomUUID()
  }
}
