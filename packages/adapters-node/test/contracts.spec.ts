import { randomBytes } from 'node:crypto'
import { macContract, secretBoxContract } from '@orka/domain/testing'
import { AesGcmSecretBox, HmacMac } from '../src'

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
