import { embedFloodSuite } from './embed-flood.suite'

embedFloodSuite('memory', () => ({ env: {} }), 1)
