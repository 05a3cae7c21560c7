import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { unsupportedFields } from '../shared/codecs'
import { SecretBox } from '../shared/crypto.ports'
import { failedValidation, InvalidRequest, Problem, problem, refusedInput } from '../shared/errors'
import { ConnectorCatalogue } from './connector-catalogue.ports'
import { ConnectorDefinition, fieldsProblem, valueProblem } from './connector-definition'
import { PaymentServiceField, PaymentServiceRecord, SealedServiceField } from './payment-service'
import { Field, PaymentService, UNSUPPORTED_SERVICE_FIELDS } from './payment-service.codecs'

/** What the API refuses to set (3-D Secure, network tokens, ...): a `400` naming each, never ignored. */
export const notOfferedFault = (input: Record<string, unknown>): InvalidRequest | null => {
  const paths = unsupportedFields(input, UNSUPPORTED_SERVICE_FIELDS)
  return paths.length === 0
    ? null
    : failedValidation(...paths.map((p) => problem('input', p, `\`${p.join('.')}\` is not supported`, 'unsupported')))
}

export const definitionOf = (catalogue: ConnectorCatalogue, id: string): O.Option<ConnectorDefinition> =>
  O.fromNullable(catalogue.cardDefinitions.find((d) => d.id === id))

/** What a session request answers for a connector Orka has: none of them opens wallet sessions. */
export const noSessions = (definitionId: string): InvalidRequest =>
  refusedInput([], `${definitionId} opens no sessions: sessions are for wallets, which no connector of Orka's has`, 'unsupported')

export const unknownDefinition = (catalogue: ConnectorCatalogue, id: string): InvalidRequest =>
  failedValidation(
    problem(
      'input',
      ['payment_service_definition_id'],
      `Orka has no connector '${id.slice(0, 50)}' (it has: ${catalogue.cardDefinitions.map((d) => d.id).join(', ')})`,
      'unknown_payment_service_definition',
    ),
  )

/**
 * The fields a request sends, checked against the connector's definition before anything is
 * stored: each key one the definition has, none twice, values within their field's set. Never
 * quotes a secret's value.
 */
export const sentFieldsFault = (definition: ConnectorDefinition, fields: readonly Field[]): InvalidRequest | null => {
  const seen = new Set<string>()
  const problems: Problem[] = []
  for (const [i, f] of fields.entries()) {
    const at = (leaf: string) => ['fields', String(i), leaf]
    const known = definition.fields.find((d) => d.key === f.key)
    if (known === undefined)
      problems.push(
        problem(
          'input',
          at('key'),
          `${definition.id} has no field '${f.key}' (it has: ${definition.fields.map((d) => d.key).join(', ') || 'none'})`,
          'unknown_field',
        ),
      )
    else if (seen.has(f.key)) problems.push(problem('input', at('key'), `The field '${f.key}' is sent twice`, 'duplicate_field'))
    else {
      const wrong = f.value === '' ? undefined : valueProblem(known, f.value)
      if (wrong !== undefined) problems.push(problem('input', at('value'), wrong, 'invalid_field_value'))
    }
    seen.add(f.key)
  }
  return problems.length === 0 ? null : failedValidation(...problems)
}

/** The service's whole settings (secrets opened) against its definition: a required one missing is a `400` on `fields`. */
export const storedFieldsFault = (definition: ConnectorDefinition, fields: readonly PaymentServiceField[]): InvalidRequest | null => {
  const found = fieldsProblem(definition, fields)
  return found === undefined ? null : failedValidation(problem('input', ['fields'], found, 'invalid_fields'))
}

const isSecret = (definition: ConnectorDefinition, key: string) => definition.fields.some((d) => d.key === key && d.secret)

