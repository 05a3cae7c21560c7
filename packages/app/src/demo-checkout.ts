import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DemoCheckoutStart, UseCases } from '@orka/adapters-http'
import type { Clock } from '@orka/domain'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Config } from './config'
import { DEV_KEY_FILE } from './dev-key'
import { mintToken } from './mint-token'
import { DEFAULT_MERCHANT_ACCOUNT_ID, usesDevKey } from './provision'
import { readSeedFile } from './seed-file'

const AMOUNT = 1299
const CURRENCY = 'USD'
/** As long as the page is likely to stay open; the session lives an hour (its minimum). */
const TOKEN_LIFETIME_S = 900

/**
 * The demo checkout's "merchant server", in the sandbox only: with the dev key it starts a
 * checkout session on the `default` account and mints an embed token pinned to that session
 * and amount, which is all the page may pay with. Undefined (no demo, 404) in production or
 * when the seed file provisions its own keys, for then the dev key is not one Orka accepts.
 */
/** The demo page's session is Orka's own doing, not a key's: its audit entry says so. */
const DEMO_ACTOR = { id: null, name: 'Demo checkout' }

export const demoCheckout = (config: Config, useCases: UseCases, clock: Clock): DemoCheckoutStart | undefined => {
  const seed = config.seedFile === undefined ? undefined : readSeedFile(config.seedFile)
  const keyFile = join(config.dataDir, DEV_KEY_FILE)
  if (!usesDevKey(config, seed) || !existsSync(keyFile)) return undefined
  const pem = readFileSync(keyFile, 'utf8')
  return pipe(
    useCases.createCheckoutSession({
      merchantAccountId: DEFAULT_MERCHANT_ACCOUNT_ID,
      actor: DEMO_ACTOR,
      input: { amount: AMOUNT, currency: CURRENCY },
    }),
    TE.map((session) => ({
      sessionId: session.id,
      amount: AMOUNT,
      currency: CURRENCY,
      token: mintToken(pem, {
        scopes: ['embed'],
        embedClaim: { amount: AMOUNT, currency: CURRENCY, checkout_session_id: session.id },
        expiresInS: TOKEN_LIFETIME_S,
        now: clock.now(),
      }),
    })),
  )
}
