import { CardConnectorError } from '@orka/domain'

/** The most of a provider's answer read: theirs are a few KB; past this it is not an answer (parsed as none). */
export const MAX_ANSWER_BYTES = 1 << 20

/** The answer's text, up to `MAX_ANSWER_BYTES`: a longer one is cut off (and then fails to parse). */
export const boundedText = async (res: Response): Promise<string> => {
  if (res.body === null) return ''
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    chunks.push(value)
    size += value.byteLength
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel()
      break
    }
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The answer's JSON (bounded), or null when it is none. */
export const boundedJson = async (res: Response): Promise<unknown> => {
  const text = await boundedText(res)
  try {
    return JSON.parse(text) as unknown
  } catch {
    return null
  }
}

/** The call did not reach the provider (refused, no such host): nothing happened there. */
export class NotSent extends Error {}

const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'])
const causeCode = (e: unknown): string | undefined => {
  const cause = (e as { cause?: { code?: unknown } } | null)?.cause
  return typeof cause?.code === 'string' ? cause.code : undefined
}

/**
 * `fetch`, rejecting with `NotSent` (saying `provider` could not be reached) when no connection
 * was made, and with the fetch error otherwise (the call may have been received).
 */
export const fetchProvider = async (provider: string, url: string, init: RequestInit): Promise<Response> => {
  try {
    return await fetch(url, init)
  } catch (e) {
    if (NOT_SENT.has(causeCode(e) ?? '')) throw new NotSent(`${provider} could not be reached`, { cause: e })
    throw e
  }
}

/** Whether a connector's work came to an unknown outcome rather than an answer. */
export const isConnectorError = (x: unknown): x is CardConnectorError =>
  typeof x === 'object' &&
  x !== null &&
  ((x as { _tag?: unknown })._tag === 'ServiceFailed' || (x as { _tag?: unknown })._tag === 'ServiceTimeout')
