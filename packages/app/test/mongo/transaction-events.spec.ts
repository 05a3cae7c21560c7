import { transactionEventsSuite } from '../webhooks/transaction-events.suite'
import { freshDatabase } from './support'

transactionEventsSuite('MongoDB', freshDatabase)
