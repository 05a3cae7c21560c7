/** Wires the adapters on Node's runtime every feature uses: clock, ids, randomness, and the keys derived from VAULT_KEY. */
import { DependencyContainer } from 'tsyringe'
import { Clock, IdGenerator, Mac, Random, SecretBox } from '@orka/domain'
import { MathRandom, RandomIds, SystemClock } from '@orka/adapters-node'
import { macOf, vaultBox } from './derived-keys'

export const wireRuntime = (c: DependencyContainer, rootKey: Buffer, clock: Clock = new SystemClock()): void => {
  c.register(Clock, { useValue: clock })
  c.register(IdGenerator, { useValue: new RandomIds() })
  c.register(Mac, { useValue: macOf(rootKey) })
  c.register(SecretBox, { useValue: vaultBox(rootKey) })
  c.register(Random, { useValue: new MathRandom() })
}
