import { randomBytes } from 'node:crypto'
import { aPaymentServiceRecord, cardConnectorContract, macContract, secretBoxContract } from '@orka/domain/testing'
import { AesGcmSecretBox, HmacMac, MockCardConnector, UNANSWERED_AMOUNT } from '../src'

macContract('HMAC-SHA256', () =>
  Promise.resolve({
    port: new HmacMac(randomBytes(32)),
    otherKey: new HmacMac(randomBytes(32)),
    teardown: () => Promise.resolve(),
  }),
)
secretBoxContract('AES-256-GCM', () =>
  Promise.resolve({
    port: new AesGcmSecretBox(randomBytes(32)),
    otherKey: new AesGcmSecretBox(randomBytes(32)),
    teardown: () => Promise.resolve(),
  }),
)
cardConnectorContract('mock-card', () =>
  Promise.resolve({
    port: new MockCardConnector({ timeoutMs: 150 }),
    service: aPaymentServiceRecord(),
    approvingCard: { number: '4111111111111111', expirationDate: '12/35', securityCode: '123' },
    decliningCard: { number: '4000000000000002', expirationDate: '12/35', securityCode: '123' },
    timeoutMs: 150,
    unanswered: { amount: UNANSWERED_AMOUNT, card: { number: '4242424242424242', expirationDate: '12/35', securityCode: null } },
    teardown: () => Promise.resolve(),
  }),
)
