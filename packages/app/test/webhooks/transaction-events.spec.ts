import { transactionEventsSuite } from './transaction-events.suite'

transactionEventsSuite('memory', () => ({ env: {} }))
