import { parseArgs } from 'node:util'
import { Es512Keys, jwkThumbprint } from '@orka/adapters-http'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { CLI_ACTOR, makeCreateApiKeyPair, makeDeleteApiKeyPair, makeRecordAudited, ROLE_CATALOGUE, StoragePorts } from '@orka/domain'
import { RandomIds, SystemClock } from '@orka/adapters-node'
import { generateKeyPair } from '../dev-key'
import { seedRoleCatalogue } from '../provision'
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
 * The API's own use cases, run by the operator (every account and role within reach), their
 * audit entries the CLI's: pending first, so that a `kill -9` of the CLI leaves the entry to the
 * servers' relay.
 */
const keyUseCases = (ports: StoragePorts) => {
  const ids = new RandomIds()
  const clock = new SystemClock()
  const deps = {
    keys: ports.keys,
    roles: ports.roles,
    merchantAccounts: ports.merchantAccounts,
    crypto: new Es512Keys(),
    ids,
    clock,
    audited: makeRecordAudited({ audit: ports.audit, ids, clock }),
  }
  return { create: makeCreateApiKeyPair(deps), remove: makeDeleteApiKeyPair(deps) }
}
const OPERATOR = { actor: CLI_ACTOR, caller: null }

const create = async (args: string[]) => {
  const { values } = parseArgs({ args, options: { 'merchant-account': { type: 'string' }, role: { type: 'string', multiple: true } } })
  const roles = values.role ?? ['administrator']
  for (const r of roles)
    if (!ROLES.has(r)) throw new UsageError(`keys create: unknown role '${r}' (roles: ${[...ROLES].join(', ')})`, KEYS_USAGE)
  if (process.env.MONGODB_URI === undefined || process.env.MONGODB_URI === '') {
    const pair = generateKeyPair()
    process.stderr.write('MONGODB_URI is not set: the key is not stored; put the public key in a SEED_FILE\n')
    process.stdout.write(`${pair.privateKeyPem.trim()}\n${pair.publicKeyPem.trim()}\nkid: ${jwkThumbprint(pair.publicKeyPem)}\n`)
    return
  }
  await withStorage('keys create', async (s) => {
    const merchant = values['merchant-account'] ?? null
    await seedRoleCatalogue(s.ports)
    const catalogue = await runTask(s.ports.roles.findBySlugs(roles), 'reading the roles')
    const input = {
      display_name: `CLI key ${new Date().toISOString()}`,
      role_ids: roles.flatMap((slug) => catalogue.filter((r) => r.slug === slug).map((r) => r.id)),
      merchant_account_ids: merchant === null ? [] : [merchant],
    }
    const made = await keyUseCases(s.ports).create({ ...OPERATOR, input })()
    if (E.isLeft(made) && made.left._tag === 'InvalidRequest' && made.left.problems.some((p) => p.path[0] === 'merchant_account_ids'))
      throw new CommandError(`keys create: no merchant account '${merchant ?? ''}'`)
    const key = await runTask(TE.fromEither(made), 'storing the key')
    process.stdout.write(`${(key.private_key ?? '').trim()}\nid: ${key.id}\nkid: ${key.thumbprint}\n`)
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
      k.revoked ? 'revoked' : k.active === false ? 'suspended' : 'active',
      k.created_at,
    ])
    for (const r of [['ID', 'KID', 'MERCHANT ACCOUNT', 'ROLES', 'STATE', 'CREATED'], ...rows]) process.stdout.write(`${r.join('\t')}\n`)
  })

const revoke = (args: string[]) => {
  const id = args[0]
  if (id === undefined || args.length > 1) throw new UsageError('keys revoke: expected exactly one key id', KEYS_USAGE)
  return withStorage('keys revoke', async (s) => {
    const revoked = await keyUseCases(s.ports).remove({ ...OPERATOR, id })()
    if (E.isLeft(revoked) && revoked.left._tag === 'NotFound') throw new CommandError(`keys revoke: no API key pair '${id}'`)
    await runTask(TE.fromEither(revoked), 'revoking the key')
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
