import { Db, MongoClient, MongoClientOptions, ReadConcernLevel } from 'mongodb'
import { INDEXES, IndexSpec } from './mongo-schema'
import { withinBound } from './storage-bound'

export interface MongoConnectOptions {
  /** Default: the URI's database, else `orka`. */
  readonly dbName?: string
  /** Acknowledgement by this many members, or a majority (default). */
  readonly writeConcern?: 'majority' | number
  /** Wait for the journal before acknowledging (default true). */
  readonly journal?: boolean
  /** Default `majority`: reads never see writes that could be rolled back. */
  readonly readConcern?: 'majority' | 'local' | 'linearizable' | 'available'
  /** Default true. */
  readonly retryWrites?: boolean
  readonly maxPoolSize?: number
  readonly connectTimeoutMS?: number
  readonly serverSelectionTimeoutMS?: number
  /** Shown in the server's logs and `currentOp`; default `orka`. */
  readonly appName?: string
  /**
   * The longest one storage call may take: every adapter call (`attempt`), the readiness ping
   * and `serverInfo` then fail (`Unavailable`, cause `StorageTimeout`), so a frozen or
   * unreachable server costs a caller this long and no more. The driver's own waits are bounded
   * by it too (a tenth later, at least 100 ms), so that work abandoned at the bound does not
   * hold connections for long: a connection checkout (`waitQueueTimeoutMS`) and silence on a
   * socket during an operation (`socketTimeoutMS`, which closes that connection). Index creation is exempt (its own client,
   * unbounded: a build on a large collection may take minutes). Unset: no bound.
   */
  readonly operationTimeoutMs?: number
  /** Emit the driver's command monitoring events (`clientOf(store).on('commandStarted', ...)`); for tests. */
  readonly monitorCommands?: boolean
  /**
   * Told of every command the driver completes (its command monitoring, turned on when this is
   * set): the command's name (`find`, `insert`, …), how long it took and whether it succeeded.
   * For metrics; must not throw.
   */
  readonly onCommand?: (c: MongoCommandDone) => void
}

/** One command the driver completed (`commandSucceeded` or `commandFailed`). */
export interface MongoCommandDone {
  readonly commandName: string
  readonly durationMs: number
  readonly ok: boolean
}

/** Which server the store talks to, from `hello` and `buildInfo`. */
export interface MongoServerInfo {
  /** The MongoDB version the server reports (FerretDB: the version whose dialect it speaks). */
  readonly version: string
  readonly ferretdb: boolean
  /** FerretDB's own version when it reports one (an embedded FerretDB 1.24 says `unknown`: null here). */
  readonly ferretdbVersion: string | null
  readonly topology: string
  readonly maxWireVersion: number | null
  /** One line for logs, e.g. `MongoDB 7.0.14 (replica set rs0)` or `FerretDB (version not reported) (MongoDB 7.0.42 wire, standalone)`. */
  readonly summary: string
}

/** A connection to one database. Driver types stay inside this package. */
export interface MongoStore {
  readonly dbName: string
  /** The bound on each storage call (`MongoConnectOptions.operationTimeoutMs`), if any. */
  readonly operationTimeoutMs: number | undefined
  /** Creates every index the adapters rely on, one at a time; safe to run on every start. */
  ensureIndexes(): Promise<void>
  /** Readiness: resolves with the database name, or rejects (within the bound) with a one-line error naming it. */
  ping(): Promise<string>
  serverInfo(): Promise<MongoServerInfo>
  close(): Promise<void>
}

/** The server cannot be reached or refuses us; the message is one line, without credentials. */
export class MongoConnectionError extends Error {
  override readonly name = 'MongoConnectionError'
}

const dbs = new WeakMap<MongoStore, Db>()
const clients = new WeakMap<MongoStore, MongoClient>()

/** The driver's database behind a store: for this package's adapters and tests only (not exported by the index). */
export const dbOf = (store: MongoStore): Db => {
  const db = dbs.get(store)
  if (db === undefined) throw new Error('not a store made by connectMongo')
  return db
}

/** The driver's client behind a store, for its events: this package's tests only (not exported by the index). */
export const clientOf = (store: MongoStore): MongoClient => {
  const client = clients.get(store)
  if (client === undefined) throw new Error('not a store made by connectMongo')
  return client
}

