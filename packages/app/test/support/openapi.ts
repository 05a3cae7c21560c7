/** A JSON Schema of the document, as the tests hand it to Ajv. */
export type JsonSchema = Readonly<Record<string, unknown>>

/** The keywords of a parameter's schema the tests read. */
export interface OpenApiParameterSchema {
  readonly type?: string
  readonly format?: string
  readonly minimum?: number
  readonly maximum?: number
  readonly minLength?: number
  readonly maxLength?: number
  readonly [keyword: string]: unknown
}

export interface OpenApiParameter {
  readonly name: string
  readonly in: string
  readonly schema: OpenApiParameterSchema
}

export interface OpenApiResponse {
  readonly headers?: Readonly<Record<string, unknown>>
  readonly content?: Readonly<Record<string, { readonly schema: JsonSchema }>>
}

export interface OpenApiOperation {
  readonly operationId: string
  readonly parameters: readonly OpenApiParameter[]
  /** By status (`'200'`, `'422'`). */
  readonly responses: Readonly<Record<string, OpenApiResponse>>
}

/** The operations of a path, by lower-case method. */
export type OpenApiPathItem = Readonly<Record<string, OpenApiOperation>>

/** The parts of the served OpenAPI document (`GET /openapi.json`) the tests read. */
export interface OpenApiDoc {
  readonly paths: Readonly<Record<string, OpenApiPathItem>>
  readonly components: { readonly schemas: Readonly<Record<string, JsonSchema>> }
  readonly webhooks: Readonly<
    Record<
      string,
      { readonly post: { readonly requestBody: { readonly content: Readonly<Record<string, { readonly schema: JsonSchema }>> } } }
    >
  >
}
