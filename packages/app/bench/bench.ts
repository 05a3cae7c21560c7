import { Machine } from './machine'

/** What every case needs: the machine, the run's settings, a scratch directory and the API key. */
export interface Bench {
  readonly machine: Machine
  /** Seconds per measured run (`BENCH_SECONDS`). */
  readonly seconds: number
  readonly connections: number
  /** Scratch directory: seed files, token files, logs. */
  readonly dir: string
  /** wrk sends the load when the machine has it. */
  readonly wrk: boolean
  /** The bench's API key pair (administrator, every account). */
  readonly key: {
    readonly privateKeyPem: string
    readonly publicKeyPem: string
    readonly privateKeyFile: string
    readonly publicKeyFile: string
  }
  /** A reused token: every read and write scope. */
  readonly token: string
  /** Embed tokens (with `roles.read`), one per line, minted before the cases: each used once per server. */
  readonly freshTokens: { readonly file: string; readonly count: number; readonly mintSeconds: number }
  /** Fresh tokens sent by case 4 (`BENCH_FRESH_TOKENS`). */
  readonly freshTokenRun: number
  /** Distinct tokens sent through the limiter by case 7 (`BENCH_LIMITER_TOKENS`). */
  readonly limiterTokenRun: number
  /** Where the MongoDB cases run, or why they cannot. */
  readonly mongo: { readonly uri: string; readonly description: string } | { readonly missing: string }
}
