import { webhookDeliverySuite } from './delivery.suite'

webhookDeliverySuite('memory', () => ({ env: {} }))
