import { parseArgs } from 'node:util'
import { jwkThumbprint } from '@orka/adapters-http'
import * as TE from 'fp-ts/TaskEither'
import { AuditedChange, CLI_ACTOR, keyActor, makeRecordAudited, ROLE_CATALOGUE, StoragePorts, Unavailable } from '@orka/domain'
import { RandomIds, SystemClock } from '@orka/adapters-node'
import { generateKeyPair } from '../dev-key'
import { apiKeyPairOf } from '../provision'
import { runTask } from '../run-task'
import { withStorage } from './storage-command'
import { CommandError, HELP, UsageError } from './usage'

export const KEYS_USAGE = `Usage: orka keys create [--merchant-account ID] [--role SLUG]...
       orka keys list
       orka keys revoke ID

create  Generates an API key pair (ECDSA P-521). With MONGODB_URI set, stores its public key with
        the roles (default administrator) and merchant account (default: every account) and prints
        the private key PEM once: keep it, it is not stored. Without MONGODB_URI, prints both PEMs
        for a SEED_FILE.
list    Lists the stored key pairs (needs MONGODB_URI).
revoke  Revokes a stored key pair: running servers refuse its tokens within LOOKUP_CACHE_MS (needs MONGODB_URI).
`

const ROLES = new Set(ROLE_CATALOGUE.map((r) => r.slug))

/**
 * A key's creation or revocation with its audit entry, as every change through the API: pending
 * first, so that a `kill -9` of the CLI leaves the entry to the servers' relay. A key bound to
 * an account is that account's entry; one for every account is listed by none.
 */
const audited = <A>(
  ports: StoragePorts,
  key: { readonly id: string; readonly thumbprint: string; readonly merchant_account_id: string | null },
  action: 'created' | 'revoked',
  write: TE.TaskEither<Unavailable, A>,
): TE.TaskEither<Unavailable, A> => {
  const change: AuditedChange = {
    merchantAccountId: key.merchant_account_id,
    actor: CLI_ACTOR,
    resource: { type: 'api-key-pair', id: key.id, name: keyActor(key).name },
    action,
    check: { probe: action === 'created' ? 'api-key-pair-present' : 'api-key-pair-revoked', id: key.id, witness: null },
  }
  return makeRecordAudited({ audit: ports.audit, ids: new RandomIds(), clock: new SystemClock() })(change, write)
}

const create = async (args: string[]) => {
  const { values } = parseArgs({ args, options: { 'merchant-account': { type: 'string' }, role: { type: 'string', multiple: true } } })
  const roles = values.role ?? ['administrator']
  for (const r of roles)
    if (!ROLES.has(r)) throw new UsageError(`keys create: unknown role '${r}' (roles: ${[...ROLES].join(', ')})`, KEYS_USAGE)
  const pair = generateKeyPair()
  const kid = jwkThumbprint(pair.publicKeyPem)
  if (process.env.MONGODB_URI === undefined || process.env.MONGODB_URI === '') {
    process.stderr.write('MONGODB_URI is not set: the key is not stored; put the public key in a SEED_FILE\n')
    process.stdout.write(`${pair.privateKeyPem.trim()}\n${pair.publicKeyPem.trim()}\nkid: ${kid}\n`)
    return
  }
  await withStorage('keys create', async (s) => {
    const merchant = values['merchant-account'] ?? null
    if (merchant !== null) {
      const found = await runTask(s.ports.merchantAccounts.find(merchant), 'reading the merchant account')
      if (found._tag === 'None') throw new CommandError(`keys create: no merchant account '${merchant}'`)
    }
    const key = apiKeyPairOf({ public_key_pem: pair.publicKeyPem, merchant_account_id: merchant, roles }, new Date().toISOString())
    await runTask(audited(s.ports, key, 'created', s.ports.keys.upsert(key)), 'storing the key')
    process.stdout.write(`${pair.privateKeyPem.trim()}\nid: ${key.id}\nkid: ${kid}\n`)
  })
}

const list = () =>
  withStorage('keys list', async (s) => {
    const keys = await runTask(s.ports.keys.list(), 'listing API key pairs')
    const rows = keys.map((k) => [
      k.id,
      k.thumbprint,
      k.merchant_account_id ?? '*',
      k.roles.join(','),
      k.revoked ? 'revoked' : 'active',
      k.created_at,
    ])
    for (const r of [['ID', 'KID', 'MERCHANT ACCOUNT', 'ROLES', 'STATE', 'CREATED'], ...rows]) process.stdout.write(`${r.join('\t')}\n`)
  })

const revoke = (args: string[]) => {
  const id = args[0]
  if (id === undefined || args.length > 1) throw new UsageError('keys revoke: expected exactly one key id', KEYS_USAGE)
  return withStorage('keys revoke', async (s) => {
    const key = (await runTask(s.ports.keys.list(), 'reading the key')).find((k) => k.id === id)
    if (key === undefined) throw new CommandError(`keys revoke: no API key pair '${id}'`)
    await runTask(audited(s.ports, key, 'revoked', s.ports.keys.revoke(id)), 'revoking the key')
    process.stdout.write(`revoked ${id}\n`)
  })
}

export const keysCommand = async (args: string[]): Promise<void> => {
  const [sub, ...rest] = args
  if (sub === undefined || HELP.includes(sub)) return void process.stdout.write(KEYS_USAGE)
  if (rest.some((a) => HELP.includes(a))) return void process.stdout.write(KEYS_USAGE)
  if (sub === 'create') return create(rest)
  if (sub === 'list') return list()
  if (sub === 'revoke') return revoke(rest)
  throw new UsageError(`keys: unknown subcommand '${sub}'`, KEYS_USAGE)
}
