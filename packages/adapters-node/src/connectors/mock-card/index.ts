import { CardConnectorModule } from '../context'
import { MockCardConnector } from './connector'
import { MOCK_CARD_DEFINITION } from './definition'

/** The sandbox card service: the original API's card simulator, in Orka's own process. */
export const mockCard: CardConnectorModule = {
  definition: MOCK_CARD_DEFINITION,
  create: (context) => new MockCardConnector({ timeoutMs: context.timeoutMs }),
}
