import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus } from 'node:os'

/** What the figures were measured on, and how the CPUs are shared between servers and the load generator. */
export interface Machine {
  readonly cores: number
  readonly cpuModel: string
  readonly node: string
  readonly date: string
  /** `taskset -c` lists; undefined: not pinned (no taskset, or a single CPU). */
  readonly serverCpus: string | undefined
  readonly generatorCpus: string | undefined
}

/** The CPUs this process may run on (`Cpus_allowed_list`, e.g. `0-3,6`), else 0..n-1. */
const allowedCpus = (): number[] => {
  try {
    const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]
    if (list !== undefined)
      return list.split(',').flatMap((part) => {
        const [a, b] = part.split('-').map(Number)
        if (a === undefined || Number.isNaN(a)) return []
        const end = b === undefined || Number.isNaN(b) ? a : b
        return Array.from({ length: end - a + 1 }, (_, k) => a + k)
      })
  } catch {
    // not Linux: fall through
  }
  return cpus().map((_, i) => i)
}

export const hasCommand = (name: string): boolean => spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0

export const describeMachine = (): Machine => {
  const allowed = allowedCpus()
  const half = Math.floor(allowed.length / 2)
  const pin = hasCommand('taskset') && allowed.length >= 2
  return {
    cores: allowed.length,
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU',
    node: process.version,
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    // Servers get the first half, the generator the rest: on 2 cores, CPU 0 and CPU 1.
    serverCpus: pin ? allowed.slice(0, half).join(',') : undefined,
    generatorCpus: pin ? allowed.slice(half).join(',') : undefined,
  }
}

export const machineLine = (m: Machine): string => `${m.cores} cores (${m.cpuModel}), Node ${m.node}, ${m.date}`

export const pinningLine = (m: Machine): string =>
  m.serverCpus === undefined
    ? 'not pinned: taskset is missing or there is a single CPU, so servers and the load generator share every core'
    : `pinned with taskset -c: servers and references on CPU ${m.serverCpus}, load generator on CPU ${m.generatorCpus}`

/** Clock ticks per second of /proc (USER_HZ; 100 on Linux). */
const TICKS = 100

export interface CpuMark {
  readonly at: number
  /** CPU time the whole machine spent busy (not idle, not waiting for I/O), in ticks. */
  readonly busy: number
  /** CPU time of this process and of its children that have ended, in ticks. */
  readonly mine: number
}

export const cpuMark = (): CpuMark => {
  const f = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number)
  const total = f.reduce((a, b) => a + b, 0)
  const self = readFileSync('/proc/self/stat', 'utf8')
  const fields = self
    .slice(self.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number)
  // utime, stime, cutime, cstime: fields 14 to 17 of stat, 11 to 14 after the command name.
  const mine = (fields[11] ?? 0) + (fields[12] ?? 0) + (fields[13] ?? 0) + (fields[14] ?? 0)
  return { at: performance.now(), busy: total - (f[3] ?? 0) - (f[4] ?? 0), mine }
}

/**
 * Share of the machine's CPU time used by processes that are not the bench's between two marks
 * (taken when every process the bench started meanwhile has ended).
 */
export const othersShare = (a: CpuMark, b: CpuMark, cores: number): number => {
  const capacity = ((b.at - a.at) / 1000) * TICKS * cores
  return capacity <= 0 ? 0 : Math.max(0, (b.busy - a.busy - (b.mine - a.mine)) / capacity)
}
