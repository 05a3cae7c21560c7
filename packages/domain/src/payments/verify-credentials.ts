import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  failedValidation,
  InvalidRequest,
  NotFound,
  problem,
  refusedInput,
  ServiceFailed,
  ServiceTimeout,
  Unavailable,
} from '../shared/errors'
import { CardConnectors } from './card-connector.ports'
import { liveService, PaymentServiceDeps } from './manage-payment-services'
import { PaymentServiceField, withSecrets } from './payment-service'
import { VerifiedCredentials, VerifyCredentials } from './payment-service.codecs'
import { checkedSettings, unknownDefinition } from './payment-service-rules'

export type VerifyError = InvalidRequest | NotFound | ServiceFailed | ServiceTimeout | Unavailable

/**
 * `POST /payment-services/verify`: whether the connector's provider accepts these credentials,
 * over a stored service's own (`payment_service_id`, its secrets opened for the call) when one
 * is named. A refusal is a `400` naming the field the connector names, with its reason; never a
 * value. Nothing is stored.
 */
export const makeVerifyCredentials =
  (deps: Pick<PaymentServiceDeps, 'cardServices' | 'catalogue' | 'box'> & { readonly cardConnectors: CardConnectors }) =>
  (cmd: { readonly merchantAccountId: string; readonly input: VerifyCredentials }): TE.TaskEither<VerifyError, VerifiedCredentials> =>
  async () => {
    const { input } = cmd
    const definitionId = input.payment_service_definition_id
    let base: readonly PaymentServiceField[] = []
    if (input.payment_service_id != null) {
      const found = await liveService(deps, cmd.merchantAccountId, input.payment_service_id)()
      if (E.isLeft(found)) return found
      const service = found.right
      if (service.payment_service_definition_id !== definitionId)
        return E.left(
          refusedInput(['payment_service_id'], 'The payment service is of another definition', 'payment_service_definition_mismatch'),
        )
      base = withSecrets(deps.box, service).fields
    }
    const checked = checkedSettings(deps.catalogue, definitionId, input, base)
    if (E.isLeft(checked)) return checked
    const connector = O.toNullable(deps.cardConnectors.forDefinition(definitionId))
    if (connector === null) return E.left(unknownDefinition(deps.catalogue, definitionId))
    const answer = await connector.verify(checked.right.fields)()
    if (E.isRight(answer)) return E.right({ verified: true })
    const e = answer.left
    if (e._tag !== 'CredentialsRefused') return E.left(e)
    // At the field sent with that key, if one was; the message names the key either way.
    const at = e.field === null ? -1 : input.fields.findIndex((f) => f.key === e.field)
    const message = e.field === null ? e.reason : `${e.field}: ${e.reason}`
    return E.left(failedValidation(problem('input', at < 0 ? ['fields'] : ['fields', String(at), 'value'], message, 'credentials_refused')))
  }
