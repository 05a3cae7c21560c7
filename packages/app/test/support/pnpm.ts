import { spawnSync } from 'node:child_process'

/** pnpm as `scripts/run` finds it: on the PATH, else through npx at the workspace's version. */
export const hasPnpm = (): boolean => spawnSync('sh', ['-c', 'command -v pnpm'], { stdio: 'ignore' }).status === 0
export const PNPM_VERSION = '10.34.8'
