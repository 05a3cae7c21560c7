import { PaymentServiceField } from './payment-service'

/** One setting a connector's services are configured with (the API's definition `fields`). */
export interface ConnectorField {
  readonly key: string
  readonly displayName: string
  readonly required: boolean
  /** A credential: sealed at rest, never shown, logged or audited. */
  readonly secret: boolean
  readonly format: 'text' | 'multiline' | 'number' | 'boolean'
  /** The values it may take, when they are a closed set. */
  readonly values?: readonly string[]
  /** The form its value must have, when it has one (a value that names part of a host, say), and how to say it. */
  readonly pattern?: { readonly test: RegExp; readonly description: string }
}

/** Why a value does not fit its field's closed set or form, if it does not (never quoting a secret). */
export const valueProblem = (field: ConnectorField, value: string): string | undefined => {
  const quoted = `${field.key}${field.secret ? '' : ` '${value}'`}`
  if (field.values !== undefined && !field.values.includes(value)) return `${quoted} is not one of: ${field.values.join(', ')}`
  if (field.pattern !== undefined && value !== '' && !field.pattern.test.test(value)) return `${quoted} is not ${field.pattern.description}`
  return undefined
}

/** What a connector really does with a payment once authorized: the API's definition `supported_features`. */
export interface ConnectorFeatures {
  readonly delayedCapture: boolean
  readonly partialCapture: boolean
  readonly void: boolean
  readonly refunds: boolean
  readonly partialRefunds: boolean
  readonly multipleRefunds: boolean
}

/**
 * What a connector is: the id services name it by (`payment_service_definition_id`,
 * `gift_card_service_definition_id`), what to show of it, the fields a service of it is
 * configured with, the currencies and countries it takes (empty: every one) and what it does.
 * Each connector module exports one, beside its factory; everything Orka says or checks about a
 * connector is read from it.
 */
export interface ConnectorDefinition {
  readonly id: string
  readonly displayName: string
  readonly method: 'card' | 'gift-card'
  readonly fields: readonly ConnectorField[]
  readonly currencies: readonly string[]
  readonly countries: readonly string[]
  readonly features: ConnectorFeatures
  /** Its provider sends webhooks: a service of it shows a `webhook_url` to configure there. */
  readonly webhooks?: boolean
}

/** A connector module: its definition, and how to make the connector from what the host gives (`Context`). */
export interface ConnectorModule<Context, Connector> {
  readonly definition: ConnectorDefinition
  readonly create: (context: Context) => Connector
}

/**
 * Why a service cannot run with these fields, if it cannot: a required field missing or empty, a
 * value outside its field's set. A secret's value is never quoted.
 */
export const fieldsProblem = (definition: ConnectorDefinition, fields: readonly PaymentServiceField[]): string | undefined => {
  const missing = definition.fields.find((d) => d.required && !fields.some((f) => f.key === d.key && f.value !== ''))
  if (missing !== undefined) return `${definition.id} needs the field ${missing.key}`
  for (const f of fields) {
    const known = definition.fields.find((d) => d.key === f.key)
    const wrong = known === undefined ? undefined : valueProblem(known, f.value)
    if (wrong !== undefined) return `${definition.id} field ${wrong}`
  }
  return undefined
}
