import { ChildProcess, spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

/** A run that cannot give a figure we trust: the bench prints FAILED and exits non-zero. */
export class BenchFailure extends Error {
  override readonly name = 'BenchFailure'
}

/** A case that cannot run here: printed as `not measured: <why>`. */
export class NotMeasured extends Error {
  override readonly name = 'NotMeasured'
}

/** Compiled scripts: this file lives in `dist/bench/`. */
export const BENCH_DIR = __dirname
/** The Orka build under test: this one, or `BENCH_ORKA` (another build's `dist/src/main.js`, to compare builds). */
export const ORKA_MAIN =
  process.env.BENCH_ORKA === undefined || process.env.BENCH_ORKA === '' ? join(__dirname, '..', 'src', 'main.js') : process.env.BENCH_ORKA
export const REPO_ROOT = join(__dirname, '..', '..', '..', '..')

/** `node script args...`, under `taskset -c cpus` when given (taskset execs node: same pid). */
export const nodeCommand = (script: string, args: readonly string[], cpus: string | undefined): [string, string[]] =>
  cpus === undefined ? [process.execPath, [script, ...args]] : ['taskset', ['-c', cpus, process.execPath, script, ...args]]

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const address = s.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      s.close(() => {
        resolve(port)
      })
    })
  })

const tail = (text: string, lines = 8) => text.trim().split('\n').slice(-lines).join('\n')

export interface Server {
  readonly name: string
  readonly url: string
  readonly pid: number
  readonly child: ChildProcess
  /** The last lines the process wrote (its log file), for error messages. */
  logTail(): string
  stop(): Promise<void>
}

export interface ServerSpec {
  readonly name: string
  readonly script: string
  readonly args?: readonly string[]
  readonly env: Record<string, string>
  readonly port: number
  readonly cpus: string | undefined
  /** Where stdout and stderr go (kept for error messages). */
  readonly logFile: string
  /** Polled until it answers `readyStatus`. */
  readonly readyPath: string
  readonly readyStatus?: number
  readonly readyTimeoutMs?: number
}

/** Starts a server in its own process and waits until it answers; throws BenchFailure with its log when it does not. */
export const startServer = async (spec: ServerSpec): Promise<Server> => {
  const fd = openSync(spec.logFile, 'a')
  const [cmd, args] = nodeCommand(spec.script, spec.args ?? [], spec.cpus)
  const child = spawn(cmd, args, { env: { ...process.env, ...spec.env }, stdio: ['ignore', fd, fd] })
  closeSync(fd)
  const url = `http://127.0.0.1:${spec.port}`
  const logTail = () => {
    try {
      return tail(readFileSync(spec.logFile, 'utf8'))
    } catch {
      return ''
    }
  }
  const exited = once(child, 'exit')
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    await exited
    clearTimeout(timer)
  }
  const deadline = Date.now() + (spec.readyTimeoutMs ?? 60_000)
  let last: string
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new BenchFailure(`${spec.name} exited (${child.exitCode ?? child.signalCode}) before answering:\n${logTail()}`)
    try {
      const r = await fetch(url + spec.readyPath, { signal: AbortSignal.timeout(2000) })
      await r.arrayBuffer()
      if (r.status === (spec.readyStatus ?? 200)) break
      last = `status ${r.status}`
    } catch (e) {
      last = e instanceof Error ? e.message : String(e)
    }
    if (Date.now() > deadline) {
      await stop()
      throw new BenchFailure(`${spec.name} did not answer ${spec.readyPath} on ${url} (${last}):\n${logTail()}`)
    }
    await sleep(100)
  }
  if (child.pid === undefined) throw new BenchFailure(`${spec.name} has no pid`)
  return { name: spec.name, url, pid: child.pid, child, logTail, stop }
}

/** Resident memory of a process in bytes (`VmRSS` of /proc/<pid>/status). */
export const rssOf = (pid: number): number => {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
  if (kb === undefined) throw new BenchFailure(`no VmRSS for process ${pid}`)
  return Number(kb) * 1024
}

/** Runs a script to completion in its own process; its stdout. A non-zero exit is a BenchFailure carrying its stderr. */
export const runChild = async (
  name: string,
  script: string,
  args: readonly string[],
  o: { readonly cpus: string | undefined; readonly env?: Record<string, string>; readonly timeoutMs: number },
): Promise<string> => {
  const [cmd, argv] = nodeCommand(script, args, o.cpus)
  const child = spawn(cmd, argv, { env: { ...process.env, ...o.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs)
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null]
  clearTimeout(timer)
  if (code !== 0)
    throw new BenchFailure(
      `${name} failed (${signal === 'SIGKILL' ? `killed after ${o.timeoutMs} ms` : `exit ${code ?? signal}`}):\n${tail(err || out)}`,
    )
  return out
}

/** runChild, then the JSON line the script printed last. */
export const runJsonChild = async <A>(
  name: string,
  script: string,
  args: readonly string[],
  o: { readonly cpus: string | undefined; readonly env?: Record<string, string>; readonly timeoutMs: number },
): Promise<A> => {
  const out = await runChild(name, script, args, o)
  try {
    return JSON.parse(out.trim().split('\n').pop() ?? '') as A
  } catch {
    throw new BenchFailure(`${name} printed no result:\n${tail(out)}`)
  }
}
