import { webhookDeliverySuite } from '../webhooks/delivery.suite'
import { freshDatabase } from './support'

webhookDeliverySuite('MongoDB', freshDatabase)