/** The settings as stored: secrets sealed apart, each key once, an empty value none at all. */
export const storedFields = (
  box: SecretBox,
  definition: ConnectorDefinition,
  fields: readonly PaymentServiceField[],
): Pick<PaymentServiceRecord, 'fields' | 'sealed_fields'> => {
  const set = fields.filter((f) => f.value !== '')
  return {
    fields: set.filter((f) => !isSecret(definition, f.key)),
    sealed_fields: set
      .filter((f) => isSecret(definition, f.key))
      .map((f): SealedServiceField => ({ key: f.key, sealed: box.seal(f.value) })),
  }
}

/**
 * The settings a change leaves, secrets opened: each field sent replaces that key (an empty
 * value removes it); every other key, a secret too, is kept as it was.
 */
export const changedFields = (
  current: readonly PaymentServiceField[],
  sent: readonly Field[] | null | undefined,
): readonly PaymentServiceField[] => {
  if (sent == null) return current
  const keys = new Set(sent.map((f) => f.key))
  return [...current.filter((f) => !keys.has(f.key)), ...sent.filter((f) => f.value !== '')]
}

const SETTINGS = ['display_name', 'position', 'active', 'accepted_currencies', 'accepted_countries'] as const

/**
 * What a change changed, by name, for its audit entry: the settings whose value differs, and
 * each field (`fields.<key>`) set, replaced or removed. Names only: a secret's value never leaves.
 */
export const changedNames = (
  before: Pick<PaymentServiceRecord, (typeof SETTINGS)[number] | 'fields'>,
  after: Pick<PaymentServiceRecord, (typeof SETTINGS)[number] | 'fields'>,
): readonly string[] => {
  const valueOf = (fields: readonly PaymentServiceField[], key: string) => fields.find((f) => f.key === key)?.value
  const keys = [...new Set([...before.fields, ...after.fields].map((f) => f.key))].sort()
  return [
    ...SETTINGS.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k])),
    ...keys.filter((k) => valueOf(before.fields, k) !== valueOf(after.fields, k)).map((k) => `fields.${k}`),
  ]
}

/**
 * A service as the API shows it: its secret fields left out (never masked: a mask sent back
 * would replace the secret); `webhookUrl`, where its provider sends webhooks, if it sends any.
 */
export const presentPaymentService = (r: PaymentServiceRecord, webhookUrl: string | null = null): PaymentService => ({
  type: 'payment-service',
  id: r.id,
  merchant_account_id: r.merchant_account_id,
  payment_service_definition_id: r.payment_service_definition_id,
  active: r.active,
  method: 'card',
  display_name: r.display_name,
  position: r.position,
  status: 'created',
  accepted_currencies: r.accepted_currencies,
  accepted_countries: r.accepted_countries,
  payment_method_tokenization_enabled: false,
  network_tokens_enabled: false,
  open_loop: false,
  settlement_reporting_enabled: false,
  three_d_secure_enabled: false,
  merchant_profile: null,
  webhook_url: webhookUrl,
  fields: r.fields,
  reporting_fields: [],
  is_deleted: r.deleted_at !== undefined,
  created_at: r.created_at,
  updated_at: r.updated_at,
})

/**
 * The checks every write of a service's settings passes, through the API, the seed or the CLI:
 * what Orka does not do, a definition it has, the fields sent, and the settings they leave over
 * `current` (secrets opened). Answers the definition and those settings.
 */
export const checkedSettings = (
  catalogue: ConnectorCatalogue,
  definitionId: string,
  input: Record<string, unknown> & { readonly fields?: readonly Field[] | null },
  current: readonly PaymentServiceField[],
): E.Either<InvalidRequest, { readonly definition: ConnectorDefinition; readonly fields: readonly PaymentServiceField[] }> => {
  const notOffered = notOfferedFault(input)
  if (notOffered !== null) return E.left(notOffered)
  const definition = O.toNullable(definitionOf(catalogue, definitionId))
  if (definition === null) return E.left(unknownDefinition(catalogue, definitionId))
  const fields = changedFields(current, input.fields)
  const refused = sentFieldsFault(definition, input.fields ?? []) ?? storedFieldsFault(definition, fields)
  return refused === null ? E.right({ definition, fields }) : E.left(refused)
}
