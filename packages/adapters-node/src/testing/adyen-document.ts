import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import Ajv2020, { ValidateFunction } from 'ajv/dist/2020'

/**
 * Adyen's own OpenAPI documents (github.com/Adyen/adyen-openapi, MIT, vendored in
 * packages/adapters-node/vendor/adyen-openapi): the Checkout API v71 the connector speaks, and
 * the webhooks Adyen sends. OpenAPI 3.1, so JSON Schema 2020-12 as Ajv checks it.
 */
export const adyenVendorDir = (): string => {
  let dir = __dirname
  for (;;) {
    const candidate = path.join(dir, 'vendor', 'adyen-openapi')
    if (existsSync(candidate)) return candidate
    const up = path.dirname(dir)
    if (up === dir) throw new Error('no vendor/adyen-openapi above the Adyen test helpers')
    dir = up
  }
}
export const adyenCheckoutDocument = (): string => path.join(adyenVendorDir(), 'CheckoutService-v71.json')
const webhooksDocument = (): string => path.join(adyenVendorDir(), 'Webhooks-v1.json')

/** The Checkout API routes the connector calls, as the document names them. */
export const ADYEN_ROUTES = [
  '/payments',
  '/payments/{paymentPspReference}/captures',
  '/payments/{paymentPspReference}/cancels',
  '/payments/{paymentPspReference}/refunds',
  '/cancels',
  '/paymentMethods',
] as const
export type AdyenRoute = (typeof ADYEN_ROUTES)[number]
/** The webhooks the double sends, by event code. */
export const ADYEN_EVENTS = ['AUTHORISATION', 'CAPTURE', 'CANCELLATION', 'TECHNICAL_CANCEL', 'REFUND'] as const
export type AdyenEvent = (typeof ADYEN_EVENTS)[number]

/** What Adyen's documents say of a body: its errors, or null when it validates. */
export interface AdyenDocument {
  request(route: AdyenRoute, body: unknown): string | null
  response(route: AdyenRoute, status: number, body: unknown): string | null
  notification(event: AdyenEvent, body: unknown): string | null
}

const pointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1')

/** Loads both documents and compiles every schema the double needs at once (compiling one takes longer than a connector waits). */
export const loadAdyenDocument = (): AdyenDocument => {
  const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false })
  const checkout = JSON.parse(readFileSync(adyenCheckoutDocument(), 'utf8')) as { paths: Record<string, { post: { responses: object } }> }
  ajv.addSchema(checkout, 'checkout')
  ajv.addSchema(JSON.parse(readFileSync(webhooksDocument(), 'utf8')) as object, 'webhooks')
  const compiled = new Map<string, ValidateFunction>()
  const compile = (ref: string) => {
    const v = ajv.compile({ $ref: ref })
    compiled.set(ref, v)
    return v
  }
  const json = 'content/application~1json/schema'
  const requestRef = (route: string) => `checkout#/paths/${pointer(route)}/post/requestBody/${json}`
  const responseRef = (route: string, status: number) => `checkout#/paths/${pointer(route)}/post/responses/${String(status)}/${json}`
  const eventRef = (event: string) => `webhooks#/webhooks/${pointer(`/${event}`)}/post/requestBody/${json}`
  for (const route of ADYEN_ROUTES) {
    compile(requestRef(route))
    for (const status of Object.keys(checkout.paths[route]?.post.responses ?? {})) compile(responseRef(route, Number(status)))
  }
  for (const event of ADYEN_EVENTS) compile(eventRef(event))
  const check = (ref: string, body: unknown) => {
    const v = compiled.get(ref)
    if (v === undefined) return `the document has no schema at ${ref}`
    // A failed oneOf lists every branch: the start says enough.
    return v(body) ? null : ajv.errorsText(v.errors).slice(0, 300)
  }
  return {
    request: (route, body) => check(requestRef(route), body),
    response: (route, status, body) => check(responseRef(route, status), body),
    notification: (event, body) => check(eventRef(event), body),
  }
}
