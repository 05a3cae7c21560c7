import { errorBody, ErrorStatus, MAX_ERROR_BODY_BYTES, MAX_ERROR_ENTRIES, TOO_MANY_ERRORS } from '../error-response'
import { MAX_ECHOED_INPUT } from '../decode/violations'
import type { JsonSchema } from './codec-to-schema'

/** Every status the spec's error table gives a body for, in its order; 422 has its own body. */
export const ERROR_STATUSES: readonly ErrorStatus[] = [400, 401, 403, 404, 405, 409, 425, 429, 500, 502, 504]

/** Each documented response's description, in the reference document's words. */
export const ERROR_DESCRIPTIONS: Record<ErrorStatus | 422, string> = {
  400: 'The request was invalid.',
  401: 'The request was unauthorized.',
  403: 'The credentials were invalid or the caller did not have permission to act on the resource.',
  404: 'The resource was not found.',
  405: 'The request method was not allowed.',
  409: 'A duplicate record was found.',
  422: 'Validation Error',
  425: 'The request was too early.',
  429: 'Too many requests were made.',
  500: 'The server encountered an error.',
  502: 'The server encountered an error.',
  504: 'The server encountered an error.',
}

export const errorSchemaName = (status: ErrorStatus): string => `Error${status}`

/**
 * The error bodies are the HTTP adapter's own (error-response.ts), not domain codecs: their
 * `code`, `status` and default `message` are read from `errorBody`, the function that builds
 * every one of them, so the document cannot drift from what is sent.
 */
export const errorSchemas = (): Record<string, JsonSchema> => {
  const out: Record<string, JsonSchema> = {
    ErrorLocation: { title: 'ErrorLocation', type: 'string', enum: ['query', 'body', 'path', 'header', 'unknown'] },
    ErrorDetail: {
      title: 'ErrorDetail',
      type: 'object',
      properties: {
        location: { $ref: '#/components/schemas/ErrorLocation', description: 'The part of the request holding the faulty property.' },
        pointer: { type: 'string', description: 'A JSON pointer to the property that caused the error.' },
        message: { type: 'string', description: 'A human-readable explanation.' },
        type: { type: 'string', description: 'The kind of error raised for the property.' },
      },
      required: ['location', 'pointer', 'message', 'type'],
      additionalProperties: false,
    },
    ValidationError: {
      title: 'ValidationError',
      type: 'object',
      properties: {
        loc: {
          type: 'array',
          items: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          description: 'Where the faulty value is: `body`, `query`, `path` or `header`, then the path to it.',
        },
        msg: { type: 'string' },
        type: {
          type: 'string',
          description:
            'Kind of violation: `missing`, `string_too_short`, `extra_forbidden`, `value_error`, ...; ' +
            `\`${TOO_MANY_ERRORS}\` for the last entry of a list that leaves faults out (\`ctx.total\` counts them all).`,
        },
        input: {
          description:
            `The faulty value; only for scalars of non-sensitive properties (never a card number, PIN or secret) ` +
            `whose JSON form is at most ${MAX_ECHOED_INPUT} characters.`,
        },
        ctx: { type: 'object', description: 'The violated constraint, e.g. `{"max_length": 200}`.' },
      },
      required: ['loc', 'msg', 'type'],
    },
    HTTPValidationError: {
      title: 'HTTPValidationError',
      type: 'object',
      description:
        'The request does not match its schema (body, query, path or headers); it was not processed. ' +
        `At most ${MAX_ERROR_ENTRIES} entries and ${MAX_ERROR_BODY_BYTES / 1024} KiB: a list that leaves faults out ends with one ` +
        `entry of type \`${TOO_MANY_ERRORS}\` whose \`ctx.total\` counts them all.`,
      properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' }, maxItems: MAX_ERROR_ENTRIES } },
      required: ['detail'],
    },
  }
  for (const status of ERROR_STATUSES) {
    const body = errorBody(status)
    out[errorSchemaName(status)] = {
      title: errorSchemaName(status),
      type: 'object',
      properties: {
        type: { type: 'string', const: 'error' },
        code: { type: 'string', const: body.code },
        status: { type: 'integer', const: body.status },
        message: { type: 'string', description: 'A human-readable message.', default: body.message },
        details: {
          type: 'array',
          items: { $ref: '#/components/schemas/ErrorDetail' },
          maxItems: MAX_ERROR_ENTRIES,
          description: `The faulty properties, if any; past ${MAX_ERROR_ENTRIES}, the last entry (type \`${TOO_MANY_ERRORS}\`) says how many there were.`,
          default: [],
        },
        ...(status === 409
          ? {
              resource_id: {
                anyOf: [{ type: 'string' }, { type: 'null' }],
                description: 'The ID of the existing resource the request conflicts with.',
              },
            }
          : {}),
      },
      required: ['type', 'code', 'status', 'message', 'details', ...(status === 409 ? ['resource_id'] : [])],
      additionalProperties: false,
    }
  }
  return out
}
