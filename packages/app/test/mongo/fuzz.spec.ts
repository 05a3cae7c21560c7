import { fuzzSuite } from '../fuzz/fuzz.suite'
import { freshDatabase } from './support'

/** Issue 10 on MongoDB (a fresh database): at least 2,000 generated requests per run. */
fuzzSuite('MongoDB', freshDatabase, { requests: 2000 })
