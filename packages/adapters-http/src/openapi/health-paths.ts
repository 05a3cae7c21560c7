import { Alive, NotReady, Ready } from '../routes/health'
import { codecToSchema, SchemaRegistry } from './codec-to-schema'

export const OPERATIONS_TAG = { name: 'Operations', description: 'Probes for load balancers and orchestrators: no token, no rate limit.' }

const probe = (operationId: string, summary: string, description: string, responses: Record<string, unknown>) => ({
  get: { tags: [OPERATIONS_TAG.name], operationId, summary, description, security: [], parameters: [], responses },
})
const json = (schema: unknown) => ({ 'application/json': { schema } })

/** `/healthz` and `/readyz`, from the codecs the health routes encode with. */
export const healthPaths = (registry: SchemaRegistry) => ({
  '/healthz': probe('healthz', 'Liveness', 'The process answers.', {
    '200': { description: 'Alive.', content: json(codecToSchema(Alive, registry)) },
  }),
  '/readyz': probe('readyz', 'Readiness', 'Storage answers too; `storage` names the database (or `memory`).', {
    '200': { description: 'Ready to serve.', content: json(codecToSchema(Ready, registry)) },
    '503': { description: 'Storage does not answer.', content: json(codecToSchema(NotReady, registry)) },
  }),
})
