import { createHash } from 'node:crypto'
import type { ParameterizedContext } from 'koa'
import type { OrkaState } from '../context'

/** A file served as it is, with a strong `ETag` of its bytes. */
export interface Asset {
  readonly type: string
  readonly body: Buffer | string
  readonly etag: string
}

const etagOf = (body: Buffer | string) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
export const asset = (type: string, body: Buffer | string): Asset => ({ type, body, etag: etagOf(body) })

/** Computed on first use, then kept: all of it is static for one configuration. */
export const once = <A>(make: () => A): (() => A) => {
  let value: { a: A } | undefined
  return () => (value ??= { a: make() }).a
}

/** 200 with the asset, or 304 to a client that holds it already (`If-None-Match`). */
export const sendAsset = (ctx: ParameterizedContext<OrkaState>, a: Asset, cacheControl: string, headers: Record<string, string> = {}) => {
  ctx.set({ 'Cache-Control': cacheControl, 'X-Content-Type-Options': 'nosniff', ...headers })
  ctx.etag = a.etag
  ctx.type = a.type
  ctx.status = 200
  if (ctx.fresh) {
    ctx.status = 304
    return
  }
  ctx.body = a.body
}
