import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { connectMongo } from '@orka/adapters-mongo'
import { REPO_ROOT } from './processes'

export type MongoTarget = { readonly uri: string; readonly description: string; stop(): Promise<void> } | { readonly missing: string }

const describe = async (uri: string, how: string) => {
  const store = await connectMongo(uri, { serverSelectionTimeoutMS: 10_000, connectTimeoutMS: 10_000 })
  try {
    return `${(await store.serverInfo()).summary}, ${how}`
  } finally {
    await store.close()
  }
}

/**
 * The MongoDB-wire server of the MongoDB cases: `MONGODB_URI` when set, else a throwaway
 * FerretDB from `scripts/mongo-test-server` (a cold build takes minutes), stopped by `stop`.
 */
export const provideMongo = async (): Promise<MongoTarget> => {
  const given = process.env.MONGODB_URI
  if (given !== undefined && given !== '') {
    try {
      return { uri: given, description: await describe(given, 'from MONGODB_URI'), stop: () => Promise.resolve() }
    } catch (e) {
      return { missing: `MONGODB_URI does not answer: ${e instanceof Error ? e.message : String(e)}` }
    }
  }
  const child = spawn(process.execPath, [join(REPO_ROOT, 'scripts', 'mongo-test-server')], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString()
    process.stderr.write(d)
  })
  let timer: NodeJS.Timeout | undefined
  const uri = await new Promise<string | undefined>((resolve) => {
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /^MONGODB_URI=(\S+)/m.exec(out)
      if (m) resolve(m[1])
    })
    child.once('exit', () => {
      resolve(undefined)
    })
    // A cold build of the server takes minutes; past this, the MongoDB cases are not measured.
    timer = setTimeout(() => {
      resolve(undefined)
    }, 20 * 60_000)
  })
  clearTimeout(timer)
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await exited
  }
  if (uri === undefined) {
    await stop()
    return {
      missing: `no MongoDB: MONGODB_URI is not set and scripts/mongo-test-server gave none (${err.trim().split('\n').pop() ?? 'no output'})`,
    }
  }
  try {
    return { uri, description: await describe(uri, 'started by the bench (scripts/mongo-test-server), not pinned'), stop }
  } catch (e) {
    await stop()
    return { missing: `scripts/mongo-test-server does not answer: ${e instanceof Error ? e.message : String(e)}` }
  }
}
