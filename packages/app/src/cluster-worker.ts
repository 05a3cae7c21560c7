import cluster from 'node:cluster'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'

/**
 * Set by the primary in the environment of the workers it forks: a process that is a cluster
 * worker of something else (a process manager's cluster mode) is not one of ours.
 */
export const WORKER_ENV = 'ORKA_CLUSTER_WORKER'

/** What a worker tells the primary: it listens, or it could not start (and why). */
export const WorkerMessage = t.union([
  t.type({ orka: t.literal('listening'), url: t.string }),
  t.type({ orka: t.literal('start-failed'), reason: t.string }),
])
export type WorkerMessage = t.TypeOf<typeof WorkerMessage>

export const readWorkerMessage = (u: unknown): WorkerMessage | undefined => {
  const m = WorkerMessage.decode(u)
  return E.isRight(m) ? m.right : undefined
}

/** This process is a worker forked by Orka's primary (`cluster.ts`): it serves, the primary prepared storage. */
export const isOrkaWorker = (): boolean => cluster.isWorker && process.env[WORKER_ENV] === '1'

/** Resolves once the message is handed to the IPC channel, so that exiting right after does not lose it. */
export const tellPrimary = (m: WorkerMessage): Promise<void> =>
  new Promise((resolve) => {
    if (process.send === undefined) {
      resolve()
      return
    }
    process.send(m, undefined, {}, () => {
      resolve()
    })
  })
