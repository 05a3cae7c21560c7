import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { freshDatabase } from '../mongo/support'

/** A store a provider's HTTP suite runs on: the environment to start Orka with, and how to drop what it wrote. */
export type Store = () => { readonly env: Record<string, string>; drop(): Promise<void> }

/** Every provider suite runs on both stores. */
export const STORES: readonly (readonly [string, Store])[] = [
  ['embedded store', () => ({ env: {}, drop: () => Promise.resolve() })],
  ['MongoDB', freshDatabase],
]

/** A port nothing listens on any more: a connection to it is refused (a provider that cannot be reached). */
export const closedPort = async (): Promise<number> => {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const { port } = s.address() as AddressInfo
  await new Promise((resolve) => s.close(resolve))
  return port
}
