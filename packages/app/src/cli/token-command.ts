import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { mintToken } from '../mint-token'
import { HELP, UsageError } from './usage'

export const TOKEN_USAGE = `Usage: orka token --key FILE [--scopes LIST] [--embed [--buyer-id ID | --buyer-external-identifier ID]] [--expires DURATION]

Mints a bearer token (ES512, kid = the key's JWK thumbprint) signed with the private key PEM in FILE.
  --key FILE         private key PEM of an API key pair (sandbox: .data/dev-api-key.pem)
  --scopes LIST      comma-separated scopes (default '*.read,*.write')
  --embed            add the 'embed' scope: a browser token, rate limited
  --buyer-id ID, --buyer-external-identifier ID
                     with --embed: the buyer (embed claim) whose stored gift cards the token may read
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
    options: {
      key: { type: 'string' },
      scopes: { type: 'string' },
      embed: { type: 'boolean' },
      'buyer-id': { type: 'string' },
      'buyer-external-identifier': { type: 'string' },
      expires: { type: 'string' },
    },
  })
  const buyerId = values['buyer-id']
  const buyerExternalIdentifier = values['buyer-external-identifier']
  if ((buyerId !== undefined || buyerExternalIdentifier !== undefined) && values.embed !== true)
    throw new UsageError('token: --buyer-id and --buyer-external-identifier go with --embed', TOKEN_USAGE)
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
  const embedClaim = {
    ...(buyerId === undefined ? {} : { buyer_id: buyerId }),
    ...(buyerExternalIdentifier === undefined ? {} : { buyer_external_identifier: buyerExternalIdentifier }),
  }
  console.log(
    mintToken(pem, {
      scopes,
      embed: values.embed ?? false,
      ...(Object.keys(embedClaim).length > 0 ? { embedClaim } : {}),
      expiresInS: duration(values.expires ?? '30s'),
    }),
  )
}
