import { token } from './token'

/** Time comes through a port so rules and tests stay deterministic. */
export interface Clock {
  now(): Date
}
export const Clock = token<Clock>('Clock')

/** Identifiers come through a port for the same reason. */
export interface IdGenerator {
  /** A random (v4) UUID. */
  uuid(): string
}
export const IdGenerator = token<IdGenerator>('IdGenerator')

/** Randomness for rules that need it (retry jitter), through a port so tests can fix it. */
export interface Random {
  /** A number in [0, 1). */
  fraction(): number
}
export const Random = token<Random>('Random')
