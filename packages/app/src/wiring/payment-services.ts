/** Wires card services as a resource of the API: their management, the connectors' definitions, payment options. */
import { DependencyContainer } from 'tsyringe'
import {
  CardConnectors,
  Clock,
  ConnectorCatalogue,
  GiftCardServiceRepository,
  IdGenerator,
  Mac,
  makeCreatePaymentService,
  makeDefinitionSession,
  makeDeletePaymentService,
  makeGetPaymentService,
  makeGetPaymentServiceDefinition,
  makeListCardSchemeDefinitions,
  makeListPaymentOptions,
  makeListPaymentServiceDefinitions,
  makeListPaymentServices,
  makePaymentServiceSession,
  makeUpdatePaymentService,
  makeVerifyCredentials,
  PaymentServiceDeps,
  PaymentServiceRepository,
  RecordAudited,
  SecretBox,
} from '@orka/domain'
import { connectorCatalogue } from '@orka/adapters-node'
import { PROVIDER_WEBHOOK_PATH } from '@orka/adapters-http'
import { Config } from '../config'
import { get } from './context'
import { FreshPaymentServices } from './storage'

export const wirePaymentServices = (c: DependencyContainer): void => {
  c.register(ConnectorCatalogue, { useValue: connectorCatalogue() })
}

/** What the API, the seed and the CLI manage card services with: one set of checks for all three. */
export const paymentServiceDeps = (c: DependencyContainer): PaymentServiceDeps => ({
  cardServices: get(c, FreshPaymentServices),
  catalogue: get(c, ConnectorCatalogue),
  box: get(c, SecretBox),
  mac: get(c, Mac),
  clock: get(c, Clock),
  ids: get(c, IdGenerator),
  audited: get(c, RecordAudited),
})

/** Where a service's provider sends webhooks: Orka's public URL, then the route that takes them (`PUBLIC_URL` unset: not known). */
const webhookUrlOf = (publicUrl: string | undefined): PaymentServiceDeps['webhookUrl'] =>
  publicUrl === undefined ? undefined : (s) => `${publicUrl}${PROVIDER_WEBHOOK_PATH}/${encodeURIComponent(s.merchant_account_id)}/${s.id}`

export const paymentServiceUseCases = (c: DependencyContainer, config: Pick<Config, 'publicUrl'>) => {
  const webhookUrl = webhookUrlOf(config.publicUrl)
  const deps = { ...paymentServiceDeps(c), ...(webhookUrl === undefined ? {} : { webhookUrl }) }
  const { catalogue, mac } = deps
  return {
    createPaymentService: makeCreatePaymentService(deps),
    listPaymentServices: makeListPaymentServices(deps),
    getPaymentService: makeGetPaymentService(deps),
    updatePaymentService: makeUpdatePaymentService(deps),
    deletePaymentService: makeDeletePaymentService(deps),
    verifyPaymentServiceCredentials: makeVerifyCredentials({ ...deps, cardConnectors: get(c, CardConnectors) }),
    paymentServiceSession: makePaymentServiceSession(deps),
    listPaymentServiceDefinitions: makeListPaymentServiceDefinitions({ catalogue, mac }),
    getPaymentServiceDefinition: makeGetPaymentServiceDefinition({ catalogue }),
    paymentServiceDefinitionSession: makeDefinitionSession({ catalogue }),
    listCardSchemeDefinitions: makeListCardSchemeDefinitions(),
    // Routing's own view (cached), as a checkout would be routed.
    listPaymentOptions: makeListPaymentOptions({
      cardServices: get(c, PaymentServiceRepository),
      giftCardServices: get(c, GiftCardServiceRepository),
      catalogue,
    }),
  }
}