interface Target {
  /** host:port list, no credentials. */
  readonly hosts: string
  readonly dbName: string | undefined
  readonly userinfo: string | undefined
}

const URI_RE = /^mongodb(?:\+srv)?:\/\/(?:([^@/?#]*)@)?([^/?#]*)(?:\/([^?#]*))?/

const parseTarget = (uri: string): Target => {
  const m = URI_RE.exec(uri)
  if (m === null) return { hosts: '(unparseable URI)', dbName: undefined, userinfo: undefined }
  let dbName: string | undefined
  try {
    dbName = m[3] ? decodeURIComponent(m[3]) : undefined
  } catch {
    dbName = undefined
  }
  const [, userinfo, hosts] = m
  return { hosts: hosts === undefined || hosts === '' ? '(no host)' : hosts, dbName, userinfo: userinfo === '' ? undefined : userinfo }
}

/** First line of a driver message, with any credentials in it removed. */
const oneLine = (e: unknown, t: Target): string => {
  let msg = ((e instanceof Error ? e.message : String(e)).split('\n')[0] ?? '').trim()
  msg = msg.replace(/\/\/[^@/\s]*@/g, '//***@')
  if (t.userinfo !== undefined) {
    for (const part of [t.userinfo, ...t.userinfo.split(':')]) {
      for (const form of new Set([part, safeDecode(part)])) if (form.length >= 3) msg = msg.split(form).join('***')
    }
  }
  return msg.length > 300 ? `${msg.slice(0, 300)}...` : msg
}
const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

const isNotImplemented = (e: unknown) => {
  const x = e as { code?: unknown; codeName?: unknown }
  return x.code === 238 || x.codeName === 'NotImplemented'
}

class Store implements MongoStore {
  readonly #client: MongoClient
  readonly #db: Db
  readonly #target: Target
  /** A client without the per-operation bounds, for index builds; null: use the store's own. */
  readonly #unboundedClient: (() => MongoClient) | null

  constructor(
    client: MongoClient,
    readonly dbName: string,
    target: Target,
    readonly operationTimeoutMs: number | undefined,
    unboundedClient: (() => MongoClient) | null,
  ) {
    this.#client = client
    this.#db = client.db(dbName)
    this.#target = target
    this.#unboundedClient = unboundedClient
    dbs.set(this, this.#db)
    clients.set(this, client)
  }

  async ensureIndexes(): Promise<void> {
    const own = this.#unboundedClient?.() ?? null
    try {
      const db = own === null ? this.#db : own.db(this.dbName)
      for (const spec of INDEXES) {
        try {
          await this.createIndex(db, spec)
        } catch (e) {
          throw new MongoConnectionError(
            `creating index ${spec.name} on ${this.dbName}.${spec.collection} failed: ${oneLine(e, this.#target)}`,
          )
        }
      }
    } finally {
      await own?.close().catch(() => undefined)
    }
  }

  private async createIndex(db: Db, spec: IndexSpec): Promise<void> {
    const col = db.collection(spec.collection)
    if (spec.ttl === undefined) {
      await col.createIndex({ ...spec.key }, { name: spec.name, ...(spec.unique ? { unique: true } : {}) })
      return
    }
    try {
      await col.createIndex({ ...spec.key }, { name: spec.name, expireAfterSeconds: spec.ttl.expireAfterSeconds })
    } catch (e) {
      // FerretDB 1.24: "Index option expireAfterSeconds is not implemented yet"; expiry stays data and sweeps.
      if (!isNotImplemented(e)) throw e
      await col.createIndex({ ...spec.key }, { name: spec.ttl.fallbackName })
    }
  }

  async ping(): Promise<string> {
    try {
      await withinBound((signal) => this.#db.command({ ping: 1 }, { signal }), this.operationTimeoutMs)
      return this.dbName
    } catch (e) {
      throw new MongoConnectionError(
        `MongoDB database ${this.dbName} at ${this.#target.hosts} does not answer: ${oneLine(e, this.#target)}`,
      )
    }
  }

  async serverInfo(): Promise<MongoServerInfo> {
    const admin = this.#client.db('admin')
    const hello = await withinBound((signal) => admin.command({ hello: 1 }, { signal }), this.operationTimeoutMs)
    const build = await withinBound((signal) => admin.command({ buildInfo: 1 }, { signal }), this.operationTimeoutMs)
    const version = typeof build.version === 'string' ? build.version : 'unknown'
    const ferretdb = Object.keys(build).some((k) => k.toLowerCase().startsWith('ferretdb'))
    const fv: unknown = build.ferretdbVersion ?? (build.ferretdb as { version?: unknown } | undefined)?.version
    const ferretdbVersion = ferretdb && typeof fv === 'string' && fv !== 'unknown' ? fv : null
    const topology =
      typeof hello.setName === 'string' ? `replica set ${hello.setName}` : hello.msg === 'isdbgrid' ? 'sharded cluster' : 'standalone'
    const maxWireVersion = typeof hello.maxWireVersion === 'number' ? hello.maxWireVersion : null
    const summary = ferretdb
      ? `FerretDB ${ferretdbVersion ?? '(version not reported)'} (MongoDB ${version} wire, ${topology})`
      : `MongoDB ${version} (${topology})`
    return { version, ferretdb, ferretdbVersion, topology, maxWireVersion, summary }
  }

  async close(): Promise<void> {
    await this.#client.close()
  }
}

/**
 * Connects and checks that the database answers. A server that cannot be reached (or refuses
 * our credentials) rejects with a one-line `MongoConnectionError` naming the hosts and the
 * database, never the credentials.
 */
export const connectMongo = async (uri: string, options: MongoConnectOptions = {}): Promise<MongoStore> => {
  const target = parseTarget(uri)
  const dbName = options.dbName ?? target.dbName ?? 'orka'
  const bound = options.operationTimeoutMs
  if (bound !== undefined && !(Number.isInteger(bound) && bound > 0))
    throw new RangeError(`operationTimeoutMs must be a positive integer, got ${bound}`)
  const baseOptions: MongoClientOptions = {
    appName: options.appName ?? 'orka',
    writeConcern: { w: options.writeConcern ?? 'majority', journal: options.journal ?? true },
    readConcern: { level: (options.readConcern ?? 'majority') as ReadConcernLevel },
    retryWrites: options.retryWrites ?? true,
    // Optional properties left undefined are omitted rather than stored as null.
    ignoreUndefined: true,
    ...(options.maxPoolSize !== undefined ? { maxPoolSize: options.maxPoolSize } : {}),
    ...(options.connectTimeoutMS !== undefined ? { connectTimeoutMS: options.connectTimeoutMS } : {}),
    ...(options.serverSelectionTimeoutMS !== undefined ? { serverSelectionTimeoutMS: options.serverSelectionTimeoutMS } : {}),
    ...(options.monitorCommands === true || options.onCommand !== undefined ? { monitorCommands: true } : {}),
  }
  // Per-stage driver bounds (the driver's `timeoutMS` is a deprecated no-op from 6.22 on, and
  // unsafe before). A socket timeout closes that connection and fails the operation without
  // clearing the pool; if the server is frozen, the monitor's failing heartbeat clears it and
  // interrupts the rest. Set a little beyond the call bound, so that a call ends with
  // `StorageTimeout` and the driver then frees what its abandoned work holds.
  const driverBound = bound === undefined ? undefined : bound + Math.max(100, Math.ceil(bound / 10))
  const clientOptions: MongoClientOptions =
    driverBound === undefined ? baseOptions : { ...baseOptions, socketTimeoutMS: driverBound, waitQueueTimeoutMS: driverBound }
  let client: MongoClient
  try {
    client = new MongoClient(uri, clientOptions)
  } catch (e) {
    throw new MongoConnectionError(`invalid MongoDB URI (hosts ${target.hosts}): ${oneLine(e, target)}`)
  }
  const onCommand = options.onCommand
  if (onCommand !== undefined) {
    client.on('commandSucceeded', (ev) => {
      onCommand({ commandName: ev.commandName, durationMs: ev.duration, ok: true })
    })
    client.on('commandFailed', (ev) => {
      onCommand({ commandName: ev.commandName, durationMs: ev.duration, ok: false })
    })
  }
  try {
    await client.connect()
    await client.db(dbName).command({ ping: 1 })
  } catch (e) {
    await client.close().catch(() => undefined)
    throw new MongoConnectionError(`cannot reach MongoDB at ${target.hosts} (database ${dbName}): ${oneLine(e, target)}`)
  }
  return new Store(client, dbName, target, bound, bound === undefined ? null : () => new MongoClient(uri, baseOptions))
}
