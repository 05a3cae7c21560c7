import { fuzzSuite } from './fuzz.suite'

/** Issue 10 on the embedded store: at least 10,000 generated requests per run. */
fuzzSuite('memory', () => ({ env: {} }), { requests: 10000 })
