import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import Router from '@koa/router'
import type { OrkaState } from '../context'
import { Asset, asset, once, sendAsset } from './static-asset'

/** The browser files, as written: packages/adapters-http/browser (from dist/src/routes). */
export const SECURE_FIELDS_DIR = join(__dirname, '..', '..', '..', 'browser')
export const SECURE_FIELDS_PATH = '/secure-fields/v1'

const file = (name: string, type: string) => once(() => asset(type, readFileSync(join(SECURE_FIELDS_DIR, name))))
const JS = 'text/javascript; charset=utf-8'

/**
 * The field document runs only Orka's own script and style, talks only to Orka, and may be
 * framed only by Orka's pages and the listed origins: a page from anywhere else gets no field.
 */
export const fieldPolicy = (allowedOrigins: readonly string[]): string =>
  [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    `frame-ancestors ${["'self'", ...allowedOrigins].join(' ')}`,
  ].join('; ')

/**
 * Secure Fields: `secure-fields.js` for the merchant's page (any origin may load it as a
 * script), and the field document with its own scripts and style, which only its iframes load.
 * Public, no token; cached by `ETag`, so a new version reaches browsers within minutes.
 */
export const secureFieldsRouter = (allowedOrigins: readonly string[]): Router<OrkaState> => {
  const policy = fieldPolicy(allowedOrigins)
  const FIVE_MINUTES = 'public, max-age=300'
  const forFrames = (asset: () => Asset) => ({ asset, cache: FIVE_MINUTES, headers: { 'Cross-Origin-Resource-Policy': 'same-origin' } })
  const files: Record<string, { readonly asset: () => Asset; readonly cache: string; readonly headers: Record<string, string> }> = {
    'secure-fields.js': {
      asset: file('secure-fields.js', JS),
      cache: FIVE_MINUTES,
      headers: { 'Cross-Origin-Resource-Policy': 'cross-origin' },
    },
    // Its policy follows the configuration: revalidated on every load.
    'field.html': {
      asset: file('field.html', 'text/html; charset=utf-8'),
      cache: 'no-cache',
      headers: { 'Content-Security-Policy': policy, 'Referrer-Policy': 'no-referrer', 'Cross-Origin-Resource-Policy': 'cross-origin' },
    },
    // The field's scripts, in the order field.html runs them, and its style: for its frames only.
    'card-rules.js': forFrames(file('card-rules.js', JS)),
    'lead.js': forFrames(file('lead.js', JS)),
    'field.js': forFrames(file('field.js', JS)),
    'field.css': forFrames(file('field.css', 'text/css; charset=utf-8')),
  }
  const router = new Router<OrkaState>({ sensitive: true })
  router.get(`${SECURE_FIELDS_PATH}/:file`, async (ctx, next) => {
    const f = Object.hasOwn(files, ctx.params.file ?? '') ? files[ctx.params.file ?? ''] : undefined
    if (f === undefined) {
      await next()
      return
    }
    sendAsset(ctx, f.asset(), f.cache, f.headers)
  })
  return router
}
