import { embedFloodSuite } from '../http/embed-flood.suite'
import { freshDatabase } from './support'

embedFloodSuite('MongoDB', freshDatabase, 1)
embedFloodSuite('MongoDB', freshDatabase, 2)
