import { readFileSync, writeFileSync } from 'node:fs'
import { mintToken } from '../src/mint-token'

/**
 * Mints embed tokens (scopes `embed` and `roles.read`, a distinct `jti` each) into a file, one
 * per line; the runner starts one of these per core. argv: private key file, count, output file,
 * lifetime in seconds. Prints one JSON line.
 */
const [keyFile, countArg, outFile, lifetimeArg] = process.argv.slice(2)
const privateKeyPem = readFileSync(keyFile ?? '', 'utf8')
const count = Number(countArg)
const tokens: string[] = []
for (let i = 0; i < count; i++)
  tokens.push(mintToken(privateKeyPem, { scopes: ['roles.read'], embed: true, expiresInS: Number(lifetimeArg) }))
writeFileSync(outFile ?? '', tokens.join('\n'))
console.log(JSON.stringify({ minted: tokens.length }))
