import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { mintToken } from '../mint-token'
import { HELP, UsageError } from './usage'

export const TOKEN_USAGE = `Usage: orka token --key FILE [--scopes LIST] [--embed] [--expires DURATION]

Mints a bearer token (ES512, kid = the key's JWK thumbprint) signed with the private key PEM in FILE.
  --key FILE         private key PEM of an API key pair (sandbox: .data/dev-api-key.pem)
  --scopes LIST      comma-separated scopes (default '*.read,*.write')
  --embed            add the 'embed' scope: a browser token, rate limited
  --expires DURATION lifetime such as 30s, 15m, 1h (default 30s)
`

const duration = (s: string): number => {
  const m = /^(\d+)(s|m|h|d)?$/.exec(s)
  if (!m) throw new UsageError(`--expires: expected a duration such as 30s, 15m or 1h, got '${s}'`, TOKEN_USAGE)
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[(m[2] ?? 's') as 's' | 'm' | 'h' | 'd']
}

export const tokenCommand = (args: string[]): void => {
  if (args.some((a) => HELP.includes(a))) return void process.stdout.write(TOKEN_USAGE)
  const { values } = parseArgs({
    args,
    options: { key: { type: 'string' }, scopes: { type: 'string' }, embed: { type: 'boolean' }, expires: { type: 'string' } },
  })
  if (!values.key) throw new UsageError('token: --key FILE is required', TOKEN_USAGE)
  let pem: string
  try {
    pem = readFileSync(values.key, 'utf8')
  } catch (e) {
    throw new UsageError(`token: cannot read ${values.key}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, TOKEN_USAGE)
  }
  const scopes = (values.scopes ?? '*.read,*.write')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  console.log(mintToken(pem, { scopes, embed: values.embed ?? false, expiresInS: duration(values.expires ?? '30s') }))
}
