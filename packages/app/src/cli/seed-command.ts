import { macOf, vaultBox } from '../wiring/derived-keys'
import { resolveRootKey } from '../root-key'
import { applyDefaults, applySeed } from '../provision'
import { readSeedFile } from '../seed-file'
import { withStorage } from './storage-command'
import { HELP, UsageError } from './usage'

export const SEED_USAGE = `Usage: orka seed FILE

Applies the provisioning file FILE (the SEED_FILE format, see docs/configuration.md) to the storage in MONGODB_URI,
with the default set-up: idempotently, so applying it again creates nothing twice. Needs the same
VAULT_KEY as the servers (webhook secrets are sealed with it).
`

export const seedCommand = async (args: string[]): Promise<void> => {
  if (args.some((a) => HELP.includes(a))) return void process.stdout.write(SEED_USAGE)
  const [file] = args
  if (file === undefined || args.length !== 1) throw new UsageError('seed: expected exactly one FILE', SEED_USAGE)
  const seed = readSeedFile(file)
  await withStorage('seed', async (s, config) => {
    const rootKey = resolveRootKey(config, true).key
    const ports = { ...s.ports, box: vaultBox(rootKey), mac: macOf(rootKey) }
    const now = new Date()
    await applyDefaults(ports, now, seed)
    await applySeed(ports, now, seed)
  })
  process.stdout.write(`applied ${file}\n`)
}
