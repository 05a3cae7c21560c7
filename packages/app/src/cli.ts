#!/usr/bin/env node
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { jwkThumbprint } from '@orka/adapters-http'
import { generateKeyPair } from './dev-key'
import { mintToken } from './mint-token'

const USAGE = `Usage: orka <command> [options]

Commands:
  token --key FILE [--scopes LIST] [--embed] [--expires DURATION]
      Mint a bearer token signed with the private key PEM in FILE.
      --scopes   comma-separated scopes (default '*.read,*.write')
      --embed    add the 'embed' scope (browser token, rate limited)
      --expires  lifetime such as 30s, 15m, 1h (default 30s)
  keys create
      Generate an API key pair (ECDSA P-521). Prints the private key PEM (keep it secret),
      the public key PEM (put it in a seed file's api_key_pairs) and its kid.
  serve
      Start the API server (configuration from the environment, see README).
  help
      Show this text.
`

class UsageError extends Error {}

const duration = (s: string): number => {
  const m = /^(\d+)(s|m|h|d)?$/.exec(s)
  if (!m) throw new UsageError(`--expires: expected a duration such as 30s, 15m or 1h, got '${s}'`)
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd']
}

const token = (args: string[]) => {
  const { values } = parseArgs({
    args,
    options: { key: { type: 'string' }, scopes: { type: 'string' }, embed: { type: 'boolean' }, expires: { type: 'string' } },
  })
  if (!values.key) throw new UsageError('token: --key FILE is required')
  let pem: string
  try {
    pem = readFileSync(values.key, 'utf8')
  } catch (e) {
    throw new UsageError(`token: cannot read ${values.key}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`)
  }
  const scopes = (values.scopes ?? '*.read,*.write').split(',').map((s) => s.trim()).filter(Boolean)
  console.log(mintToken(pem, { scopes, embed: values.embed ?? false, expiresInS: duration(values.expires ?? '30s') }))
}

const keys = (args: string[]) => {
  if (args[0] !== 'create') throw new UsageError(`keys: unknown subcommand '${args[0] ?? ''}'`)
  const pair = generateKeyPair()
  console.log(pair.privateKeyPem.trim())
  console.log(pair.publicKeyPem.trim())
  console.log(`kid: ${jwkThumbprint(pair.publicKeyPem)}`)
}

const main = (argv: string[]) => {
  const [command, ...rest] = argv
  switch (command) {
    case 'token':
      return token(rest)
    case 'keys':
      return keys(rest)
    case 'serve':
      require('./main')
      return
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      console.log(USAGE)
      return
    default:
      throw new UsageError(`unknown command '${command}'`)
  }
}

try {
  main(process.argv.slice(2))
} catch (e) {
  if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
    console.error(`orka: ${(e as Error).message}\n\n${USAGE}`)
    process.exit(2)
  }
  throw e
}
