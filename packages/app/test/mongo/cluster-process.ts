import { ChildProcessByStdio, spawn } from 'node:child_process'
import { request } from 'node:http'
import { join } from 'node:path'
import { Readable } from 'node:stream'

/** One JSON log line of the primary or a worker. */
export type LogLine = Record<string, unknown> & { readonly msg?: string; readonly role?: string; readonly pid?: number }

export interface Exit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

export interface OrkaCluster {
  readonly child: ChildProcessByStdio<null, Readable, Readable>
  /** Everything printed so far, stdout and stderr. */
  out(): string
  lines(): LogLine[]
  /** The first log line that `match` accepts, once it is printed; throws if the process exits first. */
  waitFor(match: (l: LogLine) => boolean, what: string): Promise<LogLine>
  readonly exited: Promise<Exit>
}

/** `main.js` as its own process (the primary, with `WORKERS` in `env`), its output kept and parsed. */
export const spawnOrka = (env: NodeJS.ProcessEnv): OrkaCluster => {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'src', 'main.js')], {
    env: { METRICS_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  let wake: () => void = () => undefined
  let changed = new Promise<void>((r) => (wake = r))
  const update = () => {
    wake()
    changed = new Promise<void>((r) => (wake = r))
  }
  child.stdout.on('data', (d: Buffer) => {
    out += String(d)
    update()
  })
  child.stderr.on('data', (d: Buffer) => {
    out += String(d)
    update()
  })
  let gone: Exit | undefined
  const exited = new Promise<Exit>((resolve) =>
    child.once('exit', (code, signal) => {
      gone = { code, signal }
      resolve(gone)
      update()
    }),
  )
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as LogLine)
  const waitFor = async (match: (l: LogLine) => boolean, what: string): Promise<LogLine> => {
    for (;;) {
      const found = lines().find(match)
      if (found !== undefined) return found
      if (gone !== undefined) throw new Error(`orka exited (${JSON.stringify(gone)}) before ${what}:\n${out}`)
      await changed
    }
  }
  return { child, out: () => out, lines, waitFor, exited }
}

/** Waits for the primary's line saying every worker listens; answers the URL and the workers' pids. */
export const clusterListening = async (o: OrkaCluster, workers: number): Promise<{ url: string; pids: number[] }> => {
  const ready = await o.waitFor((l) => l.role === 'primary' && l.msg?.endsWith(`with ${workers} workers`) === true, 'listening')
  const pids = o
    .lines()
    .filter((l) => l.role === 'primary' && l.msg === 'worker listening')
    .map((l) => l.workerPid as number)
  return { url: ready.url as string, pids }
}

export interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
}

/** One request on a connection of its own: the primary hands each new connection to the next worker. */
export const call = (
  url: string,
  method: string,
  path: string,
  o: { readonly headers?: Record<string, string>; readonly body?: unknown } = {},
): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const body = o.body === undefined ? undefined : JSON.stringify(o.body)
    const headers = { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...o.headers }
    const req = request(`${url}${path}`, { method, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })

/** The pid of the worker that answered the request with this `x-request-id` (its access-log line). */
export const servedBy = async (o: OrkaCluster, requestId: string): Promise<number> =>
  (await o.waitFor((l) => l.requestId === requestId && l.role === 'worker', `the access log of ${requestId}`)).pid!
