import { ChildProcessByStdio, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { once } from 'node:events'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { MongoClient } from 'mongodb'

/** The server the README's test command started (scripts/mongo-test-server), or a given one. */
export const mongoUri = (): string => {
  const uri = process.env.MONGODB_URI
  if (!uri) throw new Error('MONGODB_URI is not set: run the tests with `npm test`, which starts scripts/mongo-test-server')
  return uri
}

/** A fresh database name and the env that points instances at it; `drop` removes it. */
export const freshDatabase = () => {
  const name = `orka_app_${randomBytes(4).toString('hex')}`
  return {
    env: { MONGODB_URI: mongoUri(), MONGODB_DATABASE: name, VAULT_KEY: randomBytes(32).toString('hex') },
    drop: async () => {
      const client = new MongoClient(mongoUri())
      try {
        await client.connect()
        await client.db(name).dropDatabase()
      } finally {
        await client.close()
      }
    },
  }
}

export interface OrkaProcess {
  readonly child: ChildProcessByStdio<null, Readable, Readable>
  readonly url: string
  /** When it said it was listening. */
  readonly readyAt: number
  /** Everything it printed so far, stdout and stderr. */
  out(): string
}

/** `main.js` as its own process (for kill -9 tests), resolved once it listens. */
export const startOrkaProcess = async (env: NodeJS.ProcessEnv): Promise<OrkaProcess> => {
  const child = spawn(process.execPath, [join(__dirname, '..', '..', 'src', 'main.js')], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += String(d)))
  child.stderr.on('data', (d: Buffer) => (out += String(d)))
  while (!out.includes('Orka listening')) {
    if (child.exitCode !== null) throw new Error(`orka exited: ${out}`)
    await once(child.stdout, 'data')
  }
  return { child, url: /Orka listening on (\S+)"/.exec(out)![1]!, readyAt: Date.now(), out: () => out }
}
