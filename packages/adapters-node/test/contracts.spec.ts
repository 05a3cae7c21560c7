import { randomBytes } from 'node:crypto'
import {
  aPaymentServiceRecord,
  cardConnectorContract,
  giftCardConnectorContract,
  macContract,
  ManualClock,
  secretBoxContract,
} from '@orka/domain/testing'
import { AesGcmSecretBox, HmacMac, MockCardConnector, MockGiftCardConnector, UNANSWERED_AMOUNT } from '../src'

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
giftCardConnectorContract('mock-gift-card', () => {
  const clock = new ManualClock(new Date('2025-01-15T10:00:00.000Z'))
  const timeoutMs = 100
  const connector = new MockGiftCardConnector({ clock, timeoutMs })
  return Promise.resolve({
    port: connector,
    // The mock's test numbers (README, "The mock gift card service: test numbers").
    activates: { number: '6036280000001234', pin: '73915286' },
    declines: { number: '6036280000000002', pin: '73915286' },
    hangs: { number: '6036280000000504', pin: '73915286' },
    timeoutMs,
    elapse: (ms: number) => {
      clock.advance(ms)
    },
    activations: () => connector.activations,
    teardown: () => Promise.resolve(),
  })
})
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
